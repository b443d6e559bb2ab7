"""Large pastes held as chips: the composer shows "[Pasted 125 lines]" in place of the
text, and the full text is what is sent (issue 25: a 125-line paste filled the
composer, and nothing cleared it quickly).

A chip is plain text in the composer, so the cursor, undo and selection treat it as
text; this keeps what each label stands for. A label edited by hand no longer matches
and stays as typed: nothing is sent that the user cannot see named.
"""

from __future__ import annotations

LINES = 10  # a paste of this many lines or more becomes a chip
CHARACTERS = 1000  # ... or of this many characters


def is_large(text: str) -> bool:
    return text.count("\n") + 1 >= LINES or len(text) >= CHARACTERS


class PasteChips:
    def __init__(self) -> None:
        self._texts: dict[str, str] = {}  # label -> the pasted text

    def add(self, text: str) -> str:
        """A label for `text`, unique among the chips held."""
        lines = text.count("\n") + 1
        size = f"{lines} lines" if lines >= LINES else f"{len(text):,} characters"
        label, n = f"[Pasted {size}]", 1
        while label in self._texts:
            n += 1
            label = f"[Pasted {size} #{n}]"
        self._texts[label] = text
        return label

    def expand(self, text: str) -> str:
        """`text` with every chip it still holds replaced by what was pasted."""
        for label, pasted in self._texts.items():
            text = text.replace(label, pasted)
        return text

    def ending_at(self, text: str, offset: int) -> str | None:
        """The chip whose label ends at `offset` of `text` (Backspace there removes it whole)."""
        for label in self._texts:
            if text.endswith(label, 0, offset):
                return label
        return None

    def last_in(self, text: str, before: int | None = None) -> str | None:
        """The chip nearest before `before` (default: the end) that `text` holds."""
        end = len(text) if before is None else before
        found = [(text.rfind(label, 0, end + len(label)), label) for label in self._texts]
        found = [(at, label) for at, label in found if at >= 0]
        return max(found)[1] if found else None

    def prune(self, text: str) -> None:
        """Forget the chips `text` no longer holds (their labels are free again)."""
        self._texts = {label: pasted for label, pasted in self._texts.items() if label in text}

    def text_of(self, label: str) -> str:
        return self._texts[label]

    def clear(self) -> None:
        self._texts.clear()

    def __bool__(self) -> bool:
        return bool(self._texts)

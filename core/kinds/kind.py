"""One family of Responses item types, and everything rivulet does with its items once
they are committed: why one cannot be kept, what it looks like as a title and lines,
what search looks through, what copying takes, and how the export writes it.

The stream's state machine needs none of this; the front ends ask the registry
(`registry.kind_of`) instead of testing `item["type"]` each on its own. A new item type
is a subclass in its own module plus one line in `registry.KINDS`: the chat draws it
(live, as an entry, frozen), plain mode prints it, find and the inspector see it, and
the export writes it, all from these methods. The screen may register its own widgets
for a kind (widgets/kind_views.py); without them it draws `view`.

All the text here is the model's or the server's, so hostile: these methods return it
raw, and every caller sanitises what it shows (the export sanitises the whole file).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rivulet.core import items as it
from rivulet.core.hosted_items import HostedView

Item = dict[str, Any]


class ItemKind:
    """The defaults are those of an item rivulet knows nothing about: its type and status."""

    name: ClassVar[str] = "other"  # the registry's key (and the widgets' key for this kind)
    types: ClassVar[frozenset[str]] = frozenset()  # the `type` values it may claim

    def claims(self, item: Item) -> bool:
        """Whether this kind takes `item` (its type is one of `types`; a kind may look closer)."""
        return it.item_type(item) in self.types

    def problem(self, item: Item) -> str | None:
        """Why the finished item cannot be committed at all (the response is then broken), or None."""
        return None

    def malformed(self, item: Item) -> str | None:
        """Why the item is dropped (said, not shown, kept nor resent) rather than kept, or None."""
        return None

    def icon(self, item: Item) -> str:
        return "•"

    def view(self, item: Item) -> HostedView:
        """A title and lines: how the screen, plain mode and the export show it by default."""
        status = item.get("status")
        title = " · ".join([it.item_type(item) or "item"] + ([str(status)] if status else []))
        return HostedView(title=title)

    def images(self, item: Item) -> list[str]:
        """Base64 images drawn under the item (a generated image, a code interpreter's plot)."""
        return []

    def search_text(self, item: Item, output: Item | None) -> str:
        """What find in the transcript and session search look through: the text it shows."""
        view = self.view(item)
        return "\n".join([view.title, *([view.code] if view.code else []), *view.lines])

    def copy_text(self, item: Item, output: Item | None) -> str:
        """What copying the entry puts on the clipboard."""
        return self.search_text(item, output)

    def brief(self, item: Item) -> str:
        """One line for the inspector's list (beside the item's type): its view's first line, or its status."""
        lines = self.view(item).lines
        return lines[0] if lines else str(item.get("status") or "")

    def markdown(self, item: Item, output: Item | None) -> str:
        """The item in the Markdown export (`output`: a call's output, which has none of its own)."""
        view = self.view(item)
        if not view.lines and not view.code:
            return f"\n*({it.item_type(item) or 'unknown'} item)*\n"
        return (f"\n### {view.title}\n\n" + (fence(view.code) if view.code else "")
                + "".join(f"- {line}\n" for line in view.lines))


def fence(text: str, lang: str = "") -> str:
    """`text` in a code fence longer than any run of backticks inside it."""
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}\n"

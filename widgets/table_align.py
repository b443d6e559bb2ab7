"""Markdown tables that honour their columns' alignment (`|:--|--:|:-:|`, issue 25).

Rich (the live tail, the frozen lines) aligns cells as the delimiter row says; Textual's
Markdown widget (the committed entry) drew every cell left-aligned. Its table is given
the alignment of each column, read from the header cells' tokens as markdown-it leaves
it (`style="text-align:right"`).
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets._markdown import MarkdownBlock, MarkdownTable, MarkdownTableContent, MarkdownTH

ALIGNS = ("left", "center", "right")


def column_align(style: object) -> str | None:
    """"text-align:right" -> "right"; anything else -> None (the default, left)."""
    text = str(style or "").replace(" ", "")
    return next((a for a in ALIGNS if f"text-align:{a}" in text), None)


class AlignedTableContent(MarkdownTableContent):
    def __init__(self, headers: list[Content], rows: list[list[Content]], aligns: list[str | None]) -> None:
        super().__init__(headers, rows)
        self.aligns = aligns

    def compose(self) -> ComposeResult:
        columns = len(self.headers)
        for n, cell in enumerate(super().compose()):
            align = self.aligns[n % columns] if columns and n % columns < len(self.aligns) else None
            if align is not None:
                cell.styles.text_align = align  # type: ignore[assignment]  # one of ALIGNS
            yield cell


class AlignedTable(MarkdownTable):
    def _aligns(self) -> list[str | None]:
        def flatten(block: MarkdownBlock) -> Iterable[MarkdownBlock]:
            for child in block._blocks:
                yield child
                yield from flatten(child)

        return [column_align(b._token.attrs.get("style")) for b in flatten(self) if isinstance(b, MarkdownTH)]

    def compose(self) -> ComposeResult:
        headers, rows = self._get_headers_and_rows()
        self._headers, self._rows = headers, rows
        yield AlignedTableContent(headers, rows, self._aligns())

"""The chip row above the composer: what the next message will attach.

One chip per file or image (its name and size), and a red chip for an `@` token that
cannot be attached (why, in a word). File names come from the user's disk and may
hold anything: every chip is sanitised and drawn as Text, never markup. Hidden when
there is nothing to attach.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import Static

from rivulet.core.sanitize import sanitize


@dataclass(frozen=True)
class Chip:
    label: str  # the path as the user sees it
    kind: str  # "file", "image" or "error"
    detail: str  # the size, or what is wrong


class AttachmentChips(Static):
    DEFAULT_CSS = """
    AttachmentChips { height: auto; max-height: 3; padding: 0 1; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.chips: list[Chip] = []
        self.display = False

    def show(self, chips: list[Chip], remove_key: str = "ctrl+l") -> None:
        if chips == self.chips and self.display == bool(chips):
            return
        self.chips = list(chips)
        self.display = bool(chips)
        line = Text("attach ", style="dim")
        for chip in chips:
            icon = {"image": "▣", "file": "▤"}.get(chip.kind, "✗")
            style = "reverse red" if chip.kind == "error" else "reverse"
            line.append(f" {icon} {sanitize(chip.label)} · {sanitize(chip.detail)} ", style=style)
            line.append(" ")
        if any(c.kind != "error" for c in chips):
            line.append(f"({remove_key}: remove the last)", style="dim")
        self.update(line)

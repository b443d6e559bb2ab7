"""What the front ends are told of hooks: one `HookNote` per hook that ran and had
something to say (its output, capped) or failed (one line)."""

from __future__ import annotations

from typing import ClassVar

from rivulet.core.turn.bus import BusEvent


class HookNote(BusEvent):
    event: str  # the hook event (after_patch, ...)
    label: str  # the hook's command, short
    text: str  # its output, capped, or why it failed; untrusted: sanitise before showing
    failed: bool = False
    blocked: bool = False  # a before_tool hook kept the call from running
    type: ClassVar[str] = "hook.note"

    def line(self) -> str:
        """The note as plain text, as every front end shows it (sanitise it first)."""
        head = f"hook {self.event} · {self.label}"
        return f"{head}: {self.text}" if "\n" not in self.text else f"{head}\n{self.text}"

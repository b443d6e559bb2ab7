"""The app's side of attachments and edit-and-resend, as a mixin of the App.

It owns the chip row (kept in step with the composer's text), the paste of an image
path, the detach key, turning a sent text into a prompt and its attachments, and the
Esc-Esc / inspector entry points of edit and resend (see edit_resend).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.widgets import TextArea

from rivulet.widgets.attachment_chips import AttachmentChips

if TYPE_CHECKING:
    from rivulet.app.attach.composer import ComposerAttachments
    from rivulet.core.turn.attachments import Attachment
    from rivulet.widgets.inspector import InspectorScreen


class AttachAndEdit:
    """Mixed into RivuletApp (which provides settings, tool_settings, chat, ...)."""

    # None until the settings are known (app/boot.py): typing before that shows no chips.
    attachments: ComposerAttachments | None = None
    _chips: AttachmentChips

    def setup_attachments(self: Any, images: list[Attachment] | None) -> None:
        from rivulet.app.attach.composer import ComposerAttachments
        from rivulet.app.attach.file_completion import FileCompletion
        from rivulet.app.attach.refs import AttachLimits
        from rivulet.app.edit_resend import EscEsc

        settings = self.settings
        workspace = self.tool_settings.workspace if self.tool_settings is not None else None
        workspace = Path(workspace or settings.workspace or os.getcwd()).expanduser()
        limits = AttachLimits(settings.attach_max_bytes, settings.image_max_bytes)
        self.attachments = ComposerAttachments(workspace, limits, images)
        self._esc = EscEsc()
        self._chips = self.screen_stack[0].query_one(AttachmentChips)  # the chat's: a view may be on top
        self.chat.composer.paste_filter = self._paste_filter
        # The completion popup (widgets/completion.py) asks providers; ours offers files.
        self.chat.composer.add_completion_provider(FileCompletion(workspace))
        self.refresh_chips()

    def refresh_chips(self: Any) -> None:
        if self.attachments is None:
            return
        key = (self.settings.keymap or {}).get("composer.detach", "ctrl+l")  # as the user remapped it
        composer = self.chat.composer
        row, col = composer.cursor_location
        text = composer.text
        cursor = sum(len(line) + 1 for line in text.split("\n")[:row]) + col
        self._chips.show(self.attachments.chips(text, cursor), key)

    def on_text_area_changed(self: Any, event: TextArea.Changed) -> None:
        if event.text_area is self.chat.composer and self.attachments is not None:
            self._esc.reset()
            self.refresh_chips()

    def on_text_area_selection_changed(self: Any, event: TextArea.SelectionChanged) -> None:
        if event.text_area is self.chat.composer:
            self.refresh_chips()  # the cursor left a token: its error chip may show now

    def _paste_filter(self: Any, text: str) -> bool:
        problem = self.attachments.paste(text)
        if problem is None:
            return False
        if problem:
            self.notify(problem, severity="error")
        else:
            self.refresh_chips()
        return True

    def action_detach_last(self: Any) -> None:
        if self.attachments is None:
            return
        text = self.chat.composer.text
        new = self.attachments.remove_last(text)
        if new is None:
            self.notify("Nothing is attached")
            return
        if new != text:
            self.chat.composer.restore(new)
        self.refresh_chips()

    def take_prompt(self: Any, text: str, typed: str | None = None) -> tuple[str, list[Attachment]] | None:
        """The sent text as a prompt and attachments, or None (the error shown in one
        line, what was typed back in the composer)."""
        from rivulet.core.turn.attachments import AttachmentError

        try:
            taken: tuple[str, list[Attachment]] = self.attachments.take(text)
        except AttachmentError as exc:
            self.notify(exc.message, severity="error", timeout=8)
            self.chat.composer.restore(text if typed is None else typed)
            return None
        self.refresh_chips()
        return taken

    def give_back_attachments(self: Any) -> None:
        self.attachments.give_back()
        self.refresh_chips()

    def can_edit(self: Any) -> bool:
        """No turn runs, the chat has started, and nothing is on top of it."""
        return (self.attachments is not None and self.conversation is not None
                and not self.services.turns.running() and self.screen is self.screen_stack[0])

    def escape_to_edit(self: Any) -> None:
        """An Esc nothing else wanted: the second one, on an empty composer, edits the
        last message."""
        if self.attachments is None:
            return
        if not self.can_edit() or self.chat.composer.text or self.focused is not self.chat.composer:
            self._esc.reset()
            return
        if self._esc.press():
            self.start_edit()

    def on_inspector_screen_edit_requested(self: Any, message: InspectorScreen.EditRequested) -> None:
        self.start_edit(message.turn_id)

    def start_edit(self: Any, turn_id: int | None = None) -> None:
        """The message of `turn_id` (None: the last) back in the composer, history cut before it
        (app/edit_resend.py), given what it needs of the chat."""
        self.run_worker(self._edit(turn_id), group="edit", exclusive=True)

    async def _edit(self: Any, turn_id: int | None) -> None:
        from rivulet.app.edit_resend import Editing, edit_message

        if not self.can_edit():  # (the inspector that asked has gone by now)
            self.notify("Wait for the turn to end (or press Esc to stop it) before editing", severity="warning")
            return
        await edit_message(Editing(self.services, self.chat, self.commits, self, self.attachments,
                                   self.refresh_chips), turn_id)

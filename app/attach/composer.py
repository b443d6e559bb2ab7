"""What the next message attaches, kept beside the composer, and the chip row for it.

Two sources: the `@path` tokens in the composer's text (read again on every edit, so
the chips always match the text), and attachments held here: a pasted image path,
`--image` files, and the attachments of a message taken back to edit. A held
attachment wins over a token naming the same path (an edited message resends what it
carried, as it was). `take` turns the text into the prompt and its attachments when
the message is sent; an attachment that fails is one line and the text stays.
"""

from __future__ import annotations

from pathlib import Path

from rivulet.app.attach.refs import (
    AttachLimits,
    attach_image,
    attach_ref,
    find_refs,
    inside,
    looks_like_path,
    pasted_image_path,
    resolve,
    size_text,
    unescape,
)
from rivulet.core.turn.attachments import Attachment, AttachmentError, image_mime
from rivulet.widgets.attachment_chips import Chip


class ComposerAttachments:
    def __init__(self, workspace: Path, limits: AttachLimits, held: list[Attachment] | None = None) -> None:
        self.workspace = workspace.resolve()
        self.limits = limits
        self.held: list[Attachment] = list(held or [])
        self.last_held: list[Attachment] = []  # what the last message carried (to restore it)

    # ---- the chip row -------------------------------------------------------------------

    def chips(self, text: str, cursor: int | None = None) -> list[Chip]:
        """The chip row for `text`. A token the cursor is in is still being typed: it
        gets no error chip yet (`@notes.t` is no file until the `xt` comes)."""
        out = [Chip(a.path, a.kind, size_text(a.size)) for a in self.held]
        seen = {a.path for a in self.held}
        for ref in find_refs(text):
            chip = self._preview(ref.path)
            if chip is not None and chip.kind == "error" and cursor is not None and ref.start < cursor <= ref.end:
                continue
            if chip is not None and chip.label not in seen:
                seen.add(chip.label)
                out.append(chip)
        return out

    def _preview(self, ref: str) -> Chip | None:
        """A cheap look (stat and the first bytes) for the chip; `take` reads it all."""
        path = resolve(ref, self.workspace)
        try:
            if not path.exists():
                return Chip(ref, "error", "no such file") if looks_like_path(ref) else None
            if not inside(path, self.workspace):
                return Chip(ref, "error", "outside the workspace")
            if not path.is_file():
                return Chip(ref, "error", "not a file")
            size = path.stat().st_size
            with path.open("rb") as f:
                head = f.read(8192)
        except OSError as exc:
            return Chip(ref, "error", exc.strerror or "unreadable")
        shown = path.relative_to(self.workspace).as_posix()
        image = image_mime(head[:16]) is not None
        limit = self.limits.image_max_bytes if image else self.limits.text_max_bytes
        if size > limit:
            return Chip(shown, "error", f"{size_text(size)}, over the {size_text(limit)} cap")
        if not image and b"\0" in head:
            return Chip(shown, "error", "binary")
        return Chip(shown, "image" if image else "file", size_text(size))

    # ---- sending --------------------------------------------------------------------------

    def take(self, text: str) -> tuple[str, list[Attachment]]:
        """The prompt and its attachments; raises a one-line AttachmentError (the
        held attachments stay, so nothing is lost)."""
        out = list(self.held)
        seen = {a.path for a in out}
        for ref in find_refs(text):
            found = attach_ref(ref.path, self.workspace, self.limits)
            if found is not None and found.path not in seen:
                seen.add(found.path)
                out.append(found)
        self.last_held, self.held = self.held, []
        return unescape(text), out

    def give_back(self) -> None:
        """The message was taken back unsent (an interrupt before anything was
        committed): what it held is held again."""
        self.held = self.last_held + [a for a in self.held if a not in self.last_held]
        self.last_held = []

    # ---- adding and removing ---------------------------------------------------------------

    def paste(self, text: str) -> str | None:
        """A paste that is one image file's path becomes a held image. Returns None
        when the paste is ordinary text, "" when taken, or the one-line error."""
        path = pasted_image_path(text, self.workspace)
        if path is None:
            return None
        try:
            self.hold(attach_image(str(path), self.workspace, self.limits))
        except AttachmentError as exc:
            return exc.message
        return ""

    def hold(self, attachment: Attachment) -> None:
        self.held = [a for a in self.held if a.path != attachment.path] + [attachment]

    def remove_last(self, text: str) -> str | None:
        """Drop the last chip: a held attachment, else the last `@` token naming a
        file (the new text is returned; None when there was nothing to remove)."""
        if self.held:
            self.held.pop()
            return text
        for ref in reversed(find_refs(text)):
            chip = self._preview(ref.path)
            if chip is not None:
                end = ref.end + 1 if text[ref.end:ref.end + 1] == " " else ref.end
                return text[:ref.start] + text[end:]
        return None

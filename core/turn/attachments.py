"""Files and images attached to a prompt, as parts of the user message item.

A text file becomes an `input_text` part wrapped in `<file path="...">` ... `</file>`,
so the model knows what it reads and where it ends. An image (PNG, JPEG, GIF, WebP,
recognised by its first bytes, not its name) becomes an `input_image` part with a
base64 data URL, between `<image path="...">` and `</image>` text parts that name it.
The message item is the record: a session file stores it as sent, and
`describe_content` reads it back (the prompt, each file, each image) for resume and
export without ever showing base64.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import msgspec

from rivulet.core import items as it
from rivulet.core.errors import RivuletError

DEFAULT_TEXT_MAX_BYTES = 256 * 1024
DEFAULT_IMAGE_MAX_BYTES = 8 * 1024 * 1024

_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


class AttachmentError(RivuletError):
    kind = "attachment_error"


class Attachment(msgspec.Struct, frozen=True, dict=True):
    path: str  # as the model and the user see it: relative to the workspace when inside it
    kind: str  # "file" or "image"
    size: int  # bytes on disk
    parts: tuple[dict[str, Any], ...]  # the content parts it adds to the message
    mime: str = "text/plain"


def image_mime(data: bytes) -> str | None:
    for magic, mime in _IMAGE_MAGIC:
        if data.startswith(magic):
            return mime
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def size_text(n: int, byte_unit: str = "bytes") -> str:
    """A size as people read it: `12 bytes`, `3.4 KiB`, `1.2 MiB` (`byte_unit` "B" for chips)."""
    if n < 1024:
        return f"{n} {byte_unit}"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / 1024 / 1024:.1f} MiB"


def _shown_path(path: Path, workspace: Path) -> str:
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        return str(path)


def attach(ref: str, workspace: Path, *, text_max_bytes: int = DEFAULT_TEXT_MAX_BYTES,
           image_max_bytes: int = DEFAULT_IMAGE_MAX_BYTES) -> Attachment:
    """The attachment for `ref` (a path, relative to the workspace or absolute; the
    user named it, so it may lie outside). Raises a one-line AttachmentError."""
    workspace = workspace.resolve()
    path = (workspace / Path(ref).expanduser()).resolve()
    shown = _shown_path(path, workspace)
    if not path.exists():
        raise AttachmentError(f"cannot attach {shown}: no such file")
    if not path.is_file():
        raise AttachmentError(f"cannot attach {shown}: not a regular file")
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            head = f.read(16)
            mime = image_mime(head)
            limit = image_max_bytes if mime else text_max_bytes
            if size > limit:
                setting = "image_max_bytes" if mime else "attach_max_bytes"
                raise AttachmentError(f"cannot attach {shown}: it is {size_text(size)}, over the "
                                      f"{size_text(limit)} cap ({setting})")
            data = head + f.read(max(0, limit + 1 - len(head)))
    except OSError as exc:
        raise AttachmentError(f"cannot attach {shown}: {exc.strerror or exc}") from None
    if len(data) > limit:  # it grew since stat
        raise AttachmentError(f"cannot attach {shown}: it is over the {size_text(limit)} cap")
    if mime:
        return image_attachment(shown, data, mime)
    return text_attachment(shown, data)


def text_attachment(shown: str, data: bytes) -> Attachment:
    if b"\0" in data[:8192]:
        raise AttachmentError(f"cannot attach {shown}: it is a binary file (only text files and "
                              "PNG, JPEG, GIF or WebP images can be attached)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise AttachmentError(f"cannot attach {shown}: it is not UTF-8 text") from None
    part = {"type": "input_text", "text": f'<file path="{_attr(shown)}">\n{text}\n</file>'}
    return Attachment(shown, "file", len(data), (part,))


def image_attachment(shown: str, data: bytes, mime: str) -> Attachment:
    url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    parts = ({"type": "input_text", "text": f'<image path="{_attr(shown)}">'},
             {"type": "input_image", "image_url": url, "detail": "auto"},
             {"type": "input_text", "text": "</image>"})
    return Attachment(shown, "image", len(data), parts, mime)


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("\n", " ")


def user_message(prompt: str, attachments: list[Attachment] | tuple[Attachment, ...] = ()) -> it.Item:
    """The user message item: the prompt, then each attachment's parts in order."""
    item = it.user_message(prompt)
    for attachment in attachments:
        item["content"].extend(dict(p) for p in attachment.parts)
    return item


# ---- reading a recorded message back ---------------------------------------------------------


class Piece(msgspec.Struct, frozen=True, dict=True):
    kind: str  # "text" (the prompt), "file", "image"
    text: str = ""  # the prompt's or the file's text
    path: str | None = None
    mime: str | None = None
    size: int | None = None  # an image's decoded size in bytes


_FILE = re.compile(r'\A<file path="([^"]*)">\n(.*)\n</file>\Z', re.DOTALL)
_IMAGE_OPEN = re.compile(r'\A<image path="([^"]*)">\Z')
_DATA_URL = re.compile(r"\Adata:([\w.+-]+/[\w.+-]+);base64,")


def _unattr(value: str) -> str:
    return value.replace("&quot;", '"').replace("&amp;", "&")


def describe_content(item: it.Item) -> list[Piece]:
    """A user message's content as the prompt, files and images (never base64)."""
    return [piece for piece, _ in grouped_content(item)]


def prompt_text(item: it.Item) -> str:
    """A user message's own text, without its attachments."""
    return "".join(p.text for p in describe_content(item) if p.kind == "text")


def grouped_content(item: it.Item) -> list[tuple[Piece, tuple[dict[str, Any], ...]]]:
    """Each piece of a user message with the parts it was made of (an image: its
    label, the image and the closing part)."""
    content = item.get("content")
    if isinstance(content, str):
        return [(Piece("text", content), ({"type": "input_text", "text": content},))]
    parts = [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []
    out: list[tuple[Piece, tuple[dict[str, Any], ...]]] = []
    n = 0
    while n < len(parts):
        part = parts[n]
        kind = part.get("type")
        value = part.get("text")
        text = value if isinstance(value, str) else ""
        opened = _IMAGE_OPEN.match(text) if kind == "input_text" else None
        if opened and n + 1 < len(parts) and parts[n + 1].get("type") == "input_image":
            group = [part, parts[n + 1]]
            n += 2
            if n < len(parts) and parts[n].get("type") == "input_text" and parts[n].get("text") == "</image>":
                group.append(parts[n])
                n += 1
            out.append((_image_piece(parts[n - len(group) + 1], _unattr(opened.group(1))), tuple(group)))
            continue
        n += 1
        if kind == "input_image":
            out.append((_image_piece(part, None), (part,)))
        elif kind in ("input_text", "text"):
            if (f := _FILE.match(text)) is not None:
                out.append((Piece("file", f.group(2), _unattr(f.group(1))), (part,)))
            else:
                out.append((Piece("text", text), (part,)))
        elif kind == "input_file":
            name = part.get("filename")
            out.append((Piece("file", "", name if isinstance(name, str) else None), (part,)))
    return out


def _image_piece(part: dict[str, Any], label: str | None) -> Piece:
    value = part.get("image_url")
    url = value if isinstance(value, str) else ""
    m = _DATA_URL.match(url)
    if m is None:
        return Piece("image", path=label)
    encoded = len(url.rstrip("=")) - m.end()
    return Piece("image", path=label, mime=m.group(1), size=encoded * 3 // 4)


def placeholder(piece: Piece) -> str:
    """One line that stands for an attachment (a chip, an export line)."""
    name = piece.path or "(unnamed)"
    if piece.kind == "image":
        size = f", {size_text(piece.size)}" if piece.size is not None else ""
        return f"[image {name} ({piece.mime or 'image'}{size})]"
    return f"[file {name} ({size_text(len(piece.text.encode('utf-8')))})]"

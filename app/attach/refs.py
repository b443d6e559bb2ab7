"""What a prompt attaches: its `@path` tokens, a pasted image path, `--image` files.

No Textual here: the composer's chip row and the submit handler call these, and so do
the CLI and the tests. Every attachment goes through core's `attach` (size caps,
binary refusal, images known by their bytes).

A token is `@` at the start of the text or after whitespace, then a path up to the
next whitespace, or `@"a path with spaces"`. A token names a file when that file
exists (relative to the workspace, or absolute); it must lie inside the workspace.
A token that names nothing is left as text when it does not look like a path
(`@bob`), and is an error when it does (`@src/missing.py`, `@notes.txt`): the user
meant a file. `@@word` sends `@word` literally.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from rivulet.core.sanitize import sanitize
from rivulet.core.turn import attachments
from rivulet.core.turn.attachments import Attachment, AttachmentError, attach, image_mime

TOKEN = re.compile(r'(?:(?<=\s)|^)@(@?)(?:"([^"\n]+)"|(\S+))')
# Trailing punctuation that ends a sentence, not a path ("look at @a.py, then ...").
_TRAILING = ",;:!?)]}'"


@dataclass(frozen=True)
class Ref:
    start: int  # where the token starts in the text (its "@")
    end: int
    path: str  # as typed, without the "@" and quotes


@dataclass
class AttachLimits:
    text_max_bytes: int
    image_max_bytes: int


def find_refs(text: str) -> list[Ref]:
    """The `@path` tokens of `text`, in order (escaped `@@` ones left out)."""
    refs = []
    for m in TOKEN.finditer(text):
        if m.group(1):
            continue
        if m.group(2) is not None:
            refs.append(Ref(m.start(), m.end(), m.group(2)))
            continue
        path = m.group(3).rstrip(_TRAILING)
        if path.endswith(".") and not path.endswith(".."):
            path = path[:-1]  # a full stop
        if path:
            refs.append(Ref(m.start(), m.start() + 1 + len(path), path))
    return refs


def unescape(text: str) -> str:
    """`@@word` becomes `@word` (the escape for a literal at-sign token)."""
    return TOKEN.sub(lambda m: m.group(0)[1:] if m.group(1) else m.group(0), text)


def looks_like_path(ref: str) -> bool:
    return "/" in ref or bool(re.search(r"\.\w+$", ref)) or ref.startswith("~")


def resolve(ref: str, workspace: Path) -> Path:
    path = (workspace / Path(ref).expanduser()).resolve()
    return path if path.exists() else _shown_as(path) or path


def _shown_as(path: Path) -> Path | None:
    """The file whose name, as the composer shows it (controls as codes), is the one
    typed: the composer never holds raw control characters, so a file named with them
    is referred to by its visible form."""
    try:
        return next((p for p in path.parent.iterdir() if p.name != path.name and sanitize(p.name) == path.name),
                    None)
    except OSError:
        return None


def inside(path: Path, workspace: Path) -> bool:
    return path == workspace or workspace in path.parents


def attach_ref(ref: str, workspace: Path, limits: AttachLimits) -> Attachment | None:
    """The attachment an `@` token makes, None when it is just text; a one-line
    AttachmentError when it names a file that cannot be attached."""
    workspace = workspace.resolve()
    path = resolve(ref, workspace)
    if not path.exists():
        if looks_like_path(ref):
            raise AttachmentError(f"cannot attach @{ref}: no such file in the workspace")
        return None
    if not inside(path, workspace):
        raise AttachmentError(f"cannot attach @{ref}: it is outside the workspace ({workspace})")
    return attach(str(path), workspace, text_max_bytes=limits.text_max_bytes, image_max_bytes=limits.image_max_bytes)


def attachments_in(text: str, workspace: Path, limits: AttachLimits) -> list[Attachment]:
    """Every attachment the prompt's tokens make, once each, in order. Raises the
    first token's AttachmentError."""
    out: list[Attachment] = []
    seen: set[str] = set()
    for ref in find_refs(text):
        found = attach_ref(ref.path, workspace, limits)
        if found is not None and found.path not in seen:
            seen.add(found.path)
            out.append(found)
    return out


def pasted_image_path(text: str, workspace: Path) -> Path | None:
    """A paste that is one existing image file's path (as a file manager or terminal
    drops it: quoted, shell-escaped or a file:// URL), else None."""
    raw = text.strip()
    if not raw or "\n" in raw or len(raw) > 4096:
        return None
    if raw.startswith("file://"):
        raw = unquote(urlparse(raw).path)
    else:
        try:
            words = shlex.split(raw)
        except ValueError:
            return None
        if len(words) != 1:
            return None
        raw = words[0]
    try:
        path = resolve(raw, workspace.resolve())
        if not path.is_file():
            return None
        with path.open("rb") as f:
            head = f.read(16)
    except (OSError, ValueError, RuntimeError):
        return None
    return path if image_mime(head) else None


def attach_image(ref: str, workspace: Path, limits: AttachLimits) -> Attachment:
    """`--image PATH` and a pasted image path: the user named it, so it may lie
    outside the workspace; it must be an image."""
    found = attach(ref, workspace, text_max_bytes=limits.text_max_bytes, image_max_bytes=limits.image_max_bytes)
    if found.kind != "image":
        raise AttachmentError(f"cannot attach {found.path} as an image: it is not a PNG, JPEG, GIF or WebP file")
    return found


def size_text(n: int) -> str:
    """The short form chips and the `@` popup show (`33 B`, `1.2 KiB`)."""
    return attachments.size_text(n, "B")

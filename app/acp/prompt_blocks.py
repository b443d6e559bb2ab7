"""A prompt's content blocks as rivulet's input: text blocks joined as the prompt; an
image, an embedded resource (text, or an image blob) and a resource link to a file
become attachments, as `@path` and pasted images do in the chat
(core/turn/attachments.py). A link that is no local file is named in the prompt."""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from rivulet.core.turn.attachments import Attachment, attach, image_attachment, image_mime, text_attachment

if TYPE_CHECKING:
    from collections.abc import Sequence


class PromptError(Exception):
    """A block that cannot be sent (bad base64, a file too large): one line for the editor."""


def to_input(blocks: Sequence[Any], workspace: Path, image_max_bytes: int) -> tuple[str, list[Attachment]]:
    from acp.schema import (
        BlobResourceContents,
        EmbeddedResourceContentBlock,
        ImageContentBlock,
        ResourceContentBlock,
        TextContentBlock,
        TextResourceContents,
    )

    from rivulet.core.errors import RivuletError

    texts: list[str] = []
    attachments: list[Attachment] = []
    try:
        for n, block in enumerate(blocks):
            if isinstance(block, TextContentBlock):
                texts.append(block.text)
            elif isinstance(block, ImageContentBlock):
                attachments.append(_image(block.uri or f"image-{n + 1}", block.data, image_max_bytes))
            elif isinstance(block, EmbeddedResourceContentBlock):
                res = block.resource
                if isinstance(res, TextResourceContents):
                    attachments.append(text_attachment(_shown(res.uri, workspace), res.text.encode()))
                elif isinstance(res, BlobResourceContents):
                    attachments.append(_image(_shown(res.uri, workspace), res.blob, image_max_bytes))
            elif isinstance(block, ResourceContentBlock):
                path = _local_path(block.uri)
                if path is not None:
                    attachments.append(attach(str(path), workspace, image_max_bytes=image_max_bytes))
                else:
                    texts.append(f"[{block.name}]({block.uri})")
    except RivuletError as exc:
        raise PromptError(exc.message) from None
    return "\n".join(texts), attachments


def _image(shown: str, data: str, limit: int) -> Attachment:
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise PromptError(f"{shown}: the image is not valid base64") from None
    mime = image_mime(raw[:16])
    if mime is None:
        raise PromptError(f"{shown}: not a PNG, JPEG, GIF or WebP image")
    if len(raw) > limit:
        raise PromptError(f"{shown}: the image is {len(raw):,} bytes, over the {limit:,} cap (image_max_bytes)")
    return image_attachment(shown, raw, mime)


def _local_path(uri: str) -> Path | None:
    parts = urlsplit(uri)
    if parts.scheme == "file":
        return Path(unquote(parts.path))
    return None


def _shown(uri: str, workspace: Path) -> str:
    """A resource's name for the model: its path relative to the workspace where it is inside."""
    path = _local_path(uri)
    if path is None:
        return uri
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        return str(path)

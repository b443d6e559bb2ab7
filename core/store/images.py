"""Images the server made (image generation: its partial images and the result), saved
beside the session file: `<session>.images/<item id>-<n>.<format>`. The names are made
here from a cleaned id, never from the server's text alone; the bytes are capped."""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path

IMAGE_MAX_BYTES = 32 * 1024 * 1024
FORMATS = frozenset({"png", "webp", "jpeg", "gif"})


def images_dir(session_path: Path) -> Path:
    return session_path.with_name(session_path.stem + ".images")


def save_image(directory: Path, item_id: str, name: str, data_b64: str, fmt: str | None = "png") -> Path | None:
    """Decode and write one image; None when it is not base64 or too large (nothing written)."""
    if len(data_b64) * 3 // 4 > IMAGE_MAX_BYTES:
        return None
    try:
        data = base64.b64decode(data_b64, validate=True)
    except (binascii.Error, ValueError):
        return None
    safe_id = re.sub(r"[^A-Za-z0-9_-]", "_", item_id)[:80] or "image"
    ext = fmt if fmt in FORMATS else "png"
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = directory / f"{safe_id}-{re.sub(r'[^A-Za-z0-9_-]', '_', name)[:20]}.{ext}"
    path.write_bytes(data)
    return path

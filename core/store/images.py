"""Images the server made (image generation: its partial images and the result), saved
beside the session file: `<session>.images/<slug>-<hash>-<n>.<format>`. The slug is the
item id cleaned to `[A-Za-z0-9_-]`, the hash the first 8 hex digits of the exact id's
SHA-256: two ids that clean alike (`ig_a/b`, `ig_a.b`) still get two files. A file is
only ever created, never written over or through a link (O_EXCL, O_NOFOLLOW): a name
taken already gets `-2`, `-3`, ... The bytes are capped."""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
from pathlib import Path

IMAGE_MAX_BYTES = 32 * 1024 * 1024
FORMATS = frozenset({"png", "webp", "jpeg", "gif"})
MAX_TRIES = 100  # names tried for one image before giving up (each taken means a file already there)
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def images_dir(session_path: Path) -> Path:
    return session_path.with_name(session_path.stem + ".images")


def file_stem(item_id: str, name: str) -> str:
    """The file name before its counter and extension: a slug plus a hash of the exact id."""
    slug = _UNSAFE.sub("_", item_id)[:80] or "image"
    digest = hashlib.sha256(item_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{slug}-{digest}-{_UNSAFE.sub('_', name)[:20]}"


def save_image(directory: Path, item_id: str, name: str, data_b64: str, fmt: str | None = "png") -> Path | None:
    """Decode and write one image; None when it is not base64 or too large (nothing written).
    OSError when it cannot be written (the folder is a link, the disk is full)."""
    if len(data_b64) * 3 // 4 > IMAGE_MAX_BYTES:
        return None
    try:
        data = base64.b64decode(data_b64, validate=True)
    except (binascii.Error, ValueError):
        return None
    ext = fmt if fmt in FORMATS else "png"
    stem = file_stem(item_id, name)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        for n in range(1, MAX_TRIES + 1):
            file_name = f"{stem}.{ext}" if n == 1 else f"{stem}-{n}.{ext}"
            try:
                fd = os.open(file_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                             dir_fd=folder)
            except FileExistsError:
                continue
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
            return directory / file_name
    finally:
        os.close(folder)
    raise FileExistsError(f"{MAX_TRIES} images named {stem} already in {directory}")

"""An image drawn with half blocks: each cell is two pixels (the upper one the
foreground of "▀", the lower one its background), so any terminal with true colour
shows it, inside Textual's own rendering (no escape sequences of ours, no query of the
terminal). Pillow decodes it; a file Pillow refuses is a one-line note instead."""

from __future__ import annotations

import base64
import binascii
import io

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text

MAX_PIXELS = 64 * 1024 * 1024  # decompression bombs: Pillow refuses more than this


def image_renderable(data_b64: str, width: int = 48) -> RenderableType:
    try:
        from PIL import Image  # only when an image is shown: Pillow costs ~30 ms to import

        Image.MAX_IMAGE_PIXELS = MAX_PIXELS
        raw = base64.b64decode(data_b64, validate=True)
        with Image.open(io.BytesIO(raw)) as opened:
            image = opened.convert("RGB")
    except (binascii.Error, ValueError, OSError, ImportError) as exc:  # not an image Pillow reads
        return Text(f"(image not shown: {type(exc).__name__})", style="dim")
    w, h = image.size
    cols = max(1, min(width, w))
    rows = max(2, round(h * cols / w))
    rows += rows % 2
    rgb = image.resize((cols, rows)).tobytes()  # "RGB": three bytes a pixel, row by row

    def colour(x: int, y: int) -> str:
        at = (y * cols + x) * 3
        return f"rgb({rgb[at]},{rgb[at + 1]},{rgb[at + 2]})"

    out = Text()
    for y in range(0, rows, 2):
        for x in range(cols):
            out.append("▀", Style(color=colour(x, y), bgcolor=colour(x, y + 1)))
        if y + 2 < rows:
            out.append("\n")
    return out

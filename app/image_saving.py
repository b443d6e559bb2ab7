"""Image generation's partial images, saved beside the session as they arrive (the
final image is saved by the session writer when the item is committed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rivulet.core.store.session import SessionWriter
    from rivulet.core.turn.bus import ItemProgressed


def save_partial(writer: SessionWriter | None, event: ItemProgressed) -> str | None:
    """The saved file's path, or None (no session file: nothing is kept)."""
    from rivulet.core.store.images import images_dir, save_image

    path = writer.path if writer is not None else None
    if path is None or event.image_b64 is None:
        return None
    try:
        saved = save_image(images_dir(path), event.item_id or "image", f"partial{event.image_index or 0}",
                           event.image_b64)
    except OSError:
        return None
    return str(saved) if saved is not None else None

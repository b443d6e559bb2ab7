"""Paint one small widget to the terminal now, ahead of Textual's next screen update.

Textual paints a changed widget on its next screen update, and that update first lays
out the whole screen if anything was mounted meanwhile: the commit of a turn's last
answer is such a layout, 0.1-2 s on a loaded machine, and the status line's "Done"
waited behind it (issue 22). A one-line widget that sits where it sat in the last frame
can be drawn from that frame's map without waiting: its own lines, written at its own
place, inside one synchronized update. The next screen update paints it again as usual.

Only where it is safe: a full-screen (not inline) app with a terminal, the widget on
the current screen, wholly visible in the last frame's map and on top at its corners
(a toast or a dialog over it is left to the normal update)."""

from __future__ import annotations

from rich.control import Control
from textual.geometry import Region
from textual.widget import Widget

from .compat import textual as compat


def paint_now(widget: Widget) -> bool:
    """Write `widget`'s current lines at its place in the last frame. False if it was
    not safe to (the normal screen update paints it, as it always does)."""
    try:
        app = widget.app
        screen = app.screen
    except Exception:  # not mounted, or no screen yet
        return False
    driver = compat.driver(app)
    if driver is None or app.is_headless or app.is_inline or not compat.is_running(app) \
            or widget.screen is not screen:
        return False
    compositor = compat.compositor(screen)
    geometry = compositor.visible_widgets.get(widget)
    if geometry is None:
        return False
    region, clip = geometry
    if not region or not clip.contains_region(region) or not screen.outer_size.region.contains_region(region):
        return False
    corners = ((region.x, region.y), (region.right - 1, region.bottom - 1))
    try:
        if any(compositor.get_widget_at(x, y)[0] is not widget for x, y in corners):
            return False  # something is drawn over it
    except Exception:  # Textual's NoWidget: the map has no widget there
        return False
    strips = widget.render_lines(Region(0, 0, region.width, region.height))
    console = app.console
    out = [Control.move_to(region.x, region.y + y).segment.text + strip.render(console)
           for y, strip in enumerate(strips[: region.height])]
    cursor = screen.outer_size.clamp_offset(app.cursor_position)
    out.append(Control.move_to(*cursor).segment.text)
    with compat.synchronized_update(app):
        driver.write("".join(out))
    driver.flush()
    return True

"""The footer after a resize (issue 25): narrowed from 120 to 60 columns, the keys overflow
and the palette key sits at the right edge. The cell right of it was left unpainted (the
compact footer's margin), so the terminal kept a letter of the old, wider footer there."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready
from .tmux import Terminal


def footer_redrawn_at(screen: str, width: int) -> bool:
    """The app has drawn its footer at this width: right after a resize tmux shows its own
    cropped copy of the old screen, whose footer has no palette key inside `width`."""
    lines = screen.splitlines()
    return bool(lines) and "▏^p palette" in lines[-1][:width]


def test_no_stray_character_in_the_footer_after_a_resize_to_60_columns(home, demo):
    term = Terminal(home, width=120, height=30)
    try:
        term.start([*RIVULET, "--base-url", demo.base_url], cwd=home / "work")
        wide = term.wait(chat_ready, what="the chat at 120 columns")
        # The old footer has text under what becomes the last column at 60.
        assert len(wide.splitlines()[-1].rstrip()) > 60
        term.resize(60, 30)
        screen = term.wait(lambda s: footer_redrawn_at(s, 60), what="the footer redrawn at 60 columns")
        footer = screen.splitlines()[-1].rstrip()
        assert footer.endswith("▏^p palette"), f"a stray character after the palette key: {footer!r}"
    finally:
        term.kill()

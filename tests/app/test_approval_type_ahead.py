"""Issue 35, item 5: keys typed ahead answered the approval dialog. Someone typing a
message when the question opened answered it with their next "a" ("yes for this
session"), and the half-second guard did not stop a burst that went on past it.

The dialog runs on its own clock here: each key is stamped with a chosen time, as
Textual stamps a real key when it arrives, so no test waits."""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.widgets import Button, Static

from rivulet.core.tools.approval import ApprovalRequest, Decision
from rivulet.widgets.approval_gate import READY, WAITING
from rivulet.widgets.dialogs import ApprovalScreen

OPENED = 100.0


class Clock:
    def __init__(self) -> None:
        self.now = OPENED

    def __call__(self) -> float:
        return self.now


class Host(App[None]):
    def __init__(self, screen: ApprovalScreen) -> None:
        super().__init__()
        self.first = screen
        self.answers: list[Decision | None] = []

    def on_mount(self) -> None:
        self.push_screen(self.first, self.answers.append)


def _app(monkeypatch) -> tuple[Host, Clock]:
    monkeypatch.setattr(ApprovalScreen, "QUIET", 0.6)  # the real wait (tests/conftest.py sets 0)
    clock = Clock()
    return Host(ApprovalScreen(ApprovalRequest("shell", "c1", "rm -rf build"), clock=clock)), clock


async def _key(pilot, clock: Clock, key: str, at: float) -> None:
    """`key` arriving at `at` (the dialog's clock reads `at` too)."""
    clock.now = at
    event = events.Key(key, key if len(key) == 1 else None)
    event.time = at
    pilot.app.post_message(event)
    await pilot.pause()


def _hint(app: Host) -> str:
    return str(app.screen.query_one("#approval-hint", Static).render())


async def test_a_burst_through_the_opening_does_not_answer_and_a_key_after_a_pause_does(monkeypatch):
    app, clock = _app(monkeypatch)
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ApprovalScreen) and _hint(app) == WAITING
        # A message typed from before the opening (keys queued, stamped earlier) on for 2 s,
        # with every answer key in it: "a" twice in a row, "y", Enter on the focused button.
        message = [*"make it a", "a", "y", "enter", *" and say yes", "a", "a", "n", "s", "enter"]
        for i, key in enumerate(message):
            await _key(pilot, clock, key, OPENED - 0.2 + i * 0.1)
        assert app.screen is screen and app.answers == []
        assert _hint(app) == WAITING
        last = OPENED - 0.2 + (len(message) - 1) * 0.1
        await _key(pilot, clock, "n", last + 0.5)  # a short pause is still the burst
        assert app.screen is screen
        clock.now = last + 0.5 + 0.61
        screen._show()  # (the hint's timer, run now)
        assert _hint(app) == READY
        await _key(pilot, clock, "n", last + 0.5 + 0.61)
    assert app.answers == [Decision.NO]


async def test_always_is_picked_then_confirmed(monkeypatch):
    app, clock = _app(monkeypatch)
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        await _key(pilot, clock, "a", OPENED + 1)
        assert app.screen is screen and app.answers == []
        always = screen.query_one("#always", Button)
        assert always.has_focus and _hint(app) == WAITING  # picked; the next key waits for a pause
        await _key(pilot, clock, "a", OPENED + 1.2)  # the second "a" in a burst: still only picked
        assert app.screen is screen and always.has_focus
        clock.now = OPENED + 1.9
        screen._show()  # (the hint's timer, run now)
        assert "Confirm always: press a again or Enter" in _hint(app)
        await _key(pilot, clock, "enter", OPENED + 2)  # Enter on the picked choice, after a pause
    assert app.answers == [Decision.ALWAYS]


async def test_another_key_drops_the_picked_always(monkeypatch):
    app, clock = _app(monkeypatch)
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        for key, at in (("a", 1.0), ("x", 1.1), ("a", 2.0)):  # "a", the rest of a word, a pause
            await _key(pilot, clock, key, OPENED + at)
        assert app.screen is screen and app.answers == []  # the last "a" picked it anew
        await _key(pilot, clock, "a", OPENED + 3.0)
    assert app.answers == [Decision.ALWAYS]


async def test_a_click_answers_only_once_typing_has_paused(monkeypatch):
    app, clock = _app(monkeypatch)
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        screen.query_one("#yes", Button).active_effect_duration = 0  # (Textual's 0.2 s between clicks)
        await _key(pilot, clock, "h", OPENED + 1.0)
        clock.now = OPENED + 1.1
        await pilot.click("#yes")
        assert app.screen is screen
        clock.now = OPENED + 2.0
        await pilot.click("#yes")
    assert app.answers == [Decision.YES]


async def test_a_remapped_answer_key_passes_the_same_gate(monkeypatch):
    """The [keymap] table moves an answer to another key: that key is gated the same way."""
    app, clock = _app(monkeypatch)
    app.set_keymap({"approval.yes": "j"})
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        await _key(pilot, clock, "j", OPENED + 0.1)  # in the burst
        await _key(pilot, clock, "y", OPENED + 1.0)  # no longer an answer: only restarts the wait
        assert app.screen is screen and app.answers == []
        await _key(pilot, clock, "j", OPENED + 2.0)
    assert app.answers == [Decision.YES]

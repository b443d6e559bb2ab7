"""An unmarked paste's newline is an Enter among machine-speed keys. A loaded machine may
hand the rest of the paste over tens of milliseconds after that Enter (the terminal's
reads are a few KiB); it must still be a newline. An Enter after a few typed keys sends
as soon as its own burst is over."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult

from rivulet.widgets.composer import BURST, PASTE_RUN, PASTE_SETTLE, Composer


class Host(App):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []

    def compose(self) -> ComposeResult:
        yield Composer(id="composer")

    def on_composer_submitted(self, message: Composer.Submitted) -> None:
        self.sent.append(message.text)


def _key(key: str, at: float) -> events.Key:
    event = events.Key(key, "\r" if key == "enter" else key)
    event.time = at  # the parser's stamp: when the terminal read was parsed
    return event


async def _feed(app: Host, pilot, keys: list[tuple[str, float]]) -> None:
    composer = app.query_one(Composer)
    for key, at in keys:
        composer.post_message(_key(key, at))
    await pilot.pause()


async def test_an_enter_deep_in_a_paste_waits_for_a_late_read():
    app = Host()
    async with app.run_test() as pilot:
        t0 = 1000.0
        first = [(c, t0 + n * 1e-5) for n, c in enumerate("x" * (PASTE_RUN + 4))]
        enter_at = first[-1][1] + 1e-5
        late = enter_at + (BURST + PASTE_SETTLE) / 2  # a late read: past BURST, within the paste's wait
        await _feed(app, pilot, [*first, ("enter", enter_at), ("y", late), ("z", late + 1e-5)])
        composer = app.query_one(Composer)
        assert composer.text == "x" * (PASTE_RUN + 4) + "\nyz"
        assert app.sent == []


async def test_an_enter_after_a_few_keys_sends_when_its_burst_is_over():
    app = Host()
    async with app.run_test() as pilot:
        t0 = 2000.0
        typed = [(c, t0 + n * 1e-5) for n, c in enumerate("hello")]
        enter_at = typed[-1][1] + 1e-5
        await _feed(app, pilot, [*typed, ("enter", enter_at), ("w", enter_at + BURST * 2)])
        assert app.sent == ["hello"]
        assert app.query_one(Composer).text == "w"

"""Any field of any event or item may arrive with the wrong type. Real captures are
mutated (a field's value replaced by one of another type, deep nesting included) and
pushed through the whole core path: transport, state machine, history, session file.
Nothing but rivulet's own error types may escape; what was committed stays loadable."""

from __future__ import annotations

import copy
import json
from contextlib import aclosing
from pathlib import Path
from typing import Any

from helpers.mock_api import serving
from helpers.recorded import RECORDINGS
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from rivulet.core.errors import RivuletError
from rivulet.core.protocol.recordings import sse_body
from rivulet.core.store.session import SessionWriter, load_session
from rivulet.core.turn.bus import EventBus
from rivulet.core.turn.bus_sink import BusSink
from rivulet.core.turn.history import History
from rivulet.core.turn.state_machine import consume_response

# Small streams keep each example fast; together they cover every event family.
SMALL = [r for r in RECORDINGS if len(r.payloads) <= 60]

DEEP: Any = "x"
for _ in range(200):
    DEEP = {"a": [DEEP]}

WRONG = st.sampled_from(["text", "", 0, -1, 2**70, 1.5, float("inf"), None, True, [], [1, "a"], {}, {"k": "v"},
                         DEEP, "\x1b]52;c;aGk=\x07[/b]"])


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, child in value.items():
            out += _paths(child, prefix + (key,))
    elif isinstance(value, list):
        for n, child in enumerate(value[:4]):
            out += _paths(child, prefix + (n,))
    return out


def _set(obj: Any, path: tuple, value: Any) -> None:
    for step in path[:-1]:
        obj = obj[step]
    obj[path[-1]] = value


@st.composite
def mutated_stream(draw) -> tuple[str, list[str]]:
    rec = draw(st.sampled_from(SMALL))
    payloads = [json.loads(p) for p in rec.payloads]
    for _ in range(draw(st.integers(1, 3))):
        n = draw(st.integers(0, len(payloads) - 1))
        paths = _paths(payloads[n])
        if not paths:
            continue
        _set(payloads[n], draw(st.sampled_from(paths)), copy.deepcopy(draw(WRONG)))
    return rec.name, [json.dumps(p) for p in payloads]


@hsettings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(mutated_stream())
async def test_no_foreign_exception_escapes_the_core_path(tmp_path: Path, case):
    name, payloads = case
    writer, _ = SessionWriter.create(model="m", base_url="http://x.invalid/v1", directory=tmp_path)
    history = History()
    history.observers.append(writer.observe)
    sink = BusSink(EventBus(), history, "req-1")
    try:
        async with aclosing(serving(sse_body(payloads)).stream({})) as events:
            await consume_response(events, sink)
    except RivuletError as exc:
        assert "\n" not in exc.message, (name, exc.message)
    # Whatever was committed is in the file, which loads.
    history.to_input()
    writer.close()
    loaded = load_session(writer.path)
    assert len(loaded.history.entries) == len(history.entries)


def _representatives() -> list[dict]:
    """One committed item of each type the captures hold, plus the outputs rivulet
    itself commits for calls."""
    seen: dict[str, dict] = {}
    for rec in RECORDINGS:
        for p in rec.payloads:
            event = json.loads(p)
            if event.get("type") == "response.output_item.done":
                seen.setdefault(event["item"].get("type"), event["item"])
    seen["function_call_output"] = {"type": "function_call_output", "call_id": "call_1", "output": "ok"}
    seen["custom_tool_call_output"] = {"type": "custom_tool_call_output", "call_id": "call_2", "output": "ok"}
    seen["user"] = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    return list(seen.values())


WRONG_VALUES = [0, 7, 1.5, True, None, [], [1, "a"], {"k": "v"}, "text", DEEP, "\x1b]52;c;aGk=\x07[/b][@click=app.quit]"]


def _mutated_items(every_value: bool = True) -> list[dict]:
    """Every field (to depth 3) of every representative item, replaced in turn by a
    value of each wrong type (or, with every_value=False, by one of them in turn)."""
    out = []
    turn = 0
    for item in _representatives():
        for path in _paths(item):
            if path == ("type",) or len(path) > 3:
                continue
            turn += 1
            values = WRONG_VALUES if every_value else [WRONG_VALUES[turn % len(WRONG_VALUES)]]
            for value in values:
                mutated = json.loads(json.dumps(item))
                _set(mutated, path, copy.deepcopy(value))
                out.append(mutated)
    return out


def test_display_helpers_take_any_field_type():
    from rivulet.core.kinds.reasoning import reasoning_raw, reasoning_summary
    from rivulet.widgets.inspector import describe, raw_json
    from rivulet.widgets.kind_views import entry_for

    items = _mutated_items()
    assert len(items) > 500
    for n, item in enumerate(items):
        describe(item)
        raw_json(item)
        reasoning_summary(item)
        reasoning_raw(item)
        entry_for(item, f"k{n}")


async def test_ui_handlers_survive_items_with_wrong_field_types():
    """The transcript's handlers get the committed items as the server sent them: a
    wrong-typed field shows as missing, never as a crash."""
    from helpers.tui import GatedServer, make_app

    from rivulet.core.turn import bus as b
    from rivulet.core.turn.history import HistoryEntry
    from rivulet.widgets.inspector import InspectorScreen

    items = _mutated_items(every_value=False)  # the helpers test above tries every value
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        for start in range(0, len(items), 150):
            batch = items[start:start + 150]
            for n, item in enumerate(batch, start):
                key = f"k{n}"
                await app._handle(b.ItemStarted(item, key))
                await app._handle(b.ItemDelta(key, "output_text", "partial"))
                await app._handle(b.ItemCompleted(item, key))
            await pilot.pause()
            await app._transcript.remove_children()
        app.push_screen(InspectorScreen([HistoryEntry(item, seq=n + 1) for n, item in enumerate(items)]))
        await pilot.pause()
        assert app.is_running

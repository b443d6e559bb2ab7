"""Issue 22's soak: what a request costs must not grow with the chat beyond its body.

The body holds the whole history (inherent), but building it asked every entry which
model made it, every response's tool run read all of history for answered calls, and
the body was encoded by `json.dumps`. These count the work, not the time."""

from __future__ import annotations

import json

import httpx
import pytest
from helpers.mock_api import serving, settings
from helpers.streams import call, message, reasoning, simple_text_response

from rivulet.core import items as it
from rivulet.core.turn import conversation as conversation_module
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.history import History


def _long_history(turns: int) -> History:
    history = History()
    history.set_model("model-a", record=False)
    for n in range(turns):
        history.append(it.user_message(f"question {n}"), key=f"user-{n}")
        history.append(reasoning(f"rs_{n}", "thinking", encrypted=f"enc-{n}"), f"req-{n}", f"rs_{n}")
        history.append(call(f"fc_{n}", f"call_{n}", "apply_patch", "{}"), f"req-{n}", f"fc_{n}")
        history.append({"type": "function_call_output", "call_id": f"call_{n}", "output": "Done"},
                       key=f"call_{n}:output")
        history.append(message(f"msg_{n}", f"answer {n}"), f"req-{n}", f"msg_{n}")
    return history


def _counting_model_at(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    asked = [0]
    real = History.model_at

    def model_at(self: History, index: int) -> str | None:
        asked[0] += 1
        return real(self, index)

    monkeypatch.setattr(History, "model_at", model_at)
    return asked


def test_a_request_asks_no_entry_its_model_while_one_model_made_them_all(monkeypatch: pytest.MonkeyPatch) -> None:
    history = _long_history(200)
    asked = _counting_model_at(monkeypatch)
    sent = history.to_input(model="model-a")
    assert asked[0] == 0  # before: once per entry, 1,000 here
    assert len(sent) == 1000 and sum(i["type"] == "reasoning" for i in sent) == 200
    # After a switch the other model's encrypted reasoning is still left out.
    history.set_model("model-b")
    assert not [i for i in history.to_input(model="model-b") if i["type"] == "reasoning"]
    assert asked[0] > 0


def _counting_outputs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    looked = [0]
    real = it.is_output

    def is_output(item: it.Item) -> bool:
        looked[0] += 1
        return real(item)

    monkeypatch.setattr(conversation_module.it, "is_output", is_output)
    return looked


def test_a_responses_calls_read_history_back_only_as_far_as_themselves(monkeypatch: pytest.MonkeyPatch) -> None:
    conv = Conversation(settings(), serving(simple_text_response("unused")))
    conv.history = _long_history(200)
    new = call("fc_new", "call_new", "apply_patch", "{}")
    conv.history.append(new, "req-new", "fc_new")
    looked = _counting_outputs(monkeypatch)
    assert conv._unanswered([new]) == [new]
    assert looked[0] <= 2  # before: every entry of history, 1,001 here
    # An output already committed after it (a retry replayed the call) still counts.
    conv.history.append({"type": "function_call_output", "call_id": "call_new", "output": "ran"},
                        key="call_new:output")
    assert conv._unanswered([new]) == []
    # A call not in history at all: history is read whole, as before.
    old_answered = conv.history.entries[2].item
    assert conv._unanswered([old_answered]) == []


async def test_the_request_body_is_the_built_request_as_utf8_json() -> None:
    """msgspec encodes the body now (8x json.dumps on a 240-turn chat's request: a
    benchmark figure); what is sent must be what was built, byte for byte as JSON."""
    requests: list[httpx.Request] = []
    conv = Conversation(settings(), serving(simple_text_response("fine"), simple_text_response("again"),
                                            requests=requests))
    await conv.run_turn("café ☕ naïve")
    await conv.run_turn("second")
    request = requests[-1]
    assert request.headers["content-type"] == "application/json"
    assert "café ☕ naïve".encode() in request.content  # UTF-8 as is, not \uXXXX escapes
    sent = json.loads(request.content)
    built = conv.build_request()  # now with the second answer too
    assert sent["input"] == built["input"][:3] and len(built["input"]) == 4
    assert {k: v for k, v in sent.items() if k != "input"} == {k: v for k, v in built.items() if k != "input"}

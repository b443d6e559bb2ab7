"""/cost (and /status, which shows its lines) for a model without a price: tokens, but no
dollar figure invented for this turn or this run (issue 38.6)."""

from __future__ import annotations

from types import SimpleNamespace

from helpers.mock_api import serving, settings
from helpers.streams import simple_text_response

from rivulet.app.commands.responses_api import cost_lines
from rivulet.core.turn.conversation import Conversation


async def test_cost_lines_of_an_unpriced_model_show_no_dollars():
    usage = {"input_tokens": 1_000, "output_tokens": 50, "total_tokens": 1_050}
    reply = simple_text_response("hello", usage=usage)
    conv = Conversation(settings(model="local-qwen"), serving(reply, reply))
    await conv.run_turn("one")
    await conv.run_turn("two")
    lines = cost_lines(SimpleNamespace(conversation=conv))
    assert lines[0].startswith("last turn      1,000 in · 50 out") and lines[1].startswith("this run       2,000 in")
    assert not any("$" in line for line in lines), lines
    assert "unknown for this model" in lines[2]

"""llama.cpp's parser failure ("does not match the expected peg-native format", its bare
error frame, as recorded from the real server) is said in plain words and the request is
sent once more at once; a second failure ends the turn with the plain line (issue 42.5)."""

from __future__ import annotations

import pytest
from helpers.mock_api import serving, settings
from helpers.paths import REAL
from helpers.streams import simple_text_response

from rivulet.core.protocol.unparsed_call import PLAIN, UnparsedToolCall
from rivulet.core.turn.bus import EventBus, Retrying
from rivulet.core.turn.conversation import Conversation

ONLY = (REAL / "llamacpp" / "llamacpp_error_frame_only.sse").read_bytes()
FENCED = (REAL / "llamacpp" / "llamacpp_fenced_call_then_error_frame.sse").read_bytes()


@pytest.mark.parametrize("capture", [ONLY, FENCED], ids=["error-frame-only", "fenced-call-then-error"])
async def test_one_parser_failure_is_asked_again_at_once_and_the_turn_goes_on(capture):
    requests: list = []
    bus = EventBus()
    retries: list[Retrying] = []
    bus.subscribe(retries.append, Retrying)
    conv = Conversation(settings(model="m", max_retries=5), serving(capture, simple_text_response("done"),
                                                                    requests=requests), bus)
    assert (await conv.run_turn("list the files")).last_message == "done"
    await bus.drain()
    assert len(requests) == 2
    assert len(retries) == 1 and retries[0].delay == 0.0 and retries[0].error.message.startswith(PLAIN)


async def test_a_second_failure_ends_the_turn_with_the_plain_line():
    requests: list = []
    conv = Conversation(settings(model="m", max_retries=5), serving(ONLY, requests=requests))
    with pytest.raises(UnparsedToolCall) as raised:
        await conv.run_turn("list the files")
    assert len(requests) == 2  # once more, not max_retries more
    message = raised.value.message
    assert message.startswith(PLAIN + ", twice") and "peg" not in message and "\n" not in message

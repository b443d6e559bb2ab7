"""When the WebSocket gives way to SSE, as built by make_transport from the settings: after
three retryable failures in a row, or as many as `max_retries` allows when that is fewer
(so the turn's last retry goes over SSE and the turn still answers). The servers page of
the docs says the same."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers.mock_api import serving, settings
from helpers.streams import body, completed, created, message, message_events
from test_ws_transport import ScriptedServer, events_of

from rivulet.core.protocol.transports import WS_FAILURES, make_transport
from rivulet.core.turn.conversation import Conversation, RetryPolicy

SERVERS_PAGE = Path(__file__).resolve().parents[3] / "docs" / "servers.md"


@pytest.mark.parametrize(("max_retries", "failures"), [(4, 3), (3, 3), (2, 2), (1, 1)])
async def test_the_session_falls_back_while_a_retry_is_left(max_retries, failures):
    notices: list[str] = []
    async with ScriptedServer(lambda n, r: [events_of([created(f"r{n}")])[0], ("close",)]) as server:
        s = settings(base_url=server.base_url, transport="ws", max_retries=max_retries)
        transport = make_transport(s, notices.append)
        transport.fallback = serving(body([created("r9"), *message_events("m9", "over SSE"),
                                           completed([message("m9", "over SSE")], "r9")]))
        conv = Conversation(s, transport, retry=RetryPolicy(max_retries=max_retries, base_delay=0.0))
        result = await conv.run_turn("hello")
        await transport.aclose()
    assert result.last_message == "over SSE" and transport.name == "sse"
    assert len(server.requests) == failures and len(notices) == 1 and f"{failures} failures in a row" in notices[0]


def test_the_docs_say_what_the_code_does():
    numbers = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
    text = " ".join(SERVERS_PAGE.read_text(encoding="utf-8").split())
    said = re.search(r"HTTP 426 at the handshake, or (\w+) retryable failures in a row \(([^)]*)\)", text)
    assert said is not None, "docs/servers.md's Transports section says when the WebSocket gives way"
    assert said.group(1) == numbers[WS_FAILURES]
    assert "`max_retries`" in said.group(2)  # fewer when the turn has fewer retries: the count follows it

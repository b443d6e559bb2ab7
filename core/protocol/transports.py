"""Choosing the transport: `sse`, `ws` (WebSocket, falling back to SSE), or `auto`.

`auto` uses the WebSocket where the provider is known to offer it (OpenAI's API) and
SSE elsewhere: an unknown server that speaks SSE may not answer an upgrade at all,
and SSE is what every Responses server has.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rivulet.core.config import Settings
from rivulet.core.protocol.sse_transport import SseTransport

if TYPE_CHECKING:  # imported when a WebSocket is wanted: the websockets library costs ~70 ms at start
    from rivulet.core.protocol.ws_transport import FallbackTransport

WEBSOCKET_HOSTS = ("api.openai.com",)
# Retryable WebSocket failures in a row before the session goes over SSE; never more than
# the turn's retries (`max_retries`), so the switch comes while a retry is left to use it.
WS_FAILURES = 3


def wants_websocket(settings: Settings) -> bool:
    if settings.background:  # resuming (GET ?starting_after), fetching and cancelling are HTTP
        return False
    if settings.transport == "ws":
        return True
    if settings.transport == "sse":
        return False
    return settings.endpoint.host in WEBSOCKET_HOSTS


def make_transport(settings: Settings,
                   on_notice: Callable[[str], None] | None = None) -> SseTransport | FallbackTransport:
    sse = SseTransport(settings)
    if not wants_websocket(settings):
        return sse
    from rivulet.core.protocol.ws_transport import FallbackTransport, WebSocketTransport

    ws = WebSocketTransport(settings, incremental=settings.ws_incremental)
    return FallbackTransport(ws, sse, max_failures=max(1, min(WS_FAILURES, settings.max_retries)),
                             on_fallback=on_notice)

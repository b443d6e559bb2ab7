"""llama.cpp's parser failures, in plain words (issue 42.5).

When a small model's output does not fit its chat template's tool-call grammar,
llama-server ends the stream with its bare error frame: `{"error": {"code": 500,
"message": "The model produced output that does not match the expected peg-native
format", ...}}` (fixtures/real/llamacpp/llamacpp_error_frame_only.sse). That is jargon,
and not the server failing: a new sample usually passes. So it is said as what it is,
the model's output did not parse as a tool call, and the request is sent once more
(core/turn/conversation.py); a second failure ends the turn with the same plain line.
"""

from __future__ import annotations

import re

from rivulet.core.errors import RivuletError

# llama.cpp's words for it (its PEG chat parser): "does not match the expected <name> format",
# and "Failed to parse tool call". ("Failed to parse input" stays the request's fault: not retried.)
_LLAMA_WORDS = re.compile(r"does not match the expected [\w.-]+ format|failed to parse tool call", re.IGNORECASE)
PLAIN = "the model's output did not parse as a tool call"


class UnparsedToolCall(RivuletError):
    """Retried once by the turn, at once, whatever `max_retries` allows beyond that."""

    kind = "tool_call_unparsed"
    retryable = True


def unparsed_tool_call(message: str) -> UnparsedToolCall | None:
    """The plain error for a server message that says the model's tool call did not parse."""
    if not _LLAMA_WORDS.search(message):
        return None
    return UnparsedToolCall(f"{PLAIN} (the server said: {message[:160]})")


def after_retry() -> UnparsedToolCall:
    """The line that ends the turn when the one retry failed the same way."""
    return UnparsedToolCall(f"{PLAIN}, twice (asked again once); send a message to continue, or try a larger model")

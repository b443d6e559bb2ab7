"""Compacting history so the conversation fits its context window again.

Two ways, chosen by the `compaction` setting:
- server: OpenAI's `POST {base_url}/responses/compact` takes the whole input and
  answers with its replacement (the user messages, then one `compaction` item whose
  `encrypted_content` carries the rest); history becomes exactly that.
- summary (every other server): the model is asked, with a fixed prompt and through
  the normal transport and state machine, to summarise the older history; that part is
  replaced by one user message holding the summary, and the last `compact_keep_turns`
  turns (2) are kept as they were after it (a kept part starts at a user message, so no
  call loses its output). With no more turns than that, all but the newest one are
  summarised: a /compact always keeps the turn the user is on.
`auto` uses the server's endpoint on api.openai.com (falling back to a summary if it
is missing there) and a summary elsewhere.

History records the compaction (`History.compact`: the session file gets a `compact`
record, resume replays it, the replaced entries stay readable for the inspector). A
failure changes nothing and raises one RivuletError line.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

import httpx

from rivulet.core import items as it
from rivulet.core.config import Settings
from rivulet.core.errors import RivuletError
from rivulet.core.kinds import commit_problem
from rivulet.core.protocol.json_request import JsonRequestError, request_json
from rivulet.core.protocol.models import context_window
from rivulet.core.turn.bus import Notice
from rivulet.core.turn.history import Compaction
from rivulet.core.turn.state_machine import Limits, SamplingSink, consume_response
from rivulet.core.turn.summary_marks import SUMMARY_CLOSE, SUMMARY_OPEN
from rivulet.core.turn.usage import tokens_in_context

if TYPE_CHECKING:
    from rivulet.core.turn.conversation import Conversation

SERVER_HOSTS = ("api.openai.com",)

SUMMARY_PROMPT = (
    "Compact this conversation so it can go on in a smaller context. Write a summary that an assistant "
    "with no other memory of it can continue from: the user's goals and constraints; decisions made and "
    "why; the state of the work (files created or changed, commands run and results that still matter); "
    "open questions and the next steps. Keep exact names, paths, identifiers and numbers. Do not invent "
    "anything, and do not call tools. Answer with the summary only."
)


class CompactionError(RivuletError):
    kind = "compaction_error"


def uses_server(settings: Settings) -> bool:
    if settings.compaction != "auto":
        return settings.compaction == "server"
    return settings.endpoint.host in SERVER_HOSTS


def needs_compaction(conv: Conversation, window: int | None = None) -> bool:
    """Whether the context is at least `auto_compact_percent` full (0 turns it off),
    judged by the last response's usage against the model's window (`window`: what
    the server reported for the model; else as `conv.windows` chooses it)."""
    percent = conv.settings.auto_compact_percent
    used = tokens_in_context(conv.last_usage)
    if not percent or used is None:  # a first turn knows no usage: no window looked up (fnmatch's ~40
        return False                 # patterns compiled) before its request is sent
    size = context_window(conv.settings, reported=window) if window else conv.windows.choose(conv.settings).tokens
    if not size:
        return False
    return used * 100 >= percent * size


def auto_compact(window: int | None = None,
                 keep_turns: int | None = None) -> Callable[[Conversation], Awaitable[None]]:
    """A `Conversation.before_turn` hook: compacts when `needs_compaction` says so.
    A failure is told on the bus and the turn goes on uncompacted."""

    async def hook(conv: Conversation) -> None:
        if not needs_compaction(conv, window):
            return
        try:
            done = await compact(conv, keep_turns=keep_turns)
        except RivuletError as exc:
            conv.bus.publish(Notice(f"automatic compaction failed ({exc.message}); the request is sent as it is"))
            return
        conv.bus.publish(Notice(f"the context was {conv.settings.auto_compact_percent}% full or more: "
                                f"{len(done.replaced)} items compacted into {len(done.added)} ({done.mode})"))

    return hook


async def compact(conv: Conversation, *, keep_turns: int | None = None,
                  client: httpx.AsyncClient | None = None) -> Compaction:
    """Compact `conv`'s history now (the `/compact` command). Returns what was done.
    `keep_turns`: the turns a summary keeps as they were (default: `compact_keep_turns`)."""
    if not conv.history.entries:
        raise CompactionError("nothing to compact: the conversation is empty")
    if uses_server(conv.settings):
        try:
            return await _server(conv, client)
        except CompactionError as exc:
            if conv.settings.compaction == "server" or not getattr(exc, "missing", False):
                raise
    return await _summary(conv, conv.settings.compact_keep_turns if keep_turns is None else keep_turns)


# ---- server -----------------------------------------------------------------------------


async def _server(conv: Conversation, client: httpx.AsyncClient | None) -> Compaction:
    s = conv.settings
    body: dict[str, Any] = {"model": s.model, "input": conv.history.to_input(store=s.store, model=s.model)}
    instructions = conv.project.combined(s.instructions)
    if instructions:
        body["instructions"] = instructions
    where = s.endpoint.display("responses/compact")
    try:
        data = await request_json(s, "POST", "responses/compact", what="a compaction", body=body, client=client,
                                  timeout=s.idle_timeout)
    except JsonRequestError as exc:
        error = CompactionError(exc.message)
        error.missing = exc.status in (404, 405, 501)  # type: ignore[attr-defined]
        raise error from None
    output = data.get("output") if isinstance(data, dict) else None
    if not isinstance(output, list) or not output or not all(isinstance(i, dict) for i in output):
        raise CompactionError(f"{where} answered without a list of output items; nothing was compacted")
    for item in output:
        if (why := commit_problem(item)) is not None:
            raise CompactionError(f"{where} sent an unusable item ({why}); nothing was compacted")
    done = conv.history.compact(len(conv.history.entries), output, mode="server")
    conv.last_usage = None  # unknown until the next response says
    return done


# ---- summary ----------------------------------------------------------------------------


def summary_cut(conv: Conversation, keep_turns: int) -> int:
    """How many entries the summary replaces: everything before the last `keep_turns`
    user turns. With no more turns than that, everything before the newest turn (a
    summary of one turn replaces all of it; so does `keep_turns` 0)."""
    starts = [n for n, e in enumerate(conv.history.entries) if e.key and e.key.startswith("user-")]
    keep = min(keep_turns, len(starts) - 1)
    if keep > 0:
        return starts[-keep]
    return len(conv.history.entries)


async def _summary(conv: Conversation, keep_turns: int) -> Compaction:
    s = conv.settings
    cut = summary_cut(conv, keep_turns)
    body = conv.build_request()
    for key in ("tools", "tool_choice", "parallel_tool_calls"):
        body.pop(key, None)  # a summary, not more work
    body.get("text", {}).pop("format", None)  # prose, not the answer's schema (exec --output-schema)
    body["input"] = [*conv.history.to_input(store=s.store, model=s.model, upto=cut), it.user_message(SUMMARY_PROMPT)]
    limits = Limits(max_items=s.max_items_per_response, max_item_chars=s.max_item_chars)
    try:
        async with aclosing(conv.transport.stream(body)) as events:
            result = await consume_response(events, SamplingSink(), strict=s.strict_protocol, limits=limits)
    except RivuletError as exc:
        raise CompactionError(f"the summary request failed: {exc.message}; nothing was compacted") from None
    summary = (result.last_message or "").strip()
    if result.incomplete or not summary:
        why = f"it was cut short ({result.incomplete})" if result.incomplete else "the model wrote no summary"
        raise CompactionError(f"cannot compact: {why}; nothing was compacted")
    message = it.user_message(SUMMARY_OPEN + summary + SUMMARY_CLOSE)
    done = conv.history.compact(cut, [message], mode="summary", summary=summary)
    conv.last_usage = None
    return done


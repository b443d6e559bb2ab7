"""`rivulet doctor`: what a Responses server supports, and the settings that fit it.

A few short probe requests, each through the real transports and state machine (so a
deviation the chat would tolerate is seen here too): plain text, a forced function
call, a custom (freeform) tool, reasoning, the WebSocket handshake and
`previous_response_id` (two requests with `store: true`: the server keeps them, so only
a doctor run the user started, told first, sends them). It prints what worked, every
protocol deviation seen, and the settings it recommends. It exits non-zero only when the
server cannot chat at all: a valid answer without text (reasoning only, a tool call) is
a chat, said as what it was, and the probes go on. A WebSocket route the server does not
have is "not offered", not a failure (SSE is the answer then).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rivulet.core import items as it
from rivulet.core.config import Settings, effective_patch_tool
from rivulet.core.errors import RivuletError
from rivulet.core.protocol.events import Delta
from rivulet.core.sanitize import sanitize
from rivulet.core.turn.no_answer import ended_in_reasoning
from rivulet.core.turn.state_machine import Deviation, SamplingResult, SamplingSink, Transient, consume_response

if TYPE_CHECKING:
    from rivulet.core.turn.conversation import Transport

STORED_PROBE = "previous_response_id (store: true)"
PROBE_TOKENS = 200  # enough for a short answer or one tool call, so each probe stays quick
# Handshake answers that mean "no WebSocket here" rather than "broken": no route, wrong
# method, upgrade refused (426), not implemented.
NO_WEBSOCKET = (404, 405, 426, 501)

_TIME_TOOL = {"type": "function", "name": "current_time", "description": "The current local time.",
              "parameters": {"type": "object", "properties": {}, "additionalProperties": False}}
_ECHO_TOOL = {"type": "custom", "name": "echo", "description": "Echoes its freeform text input back."}


@dataclass
class DoctorProbe:
    name: str
    ok: bool | None = None  # None: not applicable / not tried
    detail: str = ""
    seconds: float = 0.0
    warn: bool = False  # it worked, but not as a chat client needs (an answer without text)
    http_status: int | None = None  # the server's HTTP status when it refused the probe
    request: dict[str, Any] | None = None  # the body it sent (for doctor --report's failing request)


@dataclass
class Report:
    server: str
    model: str
    probes: list[DoctorProbe] = field(default_factory=list)
    deviations: dict[str, Deviation] = field(default_factory=dict)
    recommended: dict[str, Any] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)  # recommended setting -> the probe behind it
    notes: list[str] = field(default_factory=list)

    @property
    def can_chat(self) -> bool:
        return bool(self.probes) and self.probes[0].ok is True

    def to_json(self) -> dict[str, Any]:
        return {"server": self.server, "model": self.model, "can_chat": self.can_chat,
                "probes": [p.__dict__ for p in self.probes],
                "deviations": [d.to_json() for d in self.deviations.values()],
                "recommended": self.recommended, "reasons": self.reasons, "notes": self.notes}


class _Watch(SamplingSink):
    """Collects what a probe needs to judge: deviations and the kinds of delta seen."""

    def __init__(self) -> None:
        self.deviations: list[Deviation] = []
        self.delta_kinds: set[str] = set()

    async def transient(self, key: str, event: Transient) -> None:
        if type(event) is Delta:
            self.delta_kinds.add(event.kind.value)

    async def deviation(self, note: Deviation) -> None:
        self.deviations.append(note)


class Doctor:
    def __init__(self, settings: Settings, timeout: float, stored: bool = True, sse: Transport | None = None) -> None:
        self.settings = settings
        self.timeout = timeout
        self.stored = stored  # try previous_response_id, whose two requests the server keeps
        self.sse = sse  # the SSE transport (`rivulet doctor`: the assembly's); None: one made and closed here
        self.report = Report(settings.endpoint.safe, settings.model)

    def _body(self, prompt: str, **extra: Any) -> dict[str, Any]:
        return {"model": self.settings.model, "input": [it.user_message(prompt)], "stream": True,
                "store": False, "max_output_tokens": PROBE_TOKENS, **extra}

    async def _run(self, transport: Any, body: dict[str, Any]) -> tuple[SamplingResult, _Watch]:
        watch = _Watch()
        async with asyncio.timeout(self.timeout):
            async with aclosing(transport.stream(body)) as events:
                result = await consume_response(events, watch)
        for note in watch.deviations:
            self.report.deviations.setdefault(note.rule, note)
        return result, watch

    async def probe(self, name: str, attempt: Callable[[], Awaitable[tuple[Any, ...]]]) -> DoctorProbe:
        """Run one probe, timed; a timeout or a server error is its result, not a crash.
        A judge may add a third value: True when it worked with a reservation."""
        probe = DoctorProbe(name)
        started = time.monotonic()
        self._last_body: dict[str, Any] | None = None
        try:
            verdict = await attempt()
            probe.ok, probe.detail = verdict[0], verdict[1]
            probe.warn = bool(verdict[2:3] and verdict[2])
        except TimeoutError:
            probe.ok, probe.detail = False, f"no answer within {self.timeout:g}s"
        except RivuletError as exc:
            probe.ok, probe.detail = False, _failure(exc)
            probe.http_status = getattr(exc, "status", None)
        probe.seconds = round(time.monotonic() - started, 2)
        probe.request = self._last_body
        self.report.probes.append(probe)
        return probe

    def _ask(self, transport: Any, body: dict[str, Any], judge: Any) -> Callable[[], Awaitable[tuple[Any, ...]]]:
        async def attempt() -> tuple[Any, ...]:
            self._last_body = body
            result, watch = await self._run(transport, body)
            verdict: tuple[Any, ...] = judge(result, watch)
            return verdict

        return attempt

    async def run(self) -> Report:
        from rivulet.core.protocol.sse_transport import SseTransport

        sse = self.sse if self.sse is not None else SseTransport(self.settings)
        try:
            text = await self.probe("plain text", self._ask(sse, self._body("Say hello in one short sentence."),
                                                            _judge_text))
            if not text.ok:
                return self.report  # nothing else can work
            if text.warn:
                self.report.notes.append(f"the plain text probe got no text ({text.detail.split(':')[0]}): "
                                         "turns with this server may end without an answer")
            calls = await self.probe("function call (tool_choice required)", self._ask(sse, self._body(
                "Call the current_time tool now.", tools=[_TIME_TOOL], tool_choice="required"), _judge_call))
            if calls.ok is False and "invalid_request" in calls.detail:
                calls = await self.probe("function call (tool_choice auto)", self._ask(sse, self._body(
                    "Call the current_time tool now.", tools=[_TIME_TOOL], tool_choice="auto"), _judge_call))
            custom = await self.probe("custom (freeform) tool", self._ask(sse, self._body(
                "Call the echo tool with the input: hello", tools=[_ECHO_TOOL], tool_choice="auto"), _judge_custom))
            reasoning = await self.probe("reasoning", self._ask(sse, self._body(
                "Think briefly, then tell me: what is 17 * 23?", reasoning={"effort": "low", "summary": "auto"}),
                _judge_reasoning))
            if self.stored:
                chained = await self.probe(STORED_PROBE, lambda: self._chained(sse))
            else:
                chained = DoctorProbe(STORED_PROBE, None, "not tried: its two requests set store: true "
                                      "(the server keeps them)")
                self.report.probes.append(chained)
            ws = await self._websocket()
        finally:
            if sse is not self.sse:
                await sse.aclose()
        self._recommend(calls, custom, reasoning, chained, ws)
        return self.report

    async def _chained(self, sse: Any) -> tuple[bool, str]:
        first, _ = await self._run(sse, {**self._body("Remember the word: kestrel. Reply OK."), "store": True})
        if not first.response_id:
            return False, "the first response has no id"
        second, _ = await self._run(sse, {**self._body("Which word did I ask you to remember?"),
                                          "store": True, "previous_response_id": first.response_id})
        remembered = "kestrel" in (second.last_message or "").lower()
        return True, "accepted" + ("; the answer used the earlier turn" if remembered else
                                   "; the answer did not show the earlier turn (ignored?)")

    async def _websocket(self) -> DoctorProbe:
        from rivulet.core.protocol.ws_transport import WebSocketTransport

        ws = WebSocketTransport(self.settings, incremental=False)
        try:
            probe = await self.probe("Responses WebSocket", self._ask(ws, self._body("Say hi."), _judge_text))
        finally:
            await ws.aclose()
        if probe.ok is False and probe.http_status in NO_WEBSOCKET:
            probe.ok, probe.detail = None, f"not offered (HTTP {probe.http_status} at the handshake): use SSE"
        probe.warn = False  # any answer shows the transport works; the text probe judged the model
        return probe

    def _recommend(self, calls: DoctorProbe, custom: DoctorProbe, reasoning: DoctorProbe, chained: DoctorProbe,
                   ws: DoctorProbe) -> None:
        rec, why = self.report.recommended, self.report.reasons
        rec["patch_tool"] = "custom" if custom.ok else "function"
        why["patch_tool"] = "a custom tool call came back" if custom.ok else "no custom tool call came back"
        rec["transport"] = "ws" if ws.ok else "sse"
        why["transport"] = "the Responses WebSocket answered" if ws.ok else \
            ("no Responses WebSocket" if ws.ok is None else "the WebSocket probe failed")
        rec["ws_incremental"] = bool(chained.ok and "did not" not in chained.detail)
        why["ws_incremental"] = "previous_response_id kept the earlier turn" if rec["ws_incremental"] else \
            "previous_response_id not probed (it needs store: true)" if chained.ok is None else \
            "previous_response_id did not keep the earlier turn"
        if reasoning.ok:
            raw_only = "raw" in reasoning.detail
            rec["reasoning_summary"] = "off" if raw_only else "auto"
            why["reasoning_summary"] = "reasoning comes as raw text, never as summaries" if raw_only else \
                "reasoning summaries streamed"
        rec["strict_protocol"] = False
        notes = self.report.notes
        if not self.report.deviations:
            notes.append("no deviation seen: strict_protocol = true would pass")
        if not calls.ok:
            notes.append("the model made no function call: the agent tools will not work well here")
        if reasoning.ok and "raw" in reasoning.detail:
            notes.append("reasoning comes as raw text only (shown live); reasoning_summary has no effect")
        current = effective_patch_tool(self.settings)
        if current != rec["patch_tool"]:
            notes.append(f"patch_tool resolves to {current} for this server today: set it explicitly")


def _judge_text(result: SamplingResult, watch: _Watch) -> tuple[bool, str, bool]:
    """A valid answer of any kind shows the server can chat; what came is said."""
    text = (result.last_message or "").strip()
    cut = f" (cut: {result.incomplete})" if result.incomplete else ""
    if text:
        return True, f"answered{cut}: {_clip(text)}", False
    kinds = [it.item_type(i) or "?" for i in result.committed]
    if not kinds:
        return False, "completed without any output", False
    if ended_in_reasoning(result.committed):
        return True, f"reasoning only{cut}: no message text (a model that never closes <think>?)", True
    calls = [i for i in result.committed if it.is_call(i)]
    if calls:
        call = calls[0]
        what = f"{call.get('name') or it.item_type(call)}({_clip(call.get('arguments') or call.get('input'), 40)})"
        return True, f"a tool call{cut}, no text, though no tool was offered: {what}", True
    return True, f"no text{cut}; items: {', '.join(sorted(set(kinds)))}", True


def _judge_call(result: SamplingResult, watch: _Watch) -> tuple[bool, str]:
    calls = [i for i in result.committed if i.get("type") == "function_call"]
    if not calls:
        said = _clip(result.last_message)
        got = ", ".join(sorted({it.item_type(i) or "?" for i in result.committed})) or "nothing"
        return False, f"no function call; the model said: {said}" if said else f"no function call; got {got}"
    streamed = "function_call_arguments" in watch.delta_kinds
    return True, f"{calls[0].get('name')}({_clip(calls[0].get('arguments'))})" + \
        ("" if streamed else ", arguments not streamed (done only)")


def _judge_custom(result: SamplingResult, watch: _Watch) -> tuple[bool, str]:
    calls = [i for i in result.committed if i.get("type") == "custom_tool_call"]
    if calls:
        return True, f"{calls[0].get('name')}({_clip(calls[0].get('input'))})"
    other = [i.get("type") for i in result.committed]
    return False, f"no custom_tool_call (the server may drop custom tools); got {other or 'nothing'}"


def _judge_reasoning(result: SamplingResult, watch: _Watch) -> tuple[bool, str]:
    items = [i for i in result.committed if i.get("type") == "reasoning"]
    if not items:
        return False, "no reasoning item (not a reasoning model, or the server does not send it)"
    kinds = watch.delta_kinds
    if "reasoning_summary_text" in kinds:
        return True, "summaries streamed"
    if "reasoning_text" in kinds:
        return True, "raw reasoning text streamed (no summaries)"
    return True, "a reasoning item without streamed text (encrypted or empty)"


def _failure(exc: RivuletError) -> str:
    status = getattr(exc, "status", None)
    return f"{exc.kind}{f' (HTTP {status})' if status else ''}: {exc.message}"


def _clip(text: Any, limit: int = 60) -> str:
    one = " ".join(str(text or "").split())
    return sanitize(one if len(one) <= limit else one[: limit - 1] + "…")

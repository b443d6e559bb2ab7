"""One conversation: committed history, a transport, and the turn loop.

A user turn is as many sampling requests as it needs: a follow-up goes out when a
client-side tool call needs its output returned or `response.completed` says
`end_turn: false`. Every request's input is the normalised committed history, so a
retry after a cut stream resends exactly what was committed (completed items kept,
the active item's partial text gone).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable
from contextlib import aclosing
from pathlib import Path
from typing import Any, Protocol

import msgspec

from rivulet.core import items as it
from rivulet.core.capabilities import is_local_server
from rivulet.core.config import Settings
from rivulet.core.errors import ResponseIncomplete, RetryWaitTooLong, RivuletError, ServerUnreachable
from rivulet.core.hosted_items import Citation, approval_response, citations, unanswered_approvals
from rivulet.core.hosted_tools import hosted_includes, hosted_specs, parse_hosted_tools
from rivulet.core.protocol.background import FINAL_STATUSES, BackgroundApi, StreamCursor
from rivulet.core.protocol.context_window import ModelWindows
from rivulet.core.protocol.events import ResponseEvent
from rivulet.core.protocol.unparsed_call import UnparsedToolCall, after_retry
from rivulet.core.request_knobs import add_knobs
from rivulet.core.turn import attachments as att
from rivulet.core.turn.bus import (
    ErrorOccurred,
    EventBus,
    ItemCompleted,
    Notice,
    ResponseStarted,
    Retrying,
    TurnCompleted,
    TurnInterrupted,
    TurnStarted,
)
from rivulet.core.turn.bus_sink import BusSink
from rivulet.core.turn.compaction import auto_compact
from rivulet.core.turn.fair_share import taking_turns
from rivulet.core.turn.history import History
from rivulet.core.turn.no_answer import NO_ANSWER, ended_in_reasoning, why_no_answer
from rivulet.core.turn.project_instructions import ProjectInstructions
from rivulet.core.turn.project_instructions import load as load_project_instructions
from rivulet.core.turn.recorder import SessionRecorder
from rivulet.core.turn.repeat_guard import RepeatedCall, RepeatGuard
from rivulet.core.turn.retry_policy import RestartWait, RetryPolicy
from rivulet.core.turn.state_machine import Deviation, Limits, SamplingResult, consume_response
from rivulet.core.turn.steering import Steering
from rivulet.core.turn.tool_api import NoTools, StopTurn, ToolRouter
from rivulet.core.turn.turn_cost import TurnClock, add_cost, turn_cost
from rivulet.core.turn.usage import add_usage

log = logging.getLogger(__name__)


def _number(key: str) -> int:
    try:
        return int(key.rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return 0


class Transport(Protocol):
    @property
    def name(self) -> str: ...  # "sse", "ws" (read-only: a fallback names the one in use)

    def stream(self, body: dict[str, Any]) -> AsyncGenerator[ResponseEvent, None]: ...

    async def aclose(self) -> None: ...

    @property
    def background(self) -> BackgroundApi | None:
        """How a response left running is fetched and cancelled; None where it cannot be."""


class TurnHooks(Protocol):
    async def turn_start(self, turn_id: int, prompt: str) -> None: ...

    async def turn_end(self, turn_id: int, outcome: str, last_message: str | None) -> None: ...


class AgentCalls(Protocol):
    """The calls that run as subagents (core/subagents/runner.py `SubagentRunner`): offered beside
    the tools, run at once with each other, never failing the turn."""

    def specs(self) -> list[dict[str, Any]]: ...

    def owns(self, call: it.Item) -> bool: ...

    async def run(self, call: it.Item) -> it.Item:
        """The call's output, whatever happened to the subagent (only a cancel raises)."""

    def take_spent(self) -> dict[str, Any] | None:
        """What they used since the last call (tokens, dollars, count), or None: none ran."""


class FollowUpLimit(RivuletError):
    kind = "follow_up_limit"


def _incomplete_message(reason: str, in_reasoning: bool = False) -> str:
    why = {
        "max_output_tokens": "it reached the output token limit (max_output_tokens)",
        "content_filter": "the server's content filter stopped it",
    }.get(reason, f"reason: {reason}")
    if in_reasoning:  # cut before any answer: "the answer was cut short" would promise one
        return f"{NO_ANSWER}: {why}; its reasoning is kept"
    return f"the answer was cut short: {why}; what it wrote is kept"


class TurnResult(msgspec.Struct, dict=True):
    turn_id: int
    last_message: str | None
    usage: dict[str, Any] | None
    requests: int
    stopped: str | None = None
    no_answer: str | None = None  # why the turn gave no answer though it completed (no_answer.py)
    sources: list[Citation] = msgspec.field(default_factory=list)  # what the answer cites (hosted_items.py)


# Left in history when the user interrupts a turn in which the model already did
# something, so that its next request says so (Codex does the same).
TURN_ABORTED = ("<turn_aborted>\nThe user interrupted the previous turn. Any command that was running was "
                "stopped, and calls without a result were marked aborted: do not assume they finished.\n"
                "</turn_aborted>")


class Conversation:
    def __init__(
        self,
        settings: Settings,
        transport: Transport,
        bus: EventBus | None = None,
        history: History | None = None,
        tools: ToolRouter | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        session: SessionRecorder | None = None,
        project: ProjectInstructions | None = None,
        windows: ModelWindows | None = None,
    ) -> None:
        self.settings = settings
        # What the server said of its models' context windows (automatic compaction reads it).
        self.windows = windows or ModelWindows()
        self.transport = transport
        self.bus = bus or EventBus()
        self.history = history or History()
        self.tools = tools or NoTools()
        self.retry = retry or RetryPolicy.for_settings(settings)  # a local server restarting is waited for
        self.server_answered = False  # an answer came from the server: a refused connection now is a restart
        self._sleep = sleep
        # The hosted tools offered (settings.hosted_tools, toggled by /tools for this conversation).
        self.hosted_tools: list[dict[str, Any]] = parse_hosted_tools(settings.hosted_tools)
        self.hosted_off: set[str] = set()  # names (hosted_tools.name_of) switched off by /tools
        # The answer's format, `text.format` (exec --output-schema's JSON schema); None: not sent.
        self.text_format: dict[str, Any] | None = None
        # prompt_cache_key "session": one key for the whole conversation (the session's id).
        self.cache_key = (session.session_id if session is not None else None) or uuid.uuid4().hex
        # Set by the app when it quits: a background response is left running (not cancelled).
        # Set by an explicit interrupt (Esc, /cancel): a background response is cancelled on
        # the server. Any other cancellation (a quit) leaves it running to be resumed.
        self.cancel_requested = False
        self._clock = TurnClock(time.monotonic())  # the running turn's timing
        self._repeats = RepeatGuard()  # the running turn's calls, counted (a model that loops is stopped)
        self.last_cost: dict[str, Any] | None = None  # the last turn's tokens, dollars and speed
        self.session_cost: dict[str, Any] | None = None  # their sum over this run (/cost)
        self.turns = 0
        self.requests = 0  # every request sent in this conversation (a history segment each)
        # The usage of the last completed response: what the context holds now (models.context_left).
        self.last_usage: dict[str, Any] | None = None
        # Awaited at the start of each turn, before its user message enters history:
        # where automatic compaction hooks in (core.compaction.auto_compact). It should
        # not raise; an interrupt during it gives the prompt back.
        self.before_turn: Callable[[Conversation], Awaitable[None]] | None = auto_compact()
        # Every protocol deviation the server's streams showed (the inspector lists them).
        self.deviations: list[Deviation] = []
        # Messages the user steered into the running turn (`steer`), not yet sent: they
        # join history at the turn's next request boundary (core/turn/steering.py).
        self.steering = Steering()
        # The session file: told of every history change as it happens, and of turns.
        self.session = session
        # The user's turn_start/turn_end hooks (core/hooks), awaited; they never raise.
        self.hooks: TurnHooks | None = None
        # The `spawn_agent` tool (issue 41): set by the engine when subagents are on.
        self.agents: AgentCalls | None = None
        # The AGENTS.md files in force, read once (as Codex does); /status lists them.
        self.project = project if project is not None else load_project_instructions(
            Path(settings.workspace or os.getcwd()).expanduser(), max_bytes=settings.project_instructions_max_bytes,
            extra=settings.instructions)
        for refused in self.project.refused:  # an AGENTS.md that is a link out, /proc, a FIFO: said once
            self.bus.publish(Notice(f"AGENTS.md: {refused}"))
        if session is not None:
            self.history.observers.append(session.observe)
        if not self.history.models:  # a new conversation (the session header names its model)
            self.history.set_model(settings.model, record=False)
        else:  # resumed with another model: recorded, so that its old reasoning is not sent
            self.history.set_model(settings.model)
        # A resumed conversation goes on numbering its turns and requests (compacted ones too).
        for entry in [*(e for c in self.history.compactions for e in c.replaced), *self.history.entries]:
            if entry.key and entry.key.startswith("user-"):
                self.turns = max(self.turns, _number(entry.key))
            if entry.segment and entry.segment.startswith("req-"):
                self.requests = max(self.requests, _number(entry.segment))

    def set_model(self, model: str) -> None:
        """Use `model` from the next request on (a turn under way switches at its next
        request); history stays valid across the switch.

        Reasoning items the old model wrote carry `encrypted_content` that only the
        model family which made them can decrypt: sent to another model they fail the
        request. So from the switch on, requests leave out the reasoning items with
        `encrypted_content` that another model made (the switch is recorded in history
        and in the session file, so a resumed session knows it too); messages, calls,
        their outputs and compaction items are kept, and the history keeps everything,
        so switching back sends the old reasoning again. The comparison is by exact
        model name: a family's aliases cannot be told apart reliably, and dropping
        reasoning only costs the new model some context, never the request."""
        self.settings.model = model
        self.history.set_model(model)

    def build_request(self) -> dict[str, Any]:
        s = self.settings
        body: dict[str, Any] = {
            "model": s.model,
            "input": self.history.to_input(store=s.store, model=s.model),
            "store": s.store,
            "stream": True,
        }
        instructions = self.project.combined(s.instructions)
        if instructions:
            body["instructions"] = instructions
        if not s.store:
            body["include"] = ["reasoning.encrypted_content"]
        reasoning: dict[str, Any] = {}
        if s.reasoning_effort:
            reasoning["effort"] = s.reasoning_effort
        if s.reasoning_summary and s.reasoning_summary != "off":
            reasoning["summary"] = s.reasoning_summary
        if reasoning:
            body["reasoning"] = reasoning
        hosted = hosted_specs(self.hosted_tools, self.hosted_off)
        tools = [*self.tools.specs(), *(self.agents.specs() if self.agents is not None else []), *hosted]
        wanted = [i for i in hosted_includes(hosted) if i not in body.get("include", [])]
        if wanted:  # what the hosted tools' items leave out unless asked: sources, hits, logs
            body["include"] = [*body.get("include", []), *wanted]
        if tools:
            body["tools"] = tools
            body["tool_choice"] = "auto"
            body["parallel_tool_calls"] = True
        add_knobs(body, s, self.cache_key, self.text_format)
        return body

    async def run_turn(self, prompt: str, attachments: tuple[att.Attachment, ...] | list[att.Attachment] = ()
                       ) -> TurnResult:
        """Run one user turn to its end. Raises the error that ended it, if any,
        after publishing it; history keeps everything committed before it. Cancelling
        it (the user's interrupt) stops a running tool, gives every unanswered call of
        the turn an "aborted" output and leaves a note the model will read next turn."""
        self.turns += 1
        turn_id = self.turns
        self._clock = TurnClock(time.monotonic())
        self._repeats = RepeatGuard()
        if self.session is not None:
            self.session.turn_started(turn_id, prompt)
        self.bus.publish(TurnStarted(turn_id, prompt))
        try:
            if self.hooks is not None:
                await self.hooks.turn_start(turn_id, prompt)
            if self.before_turn is not None:
                await self.before_turn(self)
        except asyncio.CancelledError:
            self._turn_ended(turn_id, None, "interrupted")
            self.bus.publish(TurnInterrupted(turn_id, prompt))
            raise
        start = len(self.history)
        user = att.user_message(prompt, attachments)
        self.history.append(user, key=f"user-{turn_id}")
        self.bus.publish(ItemCompleted(user, f"user-{turn_id}"))
        self.tools.start_turn()
        usage: dict[str, Any] | None = None
        last_message: str | None = None
        answer: it.Item | None = None  # the message of last_message
        stopped: str | None = None
        no_answer: str | None = None
        requests = 0
        try:
            while True:
                result = await self._sample(turn_id, requests)
                requests += 1
                if isinstance(result, str):
                    stopped = result
                    break
                usage = add_usage(usage, result.usage)
                if result.last_message:
                    last_message, answer = result.last_message, result.answer
                if result.incomplete:
                    why = _incomplete_message(result.incomplete, ended_in_reasoning(result.committed))
                    cut = ResponseIncomplete(why, code=result.incomplete)
                    cut.partial = result.last_message
                    raise cut
                no_answer = why_no_answer(result.committed, result.dropped)
                stopped = await self._run_tools(result.pending_calls)
                approvals = False if stopped else await self._answer_approvals(result.committed)
                if isinstance(approvals, str):
                    stopped = approvals
                if stopped or not (result.needs_follow_up or approvals):
                    break
                if requests > self.settings.max_follow_ups:
                    raise FollowUpLimit(
                        f"stopped after {requests} requests in one turn (max_follow_ups = "
                        f"{self.settings.max_follow_ups}); send a message to continue"
                    )
                self._commit_steered(turn_id)  # after the tool outputs, before the follow-up
        except RivuletError as exc:
            self._turn_ended(turn_id, usage, "failed")
            cost = self._count(usage)  # its tokens were used all the same
            if self.hooks is not None:
                await self.hooks.turn_end(turn_id, "failed", last_message)
            self.bus.publish(ErrorOccurred(exc, usage, cost))
            raise
        except asyncio.CancelledError:
            if (running := self._background_running()) is not None and not self.cancel_requested:
                # A quit: the server goes on with it; `rivulet resume` re-attaches (background_turns.py).
                self._leave_background(turn_id, usage, running[1], running[2])
                raise
            await self._cancel_background()
            undone = self._record_interrupt(turn_id, start)
            self._turn_ended(turn_id, usage, "interrupted")
            self._count(usage)
            self.bus.publish(TurnInterrupted(turn_id, prompt if undone else None))
            raise
        finally:
            self.cancel_requested = False
        self._turn_ended(turn_id, usage, "stopped" if stopped else "completed")
        cost = self._count(usage)
        if self.hooks is not None:  # before the turn is over for the front end: a notify hook's note shows in it
            await self.hooks.turn_end(turn_id, "stopped" if stopped else "completed", last_message)
        sources = citations(answer) if answer is not None else []
        self.bus.publish(TurnCompleted(turn_id, usage, last_message, stopped, no_answer, cost,
                                       [msgspec.to_builtins(ref) for ref in sources]))
        return TurnResult(turn_id, last_message, usage, requests, stopped, no_answer, sources)

    def _count(self, usage: dict[str, Any] | None) -> dict[str, Any]:
        """The turn's cost, added to the run's (/cost): a finished, failed or interrupted
        turn's alike. A local server's model has no shipped (OpenAI) price."""
        cost = turn_cost(usage, self.settings.model, self._clock, self.settings.prices,
                         shipped=not is_local_server(self.settings))
        spent = self.agents.take_spent() if self.agents is not None else None
        if spent is not None:  # the subagents' part: in the totals, and apart
            cost["subagents"] = spent
            for key in ("input", "cached", "output", "reasoning"):
                cost[key] += spent[f"{key}_tokens"]
            if cost["dollars"] is not None:
                cost["dollars"] = None if spent["dollars"] is None else cost["dollars"] + spent["dollars"]
        self.last_cost, self.session_cost = cost, add_cost(self.session_cost, cost)
        return cost

    async def _run_tools(self, calls: list[it.Item]) -> str | None:
        """Run the calls in order, committing each output at once. Returns why the user
        stopped the turn, if they did (the calls after that one are not run). A call
        that already has an output (run before a retry replayed it) is not run again.
        Subagents' calls all start at once (run_with_agents)."""
        calls = self._unanswered(calls)
        if calls and self.session is not None:
            self.session.sync()  # the calls reach the disk before any runs: a tool may outlive a power cut
        if self.agents is not None and any(self.agents.owns(call) for call in calls):
            return await self._run_with_agents(calls, self.agents)
        for n, call in enumerate(calls):
            try:
                output = await self.tools.run(call)
            except StopTurn as stop:
                self._commit_output(stop.output)
                for rest in calls[n + 1:]:
                    self._commit_output(it.aborted_output(rest, "not run: the user stopped the turn"))
                return stop.reason
            self._commit_output(output)
            try:
                self._repeats.check(call, output)
            except RepeatedCall:
                for rest in calls[n + 1:]:
                    self._commit_output(it.aborted_output(rest, "not run: the model repeated itself"))
                raise
        return None

    async def _run_with_agents(self, calls: list[it.Item], agents: AgentCalls) -> str | None:
        """`_run_tools` with subagents among the calls: those start at once (the runner
        bounds how many run), the other calls run one after another meanwhile, and the
        outputs are committed in call order, each as soon as those before it are. Leaving
        (a cancel, the user's stop, a repeated call) cancels every subagent still running.
        The user's "stop the turn" at a subagent's question stops the whole turn, as at the
        parent's own: the subagent's call says so, those not done are aborted."""
        spawned = {n: asyncio.ensure_future(agents.run(call)) for n, call in enumerate(calls) if agents.owns(call)}
        outputs: dict[int, it.Item] = {}
        done = 0  # the calls whose outputs are committed

        def stopped_subagent() -> tuple[int, StopTurn] | None:
            for n, task in sorted(spawned.items()):
                stop = task.exception() if n >= done and task.done() and not task.cancelled() else None
                if isinstance(stop, StopTurn):
                    return n, stop
            return None

        def commit_ready() -> None:
            nonlocal done
            while done < len(calls):
                task = spawned.get(done)
                if task is not None and task.done():
                    outputs[done] = task.result()
                if done not in outputs:
                    return
                self._commit_output(outputs[done])
                done += 1
                try:
                    self._repeats.check(calls[done - 1], outputs[done - 1])
                except RepeatedCall:
                    abort_rest("not run: the model repeated itself")
                    raise

        def abort_rest(why: str) -> None:
            nonlocal done
            for task in spawned.values():
                task.cancel()
            for m in range(done, len(calls)):  # a subagent was running: "aborted", not "not run"
                self._commit_output(it.aborted_output(calls[m], why.replace("not run:", "aborted:") if m in spawned
                                                      else why))
            done = len(calls)

        def stop_at(n: int, stop: StopTurn) -> str:
            """The user stopped the turn at call `n`: what came before it is committed (a
            subagent's answer, or aborted), then its output, and the rest are not run."""
            nonlocal done
            outputs[n] = stop.output
            for m in range(done, n):
                task = spawned[m] if m not in outputs else None
                if task is not None:
                    answered = task.done() and not task.cancelled() and task.exception() is None
                    outputs[m] = task.result() if answered else \
                        it.aborted_output(calls[m], "aborted: the user stopped the turn")
            for m in range(done, n + 1):
                self._commit_output(outputs[m])
            done = n + 1
            abort_rest("not run: the user stopped the turn")
            return stop.reason

        try:
            for n, call in enumerate(calls):
                if n in spawned:
                    continue
                try:
                    outputs[n] = await self.tools.run(call)
                except StopTurn as stop:
                    return stop_at(n, stop)
                if (stop_found := stopped_subagent()) is not None:
                    return stop_at(*stop_found)
                commit_ready()
            while True:  # the subagents left, as each ends
                if (stop_found := stopped_subagent()) is not None:
                    return stop_at(*stop_found)
                commit_ready()
                pending = [task for n, task in spawned.items() if n >= done and not task.done()]
                if not pending:
                    return None
                await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        finally:
            running = [task for task in spawned.values() if not task.done()]
            for task in running:
                task.cancel()
            if running:  # each says it was cancelled; their calls get "aborted" outputs from the caller
                await asyncio.gather(*running, return_exceptions=True)

    async def _answer_approvals(self, committed: list[it.Item]) -> bool | str:
        """Answer the remote MCP approval requests of a response through the router's
        approval policy (`approve_hosted`; NoTools says no); True when a follow-up must
        carry the answers, or why the user stopped the turn."""
        requests = unanswered_approvals(committed, self.history.items)
        for n, request in enumerate(requests):
            decision = await self.tools.approve_hosted(request)
            for item in [request] if decision != "stop" else requests[n:]:
                response = approval_response(item, decision == "yes")
                key = f"{item['id']}:approval"
                self.history.append(response, key=key)
                self.bus.publish(ItemCompleted(response, key))
            if decision == "stop":
                return "the user stopped the turn at an MCP approval"
        return bool(requests)

    def _background_running(self) -> tuple[BackgroundApi, StreamCursor, str] | None:
        """The background response under way (how to reach it, where it is, its id), or None."""
        api = self.transport.background
        if not self.settings.background or api is None:
            return None
        cursor = api.cursor
        if cursor.response_id is None or cursor.status in FINAL_STATUSES:
            return None
        return api, cursor, cursor.response_id

    def _leave_background(self, turn_id: int, usage: dict[str, Any] | None, cursor: StreamCursor,
                          response_id: str) -> None:
        """Record the running response (its id, the last sequence number read) so that
        a later `rivulet resume` can fetch what it made."""
        if self.session is not None:
            self.session.background_left(turn_id, response_id, cursor.sequence, f"req-{self.requests}")
        self._turn_ended(turn_id, usage, "detached")
        log.info("left background response %s running (turn %d)", response_id, turn_id)

    async def _cancel_background(self) -> None:
        """Esc or /cancel during a background response: POST /responses/{id}/cancel, so
        the server stops (and bills) no more. A failure is said, never raised."""
        if (running := self._background_running()) is None:
            return
        api, cursor, rid = running
        try:
            await asyncio.wait_for(api.cancel(rid), timeout=self.settings.connect_timeout)
            cursor.status = "cancelled"
            self.bus.publish(Notice(f"cancelled background response {rid}"))
        except (RivuletError, TimeoutError) as exc:
            why = exc.message if isinstance(exc, RivuletError) else "no answer in time"
            self.bus.publish(Notice(f"could not cancel background response {rid}: {why}"))

    def _turn_ended(self, turn_id: int, usage: dict[str, Any] | None, outcome: str) -> None:
        self.tools.end_turn(turn_id)  # the turn's checkpoint: what its tools changed (core/checkpoints)
        if self.session is not None:
            self.session.turn_ended(turn_id, usage, outcome)

    def steer(self, text: str) -> None:
        """Send `text` into the running turn: it enters history as a user message at the
        next request boundary (after the current tool outputs). A turn that ends without
        another request leaves it in `steering`, for the caller to send (Engine.submit
        sends it as the next turn)."""
        self.steering.add(text)

    def _commit_steered(self, turn_id: int) -> None:
        for n, text in self.steering.take():
            message = it.user_message(text)
            key = f"steer-{turn_id}-{n}"
            self.history.append(message, key=key)
            self.bus.publish(ItemCompleted(message, key))

    def _commit_output(self, output: it.Item) -> None:
        key = f"{it.call_id(output)}:output"
        self.history.append(output, key=key)
        self.bus.publish(ItemCompleted(output, key))

    def _record_interrupt(self, turn_id: int, start: int) -> bool:
        """What an interrupt keeps. If the server committed nothing this turn, the turn
        is undone (its user message leaves history; the caller gives the prompt back)
        and True is returned. Else every unanswered call gets an "aborted" output and a
        note tells the model, next turn, that the user interrupted."""
        entries = self.history.entries[start:]
        if not any(e.segment is not None for e in entries):
            self.history.truncate(start)
            return True
        for call in self._unanswered(e.item for e in entries):
            if it.call_id(call):
                self._commit_output(it.aborted_output(call, "aborted: the user interrupted the turn"))
        note = it.user_message(TURN_ABORTED)
        self.history.append(note, key=f"note-{turn_id}")
        self.bus.publish(ItemCompleted(note, f"note-{turn_id}"))
        return False

    async def _sample(self, turn_id: int, request: int) -> SamplingResult | str:
        """One sampling request, retried after retryable errors. Returns its result,
        or why the user stopped the turn while calls of a cut response ran."""
        attempt = 0
        earlier: set[str] = set()  # keys committed by the cut attempts of this request
        limits = Limits(max_items=self.settings.max_items_per_response,
                        max_item_chars=self.settings.max_item_chars)
        restart = RestartWait(self.retry)  # a local server that is not up: waited for a while
        while True:
            attempt += 1
            self.requests += 1
            segment = f"req-{self.requests}"
            body = self.build_request()
            self.bus.publish(ResponseStarted(turn_id, request, attempt))
            sink = BusSink(self.bus, self.history, segment, earlier)
            try:
                async with aclosing(self.transport.stream(body)) as raw, \
                        aclosing(taking_turns(raw, give_way=self.bus.give_way)) as events:
                    result = await consume_response(events, sink, strict=self.settings.strict_protocol,
                                                    limits=limits)
                self.deviations.extend(sink.deviations)
                self.server_answered = True
                if result.usage:
                    self.last_usage = result.usage
                self._clock.response(sink.first_delta_at, time.monotonic(), sink.timings)
                return result
            except RivuletError as exc:
                self.deviations.extend(sink.deviations)
                earlier |= {e.key for e in self.history.entries if e.segment == segment and e.key}
                # A tool call that did not parse (llama.cpp): a new sample usually does; once, at once.
                unparsed = isinstance(exc, UnparsedToolCall)
                limit = min(1, self.retry.max_retries) if unparsed else self.retry.max_retries
                waiting = self.retry.waits_for(exc, self.server_answered) and restart.left() > 0
                # Anything but a refused connection came from the server (a status, a cut stream).
                self.server_answered = self.server_answered or not isinstance(exc, ServerUnreachable)
                if not exc.retryable or (attempt > limit and not waiting):
                    if unparsed and attempt > 1:
                        raise after_retry() from None
                    raise
                if exc.retry_after is not None and exc.retry_after > self.settings.max_retry_wait:
                    raise RetryWaitTooLong(
                        f"{exc.message} (the server asks to wait {exc.retry_after:.0f}s before a retry, more than "
                        f"max_retry_wait = {self.settings.max_retry_wait:g}s: not retried)") from None
                delay = 0.0 if unparsed else self.retry.delay(attempt, exc)
                delay = restart.pause(delay) if waiting else delay
                log.info("retrying after %s (attempt %d, %.2fs)", exc.kind, attempt, delay)
                self.bus.publish(Retrying(attempt, limit, delay, exc, restart.left() if waiting else None))
                # A call committed before the cut is a complete fact: run it now, so the
                # retry sends its real output instead of an "aborted" stand-in.
                stopped = await self._run_tools([e.item for e in self.history.entries if e.segment == segment])
                if stopped:
                    return stopped
                await self._sleep(delay)

    def _unanswered(self, items: Iterable[it.Item]) -> list[it.Item]:
        """The client-side calls among `items` that have no output in history yet."""
        calls = [i for i in items if it.is_call(i)]
        # An output is committed after its call, so history is read back from its end only
        # as far as the oldest of these calls (it is there), not whole at every response.
        waiting = {id(call) for call in calls}
        answered: set[str | None] = set()
        for entry in reversed(self.history.entries):
            if not waiting:
                break
            if it.is_output(entry.item):
                answered.add(it.call_id(entry.item))
            waiting.discard(id(entry.item))
        return [i for i in calls if it.call_id(i) not in answered]

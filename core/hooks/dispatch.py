"""Fire an event's hooks, in the order they were configured, and tell the bus.

`Hooks` is what the turn loop (turn_start, turn_end), the tool router (before_tool,
after_tool, after_patch) and the front ends (session_start, session_end) call. A hook
that fails or hangs becomes one `HookNote` line; only a `before_tool` hook exiting 2
changes anything: the call is not run, and the hook's stderr is the model's reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rivulet.core import items as it
from rivulet.core.hooks.events import HookNote
from rivulet.core.hooks.runner import HookResult, run_hook
from rivulet.core.hooks.spec import HookSpec
from rivulet.core.tools.sandbox import Sandbox
from rivulet.core.turn.bus import EventBus, Notice

BLOCK_EXIT = 2
NOTE_CHARS = 2_000  # of a hook's output shown in the transcript
NOTE_LINES = 12
REASON_CHARS = 4_000  # of a blocking hook's stderr sent to the model


def cap(text: str, chars: int = NOTE_CHARS, lines: int = NOTE_LINES) -> str:
    text = text.strip("\n")
    kept = text[:chars].split("\n")[:lines]
    out = "\n".join(kept)
    return out if out == text else out + "\n[… hook output cut]"


def failure(result: HookResult, spec: HookSpec) -> str:
    if result.refused is not None:
        return result.refused
    if result.error is not None:
        return f"failed: cannot run {spec.command[0]!r}: {result.error}"
    if result.timed_out:
        return f"failed: timed out after {spec.timeout:g} s (killed)"
    last = next((ln for ln in reversed(result.stderr.strip().splitlines()) if ln.strip()), "")
    return f"failed: exit status {result.exit_code}" + (f": {last[:200]}" if last else "")


class Hooks:
    def __init__(self, specs: Sequence[HookSpec], workspace: Path, bus: EventBus | None = None,
                 sandbox: Sandbox | None = None, secrets: tuple[str, ...] = ()) -> None:
        self.specs = list(specs)
        self.workspace = workspace
        self.bus = bus
        self.sandbox = sandbox
        self.secrets = secrets
        self.session_id: Callable[[], str | None] = lambda: None  # the session file's id, once there is one
        self._told_unsandboxed = False
        self._told_refused: set[HookSpec] = set()  # a refused hook is said once, not at every event

    def __bool__(self) -> bool:
        return bool(self.specs)

    def _for(self, event: str, tool: str | None = None) -> list[HookSpec]:
        return [s for s in self.specs if s.event == event and (not s.tools or tool in s.tools)]

    async def fire(self, event: str, data: dict[str, Any] | None = None, files: Sequence[str] = (),
                   tool: str | None = None) -> list[tuple[HookSpec, HookResult]]:
        specs = self._for(event, tool)
        if not specs:
            return []
        self._tell_if_unsandboxed()
        payload = {"event": event, "workspace": str(self.workspace), "session_id": self.session_id(),
                   **(data or {}), "files": list(files)}
        done = []
        for spec in specs:
            result = await run_hook(spec, payload, self.workspace, files=files, sandbox=self.sandbox,
                                    secrets=self.secrets)
            done.append((spec, result))
            blocked = event == "before_tool" and result.exit_code == BLOCK_EXIT
            self._note(spec, result, blocked)
            if blocked:
                break
        return done

    def _note(self, spec: HookSpec, result: HookResult, blocked: bool) -> None:
        if self.bus is None:
            return
        if blocked:
            self.bus.publish(HookNote(spec.event, spec.label, "blocked the call: " + cap(result.stderr, 300, 3),
                                          blocked=True))
        elif result.refused is not None:
            if spec not in self._told_refused:
                self._told_refused.add(spec)
                self.bus.publish(HookNote(spec.event, spec.label, failure(result, spec), failed=True))
        elif not result.ok:
            self.bus.publish(HookNote(spec.event, spec.label, failure(result, spec), failed=True))
        elif output := cap(result.stdout + result.stderr):
            self.bus.publish(HookNote(spec.event, spec.label, output))

    def protected_patterns(self) -> list[str]:
        """`protected_paths` patterns for the workspace files the hooks run or name."""
        from rivulet.core.hooks.unsandboxed import protected_patterns

        return protected_patterns([s.command for s in self.specs], str(self.workspace))

    def _tell_if_unsandboxed(self) -> None:
        if self._told_unsandboxed or self.sandbox is None or self.sandbox.mode == "off" or self.sandbox.active:
            return
        self._told_unsandboxed = True
        from rivulet.core.tools.sandbox import probe

        if self.bus is not None:
            self.bus.publish(Notice(f"Hooks run without a sandbox: {probe().reason}."))

    # ---- the events ------------------------------------------------------------------

    async def session_start(self, resumed: bool = False) -> None:
        await self.fire("session_start", {"resumed": resumed})

    async def session_end(self) -> None:
        await self.fire("session_end")

    async def turn_start(self, turn_id: int, prompt: str) -> None:
        await self.fire("turn_start", {"turn_id": turn_id, "prompt": prompt})

    async def turn_end(self, turn_id: int, outcome: str, last_message: str | None) -> None:
        await self.fire("turn_end", {"turn_id": turn_id, "outcome": outcome, "last_message": last_message})

    async def before_tool(self, call: it.Item) -> str | None:
        """Why a hook blocked this call (exit 2; its stderr), else None."""
        for _spec, result in await self.fire("before_tool", {"tool": _tool(call)}, tool=_name(call)):
            if result.exit_code == BLOCK_EXIT:
                reason = result.stderr.strip()[:REASON_CHARS] or "no reason given"
                return f"A hook of the user blocked this call; it did not run. The hook said: {reason}"
        return None

    async def after_tool(self, call: it.Item, output: it.Item) -> None:
        out = output.get("output")
        await self.fire("after_tool", {"tool": _tool(call), "output": out if isinstance(out, str) else None},
                        tool=_name(call))

    async def after_patch(self, files: Sequence[str]) -> None:
        await self.fire("after_patch", files=files)


def _name(call: it.Item) -> str:
    return str(call.get("name") or call.get("type") or "")


def _tool(call: it.Item) -> dict[str, Any]:
    return {"name": _name(call), "call_id": it.call_id(call), "arguments": call.get("arguments"),
            "input": call.get("input")}

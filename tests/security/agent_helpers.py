"""Driving the agent tools of the chat app from a scripted model (security tests)."""

from __future__ import annotations

from helpers.calls import custom_call, custom_call_events, fn_call
from helpers.mock_api import settings
from helpers.streams import completed, created, ev, message, message_events
from helpers.tui import GatedServer

from rivulet.app.tui import RivuletApp
from rivulet.core.tools.router import ToolSettings


def shell_turn(command: str, workdir: str | None = None, timeout_ms: int | None = None,
               justification: str | None = None) -> list[str]:
    args = {"command": command, "workdir": workdir, "timeout_ms": timeout_ms, "justification": justification}
    call = fn_call("fc_1", "call_s", "shell", args)
    return [created(), ev("response.output_item.added", output_index=0, item={**call, "arguments": ""}),
            ev("response.function_call_arguments.delta", item_id="fc_1", output_index=0, delta=call["arguments"]),
            ev("response.output_item.done", output_index=0, item=call), completed([call])]


def patch_turn(patch: str) -> list[str]:
    return [created(), *custom_call_events("ct_1", "call_p", "apply_patch", patch),
            completed([custom_call("ct_1", "call_p", "apply_patch", patch)])]


def answer(text: str = "ok", rid: str = "r2") -> list[str]:
    return [created(rid), *message_events("m2", text), completed([message("m2", text)], rid)]


def agent_app(server: GatedServer, workspace, approval: str = "ask", **tool_kw) -> RivuletApp:
    s = settings(model="gpt-5.1-codex", approval=approval)
    return RivuletApp(s, server.transport(), tool_settings=ToolSettings(workspace=workspace, **tool_kw),
                      remember_theme=False)

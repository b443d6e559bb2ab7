"""The hooks of a run, made from its settings: the user's, the trusted workspace's, in
the sandbox chosen for hooks, with the API key kept out of their environment and output.
While they are configured, the workspace files they run or name are protected paths of
the tools they are wired into (a sandboxed command cannot change them silently)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from rivulet.core.hooks.spec import LoadedHooks, load_hooks

if TYPE_CHECKING:
    from rivulet.core.config import Settings
    from rivulet.core.hooks.dispatch import Hooks
    from rivulet.core.tools.router import AgentTools
    from rivulet.core.turn.bus import EventBus
    from rivulet.core.turn.conversation import Conversation


def make_hooks(settings: Settings, workspace: Path, bus: EventBus | None,
               secrets: tuple[str, ...] = ()) -> tuple[Hooks, str | None]:
    """The hooks, and why the workspace's own were ignored (or None). ConfigError on a
    bad [[hooks]] table."""
    loaded = load_hooks(settings.hooks or None, workspace, settings.trusted_workspaces)
    return hooks_of(loaded, settings, workspace, bus, secrets), loaded.ignored


def hooks_of(loaded: LoadedHooks, settings: Settings, workspace: Path, bus: EventBus | None,
             secrets: tuple[str, ...] = ()) -> Hooks:
    """The hooks that run `loaded`. exec calls it only when there is a hook: the runner and
    the dispatcher are not imported by a run that has none."""
    from rivulet.core.hooks.dispatch import Hooks
    from rivulet.core.tools.sandbox import Sandbox

    sandbox = Sandbox(settings.hooks_sandbox or settings.sandbox, workspace, settings.sandbox_network)
    return Hooks(loaded.hooks, workspace, bus, sandbox, secrets)


def attach(hooks: Hooks, conversation: Conversation) -> None:
    """Wire the hooks into a conversation's turn loop and its tool router."""
    from rivulet.core.tools.router import AgentTools

    if not hooks:
        return
    conversation.hooks = hooks
    if isinstance(conversation.tools, AgentTools):
        wire_tools(hooks, conversation.tools)


def wire_tools(hooks: Hooks, tools: AgentTools) -> None:
    """The tools' before_tool, after_tool and after_patch hooks; the workspace files they
    run or name join the tools' protected paths."""
    tools.hooks = hooks
    have = tools.settings.protected_paths
    extra = tuple(p for p in hooks.protected_patterns() if p not in have)
    if extra:
        tools.settings = msgspec.structs.replace(tools.settings, protected_paths=(*have, *extra))

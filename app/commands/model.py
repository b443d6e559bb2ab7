"""/model and /effort: what the next requests ask for.

/model lists `GET {base_url}/models` (the configured `models` list when the server
cannot list them) in a picker; `/model NAME` switches at once. The switch goes
through `Conversation.set_model`: from the next request on (a running turn switches
at its next request), and the old model's encrypted reasoning is no longer sent.
/effort sets `reasoning.effort` the same way. Neither is saved to the config: they
are this conversation's.
"""

from __future__ import annotations

from functools import partial
from typing import Protocol

from rivulet.app.commands.results import Choose, Lines, Option, Result, Say
from rivulet.app.commands.services import HasEngine, HasStatus
from rivulet.core.errors import RivuletError
from rivulet.core.protocol.models import list_models
from rivulet.core.sanitize import sanitize

EFFORTS = ("minimal", "low", "medium", "high")
# What the Settings also accept: typed as `/effort xhigh`, not offered in the picker.
MORE_EFFORTS = ("none", "xhigh")
DEFAULT_EFFORT = "default"  # no `reasoning.effort`: the server's own default


class ModelNeeds(HasEngine, HasStatus, Protocol):
    pass


def refresh_model_status(s: ModelNeeds) -> None:
    """The status line's model, effort and context window, from the settings."""
    settings = s.engine.settings
    window = s.engine.windows.choose(settings).tokens
    s.status.show_model(settings.model, settings.reasoning_effort, settings.profile, window)


async def switch_model(s: ModelNeeds, model: str) -> Result:
    engine = s.engine
    model = model.strip()
    old = engine.settings.model
    if model == old:
        return Say(f"Already using {model}")
    engine.set_model(model)
    refresh_model_status(s)
    history = engine.conversation.history
    dropped = sum(1 for n, e in enumerate(history.entries) if e.item.get("type") == "reasoning"
                  and e.item.get("encrypted_content") and history.model_at(n) != model)
    lines = [f"Model: {model} (was {old}), from the next request on."]
    if dropped:
        items = "1 reasoning item" if dropped == 1 else f"{dropped} reasoning items"
        lines.append(f"{items} encrypted by an earlier model will not be sent to this one (only its own "
                     "model can read them); messages, calls and outputs are.")
    return Lines(lines)


async def choose_model(s: ModelNeeds, arg: str = "") -> Result:
    if arg:
        return await switch_model(s, arg)
    s.status.say("Asking the server for its models…")
    try:
        found = await list_models(s.engine.settings)
    except RivuletError as exc:
        return Say(f"Cannot list models: {sanitize(exc.message)}", "error")
    finally:
        s.status.say(None)
    if found.source == "server":
        s.engine.windows.learn(found.models)
        note = f"{len(found.models)} models from the server"
    else:
        note = f"from the `models` setting: {found.error}"
    options = [Option(m.id, help=f"{m.context_window:,} tokens" if m.context_window else "") for m in found.models]
    return Choose("Model for the next requests", options, partial(switch_model, s),
                  current=s.engine.settings.model, note=note)


async def choose_effort(s: ModelNeeds, arg: str = "") -> Result:
    if not arg:
        options = [Option(e) for e in EFFORTS] + [Option(DEFAULT_EFFORT, help="send none: the server decides")]
        return Choose("Reasoning effort for the next requests", options, partial(choose_effort, s),
                      current=s.engine.settings.reasoning_effort or DEFAULT_EFFORT)
    level = arg.strip().lower()
    if level not in (*EFFORTS, *MORE_EFFORTS, DEFAULT_EFFORT):
        return Say(f"Unknown effort {arg!r}: one of {', '.join(EFFORTS)}, or {DEFAULT_EFFORT}", "warning")
    s.engine.set_effort(None if level == DEFAULT_EFFORT else level)
    refresh_model_status(s)
    return Say(f"Reasoning effort: {level}, from the next request on")

"""/model and /effort: what the next requests ask for.

/model lists `GET {base_url}/models` (the configured `models` list when the server
cannot list them) in a picker; `/model NAME` switches at once. The switch goes
through `Conversation.set_model`: from the next request on (a running turn switches
at its next request), and the old model's encrypted reasoning is no longer sent.
/effort sets `reasoning.effort` the same way. Neither is saved to the config: they
are this conversation's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.app.commands.output import show_note
from rivulet.core.errors import RivuletError
from rivulet.core.protocol.models import fetch_models, list_models
from rivulet.core.sanitize import sanitize
from rivulet.widgets.choice import Choice, ChoiceScreen

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext

EFFORTS = ("minimal", "low", "medium", "high")
# What the Settings also accept: typed as `/effort xhigh`, not offered in the picker.
MORE_EFFORTS = ("none", "xhigh")
DEFAULT_EFFORT = "default"  # no `reasoning.effort`: the server's own default


def refresh_model_status(app: CommandContext) -> None:
    """The status line's model, effort and context window, from the settings."""
    s = app.running.settings
    window = app.windows.choose(s).tokens if app.windows is not None else s.context_window
    app.chat.status.set(model=s.model, effort=s.reasoning_effort, profile=s.profile, window=window)
    _banner_model(app, s.model)


def _banner_model(app: CommandContext, model: str) -> None:
    """The banner ends with the model's name ("rivulet · where · model"): the new one."""
    from textual.widgets import Static

    from rivulet.widgets.safe import safe_text

    found = app.screen_stack[0].query("#banner")
    if not found:
        return
    banner = found.first(Static)
    head, sep, _ = str(banner.content).rpartition(" · ")
    if sep:
        banner.update(safe_text(f"{head}{sep}{model}"))


async def learn_windows(app: CommandContext) -> None:
    """At start: the context windows the server reports for its models (llama.cpp's
    `n_ctx` is the window it really runs), for the status line, /status and automatic
    compaction. Quietly nothing when the server cannot say: the table or the
    `context_window` setting stands."""
    if app.running.settings.context_window or app.windows is None:
        return
    try:
        found = await fetch_models(app.running.settings, timeout=10)
    except RivuletError:
        return
    app.windows.learn(found)
    refresh_model_status(app)


async def switch_model(app: CommandContext, model: str) -> None:
    engine = app.engine
    if engine is None:
        return
    conv = engine.conversation
    model = model.strip()
    old = app.running.settings.model
    if model == old:
        app.notify(f"Already using {sanitize(model)}", markup=False)
        return
    engine.set_model(model)
    refresh_model_status(app)
    history = conv.history
    dropped = sum(1 for n, e in enumerate(history.entries) if e.item.get("type") == "reasoning"
                  and e.item.get("encrypted_content") and history.model_at(n) != model)
    lines = [f"Model: {model} (was {old}), from the next request on."]
    if dropped:
        items = "1 reasoning item" if dropped == 1 else f"{dropped} reasoning items"
        lines.append(f"{items} encrypted by an earlier model will not be sent to this one (only its own "
                     "model can read them); messages, calls and outputs are.")
    await show_note(app, lines)


async def choose_model(app: CommandContext, arg: str = "") -> None:
    if arg:
        await switch_model(app, arg)
        return
    app.chat.status.say("Asking the server for its models…")
    try:
        found = await list_models(app.running.settings)
    except RivuletError as exc:
        app.chat.status.say(None)
        app.notify(f"Cannot list models: {sanitize(exc.message)}", severity="error", markup=False)
        return
    app.chat.status.say(None)
    if found.source == "server" and app.windows is not None:
        app.windows.learn(found.models)
    if found.source == "server":
        note = f"{len(found.models)} models from the server"
    else:
        note = f"from the `models` setting: {found.error}"
    choices = [Choice(m.id, help=f"{m.context_window:,} tokens" if m.context_window else "") for m in found.models]
    picked = await app.push_screen_wait(ChoiceScreen("Model for the next requests", choices,
                                                     current=app.running.settings.model, note=note))
    if picked:
        await switch_model(app, picked)


async def choose_effort(app: CommandContext, arg: str = "") -> None:
    if not arg:
        choices = [Choice(e) for e in EFFORTS] + [Choice(DEFAULT_EFFORT, help="send none: the server decides")]
        current = app.running.settings.reasoning_effort or DEFAULT_EFFORT
        arg = await app.push_screen_wait(ChoiceScreen("Reasoning effort for the next requests", choices,
                                                      current=current)) or ""
        if not arg:
            return
    level = arg.strip().lower()
    if level not in (*EFFORTS, *MORE_EFFORTS, DEFAULT_EFFORT):
        app.notify(f"Unknown effort {sanitize(arg)!r}: one of {', '.join(EFFORTS)}, or {DEFAULT_EFFORT}",
                   severity="warning", markup=False)
        return
    effort = None if level == DEFAULT_EFFORT else level
    app.running.engine.set_effort(effort)
    refresh_model_status(app)
    app.notify(f"Reasoning effort: {level}, from the next request on", markup=False)

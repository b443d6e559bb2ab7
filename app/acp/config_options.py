"""The session's model as an ACP config option (a select, category "model"): the server's
models (`GET /models`, else the configured `models` list, as /model lists them), the one
in use first; choosing one switches from the next request on, as /model does."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp.schema import SessionConfigOptionSelect

    from rivulet.core.config import Settings

MODEL = "model"
LIST_WAIT = 5.0  # seconds a session's start waits for the server's model list


async def model_names(settings: Settings) -> list[str]:
    """The models to offer: the server's or the configured ones; the current one alone when
    neither can be had (the editor still shows which model runs)."""
    from rivulet.core.errors import RivuletError
    from rivulet.core.protocol.models import list_models

    try:
        found = [m.id for m in (await list_models(settings, timeout=LIST_WAIT)).models]
    except RivuletError:
        found = []
    return list(dict.fromkeys([settings.model, *found]))


def model_option(current: str, names: list[str]) -> SessionConfigOptionSelect:
    from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption

    return SessionConfigOptionSelect(id=MODEL, name="Model", type="select", category="model", current_value=current,
                                     options=[SessionConfigSelectOption(value=n, name=n)
                                              for n in dict.fromkeys([current, *names])])

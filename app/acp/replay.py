"""A saved rivulet session as the updates `session/load` replays: each user message as
`user_message_chunk`s (its text; each attachment by name), answers and reasoning
summaries as message and thought chunks, each call as a `tool_call` with its end status
and output (a patch with its diff), the server's tools as theirs, each plan as a `plan`.
Only what history holds is replayed: committed items."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rivulet.app.acp import tool_calls as tc
from rivulet.app.acp.subagents import saved_content
from rivulet.core import items as it
from rivulet.core.kinds.registry import kind_of
from rivulet.core.subagents.tool import is_agent_call

if TYPE_CHECKING:
    from acp.helpers import SessionUpdate


def replay(items: list[dict[str, Any]], workspace: Path,
           subagent_items: dict[str, list[dict[str, Any]]] | None = None) -> Iterator[SessionUpdate]:
    """`subagent_items`: each subagent's items, by its `spawn_agent` call's id (Session.subagent_items)."""
    from acp import (
        start_tool_call,
        update_agent_message_text,
        update_agent_thought_text,
        update_user_message_text,
    )

    from rivulet.core.kinds.calls import output_text
    from rivulet.core.turn.attachments import describe_content

    outputs = {it.call_id(i): i for i in items if it.is_output(i)}
    for item in items:
        kind = kind_of(item).name
        if kind == "user":
            for piece in describe_content(item):
                text = piece.text if piece.kind == "text" else f"[{piece.kind}: {piece.path or 'pasted'}]"
                if text:
                    yield update_user_message_text(text)
        elif kind == "answer":
            text = it.message_text(item) or ""
            if text:
                yield update_agent_message_text(text)
        elif kind == "reasoning":
            summary = "\n\n".join(str(p.get("text") or "") for p in item.get("summary") or [] if isinstance(p, dict))
            if summary:
                yield update_agent_thought_text(summary)
        elif (plan := tc.plan_update(item)) is not None:
            yield plan
        elif kind in ("call", "hosted") and not it.is_output(item) and tc.is_tool_item(item):
            key = tc.call_key(item, str(item.get("id") or ""))
            output = outputs.get(key)
            if is_agent_call(item):
                said = output_text(output) if output is not None else None
                status = tc.agent_status(said) if said is not None else "failed"
                content = saved_content(item, (subagent_items or {}).get(key, []), said)
            elif it.is_call(item):
                status = tc.output_status(output) if output is not None else "failed"
                content = [*(tc.patch_diffs(tc.patch_text(item), workspace) if tc.is_patch(item) else []),
                           *(tc.output_content(output_text(output)) if output is not None
                             else tc.text_content("(no result)"))]
                if not tc.is_patch(item):
                    content = [*tc.call_content(item, workspace), *content]
            else:
                status, content = tc.hosted_status(item), tc.call_content(item, workspace)
            yield start_tool_call(key, tc.title_of(item), kind=tc.tool_kind(item), status=status,  # type: ignore[arg-type]
                                  content=content)

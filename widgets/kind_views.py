"""The screen's half of the item-kind registry (core/kinds): for each kind, the widget
of its history entry, its live pane while it streams, and how it is drawn once frozen.
A kind with none registered here is drawn from its view (`ViewEntry`, a status pane
while it streams): a new item type needs no line in this file to be shown."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.console import RenderableType
from textual.theme import Theme

from rivulet.core.kinds import kind_of

from . import frozen_views as fv
from .entries import (
    AssistantEntry,
    NoteEntry,
    OtherEntry,
    ReasoningEntry,
    ToolCallEntry,
    TranscriptEntry,
    UserEntry,
    ViewEntry,
)
from .live import LiveImage, LiveMessage, LiveOther, LivePane, LivePatch, LiveReasoning, LiveToolCall
from .note_line import NOTE_TYPE
from .subagent_pane import SUBAGENT_TYPE, SubagentPane, folded_renderable

Item = dict[str, Any]
# Whose arguments or code stream: a pane that shows them as they come.
STREAMING_CALLS = frozenset({"function_call", "custom_tool_call", "shell_call", "local_shell_call",
                             "apply_patch_call", "computer_call", "mcp_call", "code_interpreter_call"})


@dataclass(frozen=True)
class KindWidgets:
    entry: Callable[[Item, str], TranscriptEntry]
    live: Callable[[Item, str, bool], LivePane]  # (item, id, show raw reasoning)
    frozen: Callable[[Item, Item | None, Theme], RenderableType]


def _live_call(item: Item, item_id: str, show_raw: bool) -> LivePane:
    if item.get("type") in ("function_call", "custom_tool_call") and item.get("name") == "apply_patch":
        return LivePatch(item, item_id)
    return LiveToolCall(item, item_id) if item.get("type") in STREAMING_CALLS else LiveOther(item, item_id)


def _live_hosted(item: Item, item_id: str, show_raw: bool) -> LivePane:
    if item.get("type") == "image_generation_call":
        return LiveImage(item, item_id)
    return _live_call(item, item_id, show_raw)


def _status(item: Item, item_id: str, show_raw: bool) -> LivePane:
    return LiveOther(item, item_id)


def _message(item: Item, item_id: str, show_raw: bool) -> LivePane:
    return LiveMessage(item, item_id)


GENERIC = KindWidgets(ViewEntry, _status, fv.viewed)
VIEWS: dict[str, KindWidgets] = {
    "user": KindWidgets(UserEntry, _message, fv.user),
    "answer": KindWidgets(AssistantEntry, _message, fv.answer),
    "reasoning": KindWidgets(ReasoningEntry, lambda i, k, raw: LiveReasoning(i, k, raw), fv.reasoning),
    "call": KindWidgets(ToolCallEntry, _live_call, fv.call),
    "output": KindWidgets(OtherEntry, _status, fv.other),
    "hosted": KindWidgets(ViewEntry, _live_hosted, fv.viewed),
    "compaction": KindWidgets(OtherEntry, _status, fv.other),
    "other": KindWidgets(OtherEntry, _status, fv.other),
}


def widgets_for(item: Item) -> KindWidgets:
    return VIEWS.get(kind_of(item).name, GENERIC)


def entry_for(item: Item, item_id: str) -> TranscriptEntry:
    if item.get("type") == "message" and item_id.startswith("note-"):
        return NoteEntry(item, item_id)  # the client's note of an interrupted turn
    if item.get("type") == SUBAGENT_TYPE:
        return SubagentPane(item)  # the transcript's own record of a subagent (a resumed one's)
    return widgets_for(item).entry(item, item_id)


def live_pane_for(item: Item, item_id: str, show_raw: bool = False) -> LivePane:
    return widgets_for(item).live(item, item_id, show_raw)


def entry_renderable(item: Item, output: Item | None, theme: Theme) -> RenderableType:
    """What an entry widget shows, as one Rich renderable (all text sanitised)."""
    if item.get("type") == "error":
        return fv.error(item, output, theme)  # the screen's own error line, not an item of the API's
    if item.get("type") == SUBAGENT_TYPE:
        return folded_renderable(item, theme)  # a subagent's pane, folded (widgets/subagent_pane.py)
    if item.get("type") == NOTE_TYPE:
        return fv.note_line(item, output, theme)  # the transcript's own note (widgets/note_line.py)
    return widgets_for(item).frozen(item, output, theme)

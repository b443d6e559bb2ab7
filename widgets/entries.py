"""Committed history entries: one widget per committed item, built only on item.completed
(which widget each kind of item gets: kind_views.py).

Every string that came from the model or a tool goes through `sanitize` first.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Static

from rivulet.core import items as it
from rivulet.core.kinds import kind_of
from rivulet.core.kinds.calls import call_body, output_text, patch_text, shell_command
from rivulet.core.kinds.reasoning import heading_of, reasoning_raw, reasoning_summary
from rivulet.core.sanitize import sanitize

from .entry_keys import FocusableEntry
from .frozen import FrozenMarkdown
from .hosted_view import citations_text, view_renderable
from .messages import OpenRawItem
from .patch_view import committed_patch
from .segmenter import split_segments

Item = dict[str, Any]


# Function names of MCP tools (`server__tool`) -> (server, the server's tool name), filled
# in by the app as servers become ready, so a call shows as "server · tool".
MCP_LABELS: dict[str, tuple[str, str]] = {}


# The configured servers' names: a call of one before its server is ready (a resumed
# session's) still shows as "server · tool", with the tool's function-name part.
MCP_SERVERS: set[str] = set()


def remember_mcp_tool(name: str, server: str, tool: str) -> None:
    MCP_LABELS[name] = (server, tool)


def call_title(item: Item) -> str:
    kind = item.get("type", "call")
    name = item.get("name") or {"shell_call": "shell", "local_shell_call": "shell",
                                "apply_patch_call": "apply_patch"}.get(kind, kind)
    label = MCP_LABELS.get(name) if kind == "function_call" and isinstance(name, str) else None
    if label is not None:
        return sanitize(f"{label[0]} · {label[1]}")
    if kind == "function_call" and isinstance(name, str):
        server = next((s for s in MCP_SERVERS if name.startswith(f"{s}__") and len(name) > len(s) + 2), None)
        if server is not None:
            return sanitize(f"{server} · {name[len(server) + 2:]}")
    return sanitize(str(name))


class TranscriptEntry(FocusableEntry, Vertical):
    """Base of the history entries: holds the committed item exactly as sent."""

    DEFAULT_CLASSES = "entry"

    def __init__(self, item: Item, item_id: str) -> None:
        super().__init__()
        self.item = item
        self.item_id = item_id
        self.output: Item | None = None  # a call's output, once known (only calls have one)

    def copy_text(self) -> str:
        return kind_of(self.item).copy_text(self.item, self.output)

    def on_click(self) -> None:
        """Click an entry to see the raw item as committed."""
        self.post_message(OpenRawItem(self.item_id))


def user_view(item: Item) -> tuple[str, list[str]]:
    """A user message as its prompt and one line per attachment (a file's name and
    size, an image's name, type and size: never the file's text nor base64): its
    kind's view (core/kinds/messages.py), sanitised."""
    view = kind_of(item).view(item)
    return sanitize(view.title), [sanitize(line) for line in view.lines]


class UserEntry(TranscriptEntry):
    def compose(self) -> ComposeResult:
        prompt, attached = user_view(self.item)
        yield Static(Text(prompt), markup=False)
        for line in attached:
            yield Static(Text(line), markup=False, classes="attached")


class AssistantEntry(TranscriptEntry):
    """The committed answer as ONE widget of pre-rendered lines (`FrozenMarkdown`, Rich
    Markdown rendered once per width and theme), as the live pane drew it. Textual's
    Markdown widget made a widget per block (~90 for a long answer): its compose was
    ~0.7 s of a turn, and each later layout pass walked them all, so the answer's last
    deltas and "Done" waited behind it. The live pane's finished segments are handed to
    it (frozen.py `Handoff`): both are as wide, so they are not rendered again."""

    def compose(self) -> ComposeResult:
        segments = split_segments(sanitize(it.message_text(self.item) or ""))
        yield FrozenMarkdown(segments or [""], classes="answer")
        refs = citations_text(self.item)
        if refs is not None:  # the answer's url_citation sources, numbered, linked (hosted_view.py)
            yield Static(refs, classes="citations")


class ReasoningEntry(TranscriptEntry):
    """Collapsed by default: the title is the summary's last heading. The summary is one
    widget of pre-rendered lines too (a Markdown widget tree per Thought, even collapsed,
    was composed and laid out with every turn)."""

    def compose(self) -> ComposeResult:
        summary = sanitize(reasoning_summary(self.item))
        raw = sanitize(reasoning_raw(self.item))
        heading = heading_of(summary)
        if summary or raw:
            title = f"Thought: {heading}" if heading else "Thought"
            with Collapsible(title=Text(title), collapsed=True):  # type: ignore[arg-type]  # never markup
                yield FrozenMarkdown(split_segments(summary or raw) or [""])
        else:
            yield Static(Text("Reasoning (no summary)", style="italic"))


class ToolCallEntry(TranscriptEntry):
    """A call, its output as a running tool writes it, and its output once committed.
    A patch shows as the files it changes and their diff; a shell call as its command."""

    OUTPUT_TAIL = 3000

    def __init__(self, item: Item, item_id: str) -> None:
        super().__init__(item, item_id)
        self._live_output = ""  # `output` is set before mounting when it is known (a resumed session)

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble(("⚙ ", "bold"), (call_title(self.item), "bold")), classes="tool-title")
        patch = patch_text(self.item)
        if patch is not None:
            yield Static(committed_patch(patch), classes="tool-args")
        else:
            body = sanitize(shell_command(self.item) or call_body(self.item))
            if body:
                yield Static(Text(_clip(body)), classes="tool-args")
        if self.output is not None:
            yield Static(Text("→ " + _clip(sanitize(output_text(self.output)))), classes="tool-output")
        else:
            yield Static(Text("… waiting for output", style="italic"), classes="tool-output")

    def append_output(self, text: str) -> None:
        """Output of the running tool (display only; the committed output replaces it)."""
        self._live_output = (self._live_output + sanitize(text))[-self.OUTPUT_TAIL:]
        for shown in self.query(".tool-output").results(Static):  # none until composed
            shown.update(Text(self._live_output, style="italic"))

    def set_output(self, output: Item) -> None:
        self.output = output  # what compose shows, when it has not run yet (a mount not waited for)
        text = sanitize(output_text(output))
        for shown in self.query(".tool-output").results(Static):
            shown.update(Text("→ " + _clip(text)))


class ViewEntry(TranscriptEntry):
    """An item drawn from its kind's view: what one of the server's own tools did (web
    search, code interpreter, MCP, ...), or an item kind with no widget of its own."""

    def compose(self) -> ComposeResult:
        yield Static(view_renderable(self.item), classes="hosted")


class NoteEntry(TranscriptEntry):
    """A note the client left in history for the model (an interrupted turn)."""

    def compose(self) -> ComposeResult:
        yield Static(Text("⏹ turn interrupted — the model will be told on the next turn", style="italic"))


class ErrorEntry(TranscriptEntry):
    def __init__(self, message: str, item_id: str = "error") -> None:
        super().__init__({"type": "error", "message": message}, item_id)
        self.message = message

    def compose(self) -> ComposeResult:
        yield Static(Text("✗ " + sanitize(self.message)))


class OtherEntry(TranscriptEntry):
    """Items without a dedicated view (hosted tools, compaction, ...)."""

    def compose(self) -> ComposeResult:
        kind = sanitize(str(self.item.get("type", "item")))
        status = self.item.get("status")
        bits = [kind] + ([sanitize(str(status))] if status else [])
        yield Static(Text("• " + " · ".join(bits)))


def _clip(text: str, limit: int = 4000) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit} more characters)"

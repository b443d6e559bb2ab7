"""Live item panes: transient display of the active item while it streams.

A delta only appends to a pane's pending buffer (O(1)); the app's frame tick calls
`flush()` at most once per frame, so widget updates never fall behind the deltas.
Text is newline-gated: a tick shows whole lines, and a partial line only once it has
waited a few ticks, so words do not flicker in and out as Markdown re-parses.

A long message is split into Markdown segments at paragraph boundaries outside code
fences: only the open segment is rendered again, and it stays small, so the cost of
an update does not grow with the length of the message.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from rivulet.core.kinds.reasoning import heading_of
from rivulet.core.sanitize import sanitize
from rivulet.core.tools.patch_format import JsonStringField, PatchParser

from .entries import call_title
from .frozen import MarkdownTail
from .patch_view import render_patch
from .segmenter import Segmenter
from .sizing import LaidOutOnce

PARTIAL_LINE_TICKS = 3  # show a partial line after it waited this many ticks
# The live message grows by this many lines at a time (blank until written) while lines
# come fast: most new lines then cost a repaint of the tail, not a layout pass and a scroll
# of the screen (200 deltas/s: 0.55 CPU s/s with steps of 1 line, 0.48 with 8;
# benchmarks/README.md). A slow stream grows by its lines alone (widgets/frozen.py FAST_TICKS).
LIVE_HEIGHT_STEP = 8


class LivePane(LaidOutOnce, Vertical):
    DEFAULT_CLASSES = "live"

    def __init__(self, item: dict[str, Any], item_id: str) -> None:
        super().__init__()
        self.item = item
        self.item_id = item_id
        self._pending: list[str] = []
        self._tail_age = 0
        self.text = ""  # what a text pane (reasoning, tool input) shows so far
        self.shown = 0  # characters taken for display so far
        self.flushing = False  # a flush is between its awaits (tests wait for it to end)

    def add_delta(self, kind: str, text: str) -> None:
        self._pending.append(sanitize(text))

    def add_part(self, kind: str, index: int | None) -> None:
        """A new content/summary part starts."""

    def _take(self, force: bool = False) -> str:
        if not self._pending:
            return ""
        text = "".join(self._pending)
        if not force:
            cut = text.rfind("\n") + 1
            if cut == 0:
                self._tail_age += 1
                if self._tail_age < PARTIAL_LINE_TICKS:
                    self._pending = [text]
                    return ""
                cut = len(text)
            self._pending = [text[cut:]] if cut < len(text) else []
            text = text[:cut]
        else:
            self._pending = []
        self._tail_age = 0
        self.shown += len(text)
        return text

    async def flush(self, force: bool = False) -> None:
        """Show what is pending. Called by the app's frame tick (only once mounted)."""

    TAIL = 3000  # characters a text pane shows: the update cost stays bounded however long it gets

    def _flush_tail(self, text: str, prefix: str = "") -> None:
        """Append to the pane's text and show its tail in the `.live-body` Static."""
        if text:
            self.text += text
            self.query_one(".live-body", Static).update(Text((prefix + self.text)[-self.TAIL:]))

    async def close(self) -> None:
        """Stop any background rendering (the pane is going away or was discarded)."""

    def mark_discarded(self, reason: str) -> None:
        self.add_class("discarded")
        self.border_subtitle = Text(f"not committed: {sanitize(reason)}")


class LiveMessage(LivePane):
    """The streaming assistant message: Markdown, appended once per frame.

    The frame tick is the stream: it already coalesces every delta of a frame into
    one update. The `Segmenter` cuts the text at places where a cut does not change
    the rendering; one `MarkdownTail` widget shows the finished segments (rendered
    once, as the committed entry renders them) and the open one, of which a frame
    renders only the last block. So the pane is two widgets however long the message:
    a frame costs a small render, and a layout pass only when the height crossed a step
    (a Textual `Markdown` would be a widget per block, each measured again on every
    frame). An append at the end of a 1 MB message costs what it costs at its start.
    """

    def __init__(self, item: dict[str, Any], item_id: str) -> None:
        super().__init__(item, item_id)
        self.segmenter = Segmenter()
        self._tail = MarkdownTail(step=LIVE_HEIGHT_STEP, classes="segment")

    def compose(self) -> ComposeResult:
        yield Static(Text("assistant", style="bold"), classes="live-label")
        yield self._tail

    @property
    def segments(self) -> int:
        return self.segmenter.segments

    def grow_by_line(self) -> None:
        """Grow a line at a time, no blank lines reserved: in a pane a few lines high that
        shows its newest (a subagent's), the reserve would be what shows."""
        self._tail.step = 1

    async def flush(self, force: bool = False) -> None:
        text = self._take(force)
        if text:
            self._tail.add(self.segmenter.feed(text), final=force)
        self._tail.tick()  # one frame: a reserve of blank lines goes once the lines slow down

    async def close(self) -> None:
        """The committed entry comes: the open segment, shown to its end, is handed to it with
        the finished ones, so that it is not rendered again (a long line would be, whole)."""
        await self.flush(force=True)
        self._tail.hand_over()


class LiveReasoning(LivePane):
    """Reasoning summary parts as they stream. Raw reasoning text shows while no summary
    has come (all a local model sends), and always with ctrl+r."""

    def __init__(self, item: dict[str, Any], item_id: str, show_raw: bool = False) -> None:
        super().__init__(item, item_id)
        self.show_raw = show_raw
        self.raw: list[str] = []
        # Local reasoning models (llama.cpp, gpt-oss) send only raw reasoning text: it is
        # all the reasoning there is, so it shows until a summary arrives.
        self.summary_seen = False

    def compose(self) -> ComposeResult:
        yield Static(Text("thinking…", style="bold"), classes="live-label")
        yield Static("", classes="live-body")

    def add_delta(self, kind: str, text: str) -> None:
        if kind == "reasoning_text":
            self.raw.append(sanitize(text))
            if self.show_raw or not self.summary_seen:
                self._pending.append(sanitize(text))
        else:
            self.summary_seen = True
            self._pending.append(sanitize(text))

    def add_part(self, kind: str, index: int | None) -> None:
        if kind == "summary" and self.summary:
            self._pending.append("\n\n")

    @property
    def summary(self) -> str:
        return self.text

    @property
    def heading(self) -> str | None:
        return heading_of(self.text + "".join(self._pending))

    async def flush(self, force: bool = False) -> None:
        self._flush_tail(self._take(force=True))


class LiveToolCall(LivePane):
    """Function-call arguments / custom-tool input as the model writes them (a shell
    call shows its command line, decoded from the JSON arguments as they stream)."""

    def compose(self) -> ComposeResult:
        icon, title = ("▶ ", "code interpreter") if self.item.get("type") == "code_interpreter_call" else \
            ("⚙ ", call_title(self.item))  # the API's code interpreter: its code streams here
        yield Static(Text.assemble((icon, "bold"), (title, "bold"), (" (writing…)", "italic")),
                     classes="live-label")
        yield Static("", classes="live-body")

    def __init__(self, item: dict[str, Any], item_id: str) -> None:
        super().__init__(item, item_id)
        is_shell = item.get("type") == "function_call" and item.get("name") == "shell"
        self._command = JsonStringField("command") if is_shell else None

    def add_delta(self, kind: str, text: str) -> None:
        if self._command is not None:
            text = self._command.feed(text)
        self._pending.append(sanitize(text))

    async def flush(self, force: bool = False) -> None:
        self._flush_tail(self._take(force=True), "$ " if self._command is not None else "")


class LivePatch(LivePane):
    """An apply_patch call being written: its input deltas (or, for the function
    fallback, the decoded `input` string of its JSON arguments) feed the incremental
    patch parser, and each frame shows the files so far and the tail of the diff."""

    def __init__(self, item: dict[str, Any], item_id: str) -> None:
        super().__init__(item, item_id)
        self.parser = PatchParser()
        self._json = JsonStringField("input") if item.get("type") == "function_call" else None

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble(("⚙ ", "bold"), ("apply_patch", "bold"), (" (writing…)", "italic")),
                     classes="live-label")
        yield Static("", classes="live-body")

    def add_delta(self, kind: str, text: str) -> None:
        # Raw text: the parser must see the patch as sent; rendering sanitises it.
        self._pending.append(self._json.feed(text) if self._json is not None else text)

    async def flush(self, force: bool = False) -> None:
        text = self._take(force=True)
        if text:
            self.parser.feed(text)
            self.query_one(".live-body", Static).update(render_patch(self.parser, writing=True))


class LiveOther(LivePane):
    """Hosted tool items (web search, MCP, ...): a status line."""

    def compose(self) -> ComposeResult:
        yield Static(Text(f"• {sanitize(str(self.item.get('type', 'item')))} …"), classes="live-label")

    def set_status(self, status: str) -> None:
        self.query_one(".live-label", Static).update(
            Text(f"• {sanitize(str(self.item.get('type', 'item')))} · {sanitize(status)}"))

    async def flush(self, force: bool = False) -> None:
        self._take(force=True)


class LiveImage(LiveOther):
    """Image generation: its status, then each partial image as it arrives, drawn."""

    def compose(self) -> ComposeResult:
        yield Static(Text("🖼 image generation …"), classes="live-label")
        yield Static("", classes="live-body")

    def set_status(self, status: str) -> None:
        self.query_one(".live-label", Static).update(Text(f"🖼 image generation · {sanitize(status)}"))

    def show_partial(self, data_b64: str, index: int | None, saved: str | None) -> None:
        from .image_view import image_renderable

        where = f" · saved {sanitize(saved)}" if saved else ""
        self.set_status(f"partial image {(index or 0) + 1}{where}")
        self.query_one(".live-body", Static).update(image_renderable(data_b64))

"""The bus's events as lines on standard output, printed once, in order, never redrawn.

An answer is printed as it streams, a finished Markdown block at a time (blocks.py),
rendered by Rich from sanitised text (Markdown is parsed, never Rich markup). Reasoning
is one dim line or two; tool calls are one line, a patch shows its text, a command's
output is shown capped; an answer's sources (web pages, files) follow it, numbered as
the chat shows them; a hosted tool's item is its title and lines (queries, logs, the
code interpreter's files and images), capped; notices, hook notes, retries and errors
are one line each.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from typing import Any, TextIO

from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

from rivulet.app.hook_lines import hook_lines
from rivulet.app.plain.blocks import BlockCutter
from rivulet.app.subagent_lines import SubagentLines, shown_arguments
from rivulet.core import items as it
from rivulet.core.hooks.events import HookNote
from rivulet.core.hosted_items import citation_line, citations
from rivulet.core.kinds import kind_of
from rivulet.core.sanitize import sanitize
from rivulet.core.turn import bus as b

_TRAILING = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$", re.M)  # blanks before a line's end (and its resets)
OUTPUT_LINES = 12  # of a tool's output shown under its call
REASONING_CHARS = 150  # with "thinking: ", two lines at 80 columns


def console_for(stream: TextIO) -> Console:
    """Plain where the terminal is (TERM=dumb, NO_COLOR, a pipe: no colour, no links)."""
    return Console(file=stream, markup=False, highlight=False, emoji=False, soft_wrap=False,
                   no_color="NO_COLOR" in os.environ or os.environ.get("TERM") == "dumb")


class PlainPrinter:
    def __init__(self, stream: TextIO | None = None) -> None:
        self.out = stream or sys.stdout
        self.console = console_for(self.out)
        self._cutters: dict[str, BlockCutter] = {}  # a streaming message's open block, by item id
        self._streamed: set[str] = set()  # items whose text was printed as it came
        self._raw_open = False  # a command's output ended without a newline
        self._blocks: list[str] = []  # finished Markdown blocks of this burst, not yet printed
        self._flush_due = False
        self._subagents = SubagentLines()

    def routes(self) -> dict[type, Any]:
        return {b.ItemDelta: self.delta, b.ItemCompleted: self.completed, b.Notice: self.notice,
                HookNote: self.hook_note, b.Retrying: self.retrying, b.ErrorOccurred: self.error,
                b.TurnCompleted: self.turn_done, b.TurnInterrupted: self.interrupted,
                **dict.fromkeys(SubagentLines.TYPES, self.subagent)}

    def __call__(self, event: b.BusEvent) -> None:
        handler = self.routes().get(type(event))
        if handler is not None:
            handler(event)

    # ---- text --------------------------------------------------------------------------

    def markdown(self, text: str) -> None:
        """A finished block: rendered at the end of the current burst of events, with the
        other blocks of the burst (one Rich render for 10,000 small items, not 10,000)."""
        if not text.strip():
            return
        self._blocks.append(text)
        if self._flush_due:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a direct call): at once
            self.flush()
            return
        self._flush_due = True
        loop.call_soon(self.flush)

    def flush(self) -> None:
        """Print the blocks waiting, in order (also before any other line)."""
        self._flush_due = False
        if not self._blocks:
            return
        blocks, self._blocks = self._blocks, []
        text = "\n\n".join(block.rstrip("\n") for block in blocks) + "\n"
        with self.console.capture() as captured:
            self.console.print(Markdown(sanitize(text), hyperlinks=False))
        # Rich pads every line to the width: trailing blanks a screen reader reads and a copy keeps.
        self.out.write(_TRAILING.sub(r"\1", captured.get()))
        self.out.flush()

    def line(self, text: str, style: str | None = None) -> None:
        self.flush()
        self.console.print(Text(sanitize(text), style=style or ""), soft_wrap=True)
        self.out.flush()

    def raw(self, text: str) -> None:
        """A command's output as it comes (`!cmd`), sanitised, not rendered."""
        self.flush()
        self._raw_open = not text.endswith("\n") if text else self._raw_open
        self.out.write(sanitize(text))
        self.out.flush()

    def end_raw(self) -> None:
        if self._raw_open:
            self.out.write("\n")
            self._raw_open = False

    def delta(self, event: b.ItemDelta) -> None:
        if event.kind not in ("output_text", "refusal"):
            return
        cutter = self._cutters.setdefault(event.item_id, BlockCutter())
        self._streamed.add(event.item_id)
        for block in cutter.feed(event.delta):
            self.markdown(block)

    def completed(self, event: b.ItemCompleted) -> None:
        item = event.item
        kind = kind_of(item).name
        if kind == "answer":
            self.answer(event.item_id, item)
        elif kind in ("user", "compaction", "other"):
            return  # the user typed it (it is on the screen already), or nothing to say
        elif kind == "reasoning":
            self.reasoning(item)
        elif kind == "call":
            if it.is_call(item):  # a hosted shell's call shows with the output the server sends
                self.call(item)
        elif kind == "output":
            self.output(item)
        else:  # the server's tools, and any kind without lines of its own here: its view
            self.view(item)

    def answer(self, item_id: str, item: it.Item) -> None:
        cutter = self._cutters.pop(item_id, None)
        if cutter is not None:
            self.markdown(cutter.finish())
        elif item_id not in self._streamed:
            self.markdown(it.message_text(item) or "")
        self._streamed.discard(item_id)
        self.sources(item)

    def sources(self, item: it.Item) -> None:
        """The web pages and files the answer cites, under it (citation_line: sanitised, bounded)."""
        refs = citations(item)
        if refs:
            self.line("Sources", "bold")
        for ref in refs:
            self.line(citation_line(ref), "dim")

    def view(self, item: it.Item) -> None:
        view = kind_of(item).view(item)
        self.line(f"→ {view.title}", "bold")
        rows = [row for line in view.lines for row in line.splitlines()]
        for row in rows[:OUTPUT_LINES]:
            self.line("  " + row, "dim")
        if len(rows) > OUTPUT_LINES:
            self.line(f"  … {len(rows) - OUTPUT_LINES} more lines", "dim")

    def reasoning(self, item: it.Item) -> None:
        parts = item.get("summary") or item.get("content") or []
        text = " ".join(str(p.get("text") or "") for p in parts if isinstance(p, dict)).strip()
        if text:
            short = " ".join(text.split())
            short = short if len(short) <= REASONING_CHARS else short[:REASONING_CHARS - 1] + "…"
            self.line(f"thinking: {short}", "dim")

    def call(self, item: it.Item) -> None:
        name = str(item.get("name") or it.item_type(item))
        if name == "apply_patch":
            patch = item.get("input")
            if patch is None:
                try:
                    patch = json.loads(item.get("arguments") or "{}").get("input")
                except (ValueError, AttributeError):
                    patch = None
            self.line("→ apply_patch", "bold")
            if isinstance(patch, str):
                for row in patch.rstrip("\n").splitlines():
                    self.line("  " + row, "green" if row.startswith("+") else "red" if row.startswith("-") else None)
            return
        self.line(f"→ {name}: {shown_arguments(item)}", "bold")

    def output(self, item: it.Item) -> None:
        out = item.get("output")
        text = out if isinstance(out, str) else json.dumps(out)
        rows = text.rstrip("\n").splitlines()
        for row in rows[:OUTPUT_LINES]:
            self.line("  " + row, "dim")
        if len(rows) > OUTPUT_LINES:
            self.line(f"  … {len(rows) - OUTPUT_LINES} more lines", "dim")

    def subagent(self, event: b.BusEvent) -> None:
        """A subagent's start, tool calls and end: a line each (its text streams in no pane here)."""
        line = self._subagents(event)
        if line is not None:
            self.line(line, "cyan")

    # ---- side notes --------------------------------------------------------------------

    def notice(self, event: b.Notice) -> None:
        self.line(f"note: {event.text}", "yellow")

    def hook_note(self, note: HookNote) -> None:
        for row in hook_lines(note):
            self.line(row, "dim" if not (note.failed or note.blocked) else "yellow")

    def retrying(self, event: b.Retrying) -> None:
        from rivulet.core.turn.retry_policy import waiting_text

        count = (f"{event.attempt}/{event.max_attempts}" if event.gives_up_in is None
                 else waiting_text(event.gives_up_in))  # a local server restarting: the time left
        self.line(f"retrying ({count}): {event.error.kind}: {event.error.message}", "dim")

    def error(self, event: b.ErrorOccurred) -> None:
        self.flush_open()
        self.line(f"error: {event.error.kind}: {event.error.message}", "red")

    def interrupted(self, _: b.TurnInterrupted) -> None:
        self.flush_open()
        self.line("interrupted", "yellow")

    def turn_done(self, event: b.TurnCompleted) -> None:
        self.flush_open()
        if event.stopped:
            self.line(f"stopped: {event.stopped}", "yellow")
        if event.no_answer:
            self.line(f"⚠ {event.no_answer}", "yellow")

    def flush_open(self) -> None:
        """A message cut before its end: what it had is printed, once."""
        for cutter in self._cutters.values():
            self.markdown(cutter.finish())
        self._cutters.clear()

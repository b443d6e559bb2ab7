"""The status line: working/elapsed, reasoning heading, retries; on the right the
sandbox, the model and its reasoning effort, tokens used and the percent of the
context window left (core `context_left`: the last response's usage against the
window the app worked out from the setting, the server's report or the table)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from rivulet.core.sanitize import sanitize
from rivulet.core.turn.turn_cost import cost_pieces
from rivulet.core.turn.usage import context_left


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


DROP = 6  # the first parts to give way (the session's tokens used); higher ranks go first
KEEP = 0  # state, model, context left: always shown whole
SEP = " • "
SANDBOX = 5  # the sandbox gives way before the turn's own figures (it is in /status)
# The last turn's cost, piece by piece (footer_pieces): its time to first token and the
# cached/reasoning detail go first, then (after the sandbox) its token counts, its speed,
# and its dollars last, so the tokens and speed show at 120 columns (issue 42.7).
COST_RANKS = {"first_token": DROP, "token_detail": DROP, "tokens": 4, "speed": 3, "dollars": 2}


def footer_pieces(cost: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The turn's cost for the status line: core's pieces (turn_cost.cost_pieces), with the
    token counts split from their detail (cached, reasoning), which gives way first."""
    plain = {k: v for k, v in cost.items() if k not in ("cached", "reasoning")}
    pieces = cost_pieces(plain)
    details = [f"{cost[k]:,} {k}" for k in ("cached", "reasoning") if cost.get(k)]
    if details:
        pieces.insert(1, ("token_detail", f" ({', '.join(details)})"))
    return pieces


def short_model(model: str) -> str:
    """A model file's name without its folders (llama-server names its model by the path
    it was given: `/work/models/qwen-coder-1.5b.gguf`); any other name as it is."""
    if model.lower().endswith(".gguf") and "/" in model:
        return model.rsplit("/", 1)[1]
    return model


@dataclass(frozen=True)
class Part:
    text: str
    rank: int  # DROP first ... KEEP never
    side: str  # "left" | "right"
    joins: bool = False  # glued to the part before it (no separator)
    note: bool = False  # a message: cut at a word, and said whole elsewhere, if it does not fit


def _join(parts: list[Part]) -> str:
    out = ""
    for part in parts:
        out += part.text if part.joins or not out else SEP + part.text
    return out


def shorten_at_word(text: str, room: int) -> str:
    """The words of `text` that fit in `room` cells with a "…" after them (never half a word)."""
    words = text.split(" ")
    kept = ""
    for word in words:
        longer = f"{kept} {word}" if kept else word
        if len(longer) + 1 > room:
            break
        kept = longer
    return kept.rstrip(":,;") + "…" if kept else ""


def fit_status(parts: list[Part], width: int) -> tuple[str, str, str | None]:
    """(left, right, the note if it had to be cut): the less useful parts give way first,
    then a note is cut at a word. At least one space stays between the sides."""
    shown = list(parts)
    for rank in range(DROP, KEEP, -1):
        if len(_join([p for p in shown if p.side == "left"])) + 1 + \
                len(_join([p for p in shown if p.side == "right"])) <= width:
            break
        shown = [p for p in shown if p.rank != rank]
    left = _join([p for p in shown if p.side == "left"])
    right = _join([p for p in shown if p.side == "right"])
    room = width - len(right) - 1
    if len(left) <= room:
        return left, right, None
    note = next((p.text for p in shown if p.note), None)
    return shorten_at_word(left, room), right, note


class StatusLine(Static):
    class NoteOverflowed(Message):
        """A note too long for the line: the app shows it whole in the transcript."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, model: str, effort: str | None = None, window: int | None = None, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.model = model
        self.effort = effort  # the reasoning effort sent (None: the server's default)
        self.window = window  # the model's context window in tokens (None: unknown)
        self.usage: dict[str, Any] | None = None  # the last response's: what the context holds
        self.state = "idle"  # idle | working | retrying | failed
        self.elapsed = 0
        self.heading: str | None = None
        self.subagents = 0  # subagents running now (issue 41)
        self.retry: str | None = None  # "reconnecting 2/4", or the wait for a local server
        self.note: str | None = None
        self.total_tokens = 0
        self.sandbox: str | None = None  # where shell commands run ("sandbox workspace-write", ...)
        self.profile: str | None = None  # the active [profiles.NAME], named before the model
        # The last turn's tokens, dollars and speed, as (what, text) pieces: each gives way in its turn.
        self.cost: Sequence[tuple[str, str]] | None = None
        self._overflowed: str | None = None  # the last note sent to the transcript for want of room
        # While working: "tab to steer" when there is a draft to steer (app/handlers/queue.py).
        self.steer_hint: Callable[[], str | None] | None = None

    def set_usage(self, usage: dict[str, Any] | None) -> None:
        if not usage:
            return
        total = usage.get("total_tokens")
        self.total_tokens += total if isinstance(total, int) and not isinstance(total, bool) else 0
        self.usage = usage
        self.refresh_line()

    def context_text(self) -> str | None:
        left = context_left(self.usage, self.window)
        return None if left is None else f"{left}% context left"

    def refresh_line(self) -> None:
        for cls in ("working", "retrying", "failed"):
            self.set_class(self.state == cls, cls)
        width = (self.size.width or 80) - 2  # the line's padding
        left, right, overflowed = fit_status(self._parts(), width)
        # Said once in the transcript, whole; but not a failure's: its error entry says it whole
        # already (it was said twice under a stopped turn: issue 42's field run).
        if overflowed and self.note and overflowed != self._overflowed and self.state != "failed":
            self._overflowed = overflowed
            self.post_message(self.NoteOverflowed(overflowed))
        line = Text(left)
        line.append(" " * max(1, width - len(left) - len(right)))
        line.append(right)
        self.update(line, layout=False)  # one line, always: no layout pass for the screen

    def _parts(self) -> list[Part]:
        """What the line would say with room for all of it, each with the rank it gives
        way in (DROP: first to go; KEEP: never dropped, at worst a note cut at a word)."""
        parts: list[Part] = []
        if self.state in ("working", "retrying"):
            parts.append(Part(f"Working ({self.elapsed}s", KEEP, "left"))
            parts.append(Part(" • esc to interrupt", 2, "left", joins=True))
            steer = self.steer_hint() if self.steer_hint is not None else None
            if steer:
                parts.append(Part(f" • {steer}", 3, "left", joins=True))
            parts.append(Part(")", KEEP, "left", joins=True))
            if self.subagents:  # before the heading: it says what runs, the heading what one thinks
                parts.append(Part(f"{self.subagents} subagent{'s' if self.subagents > 1 else ''} running", 1, "left"))
            if self.heading:
                parts.append(Part(sanitize(self.heading), 3, "left"))
            if self.retry:
                parts.append(Part(self.retry, KEEP, "left"))
        else:
            parts.append(Part(sanitize(self.note) if self.note else "Ready", KEEP, "left", note=bool(self.note)))
            if self.cost and self.state == "idle" and (self.note or "").startswith("Done in"):
                # the turn's footer, beside its own "Done in" only
                parts += [Part((" · " if what != "token_detail" else "") + sanitize(text),
                               COST_RANKS.get(what, DROP), "left", joins=True) for what, text in self.cost]
        if self.sandbox:
            parts.append(Part(self.sandbox, SANDBOX, "right"))
        model = sanitize(short_model(self.model)) + (f" {self.effort}" if self.effort else "")
        if self.profile:
            model = f"{sanitize(self.profile)}: {model}"
        parts.append(Part(model, KEEP, "right"))
        if self.total_tokens:
            parts.append(Part(f"{_k(self.total_tokens)} tokens used", DROP, "right"))
        context = self.context_text()
        if context:
            parts.append(Part(context, KEEP, "right"))
        return parts

    def on_resize(self) -> None:
        self.refresh_line()

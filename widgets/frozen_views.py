"""How an old (frozen) history entry of each kind is drawn: one Rich renderable that
looks like the entry's widget did (frozen_entries.py draws these as lines). All text
sanitised, never markup."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual.theme import Theme

from rivulet.core import items as it
from rivulet.core.kinds.calls import call_body, output_text, patch_text, shell_command
from rivulet.core.kinds.reasoning import heading_of, reasoning_summary
from rivulet.core.sanitize import sanitize

from .barred import Barred
from .entries import call_title, user_view
from .frozen import markdown
from .hosted_view import citations_text, view_renderable
from .note_line import note_text
from .patch_view import committed_patch

Item = dict[str, Any]
ANSWER_PADDING = (0, 1, 0, 2)  # AssistantEntry's (themes/rivulet.tcss): where the live pane drew the text


def _bar(text: str, colour: str, style: Style | None = None) -> Barred:
    return Barred(Text("\n".join(text.splitlines()), style=style or ""), colour)


def _muted(theme: Theme) -> Style:
    return Style(color=theme.foreground, dim=True)


def user(item: Item, output: Item | None, theme: Theme) -> RenderableType:
    text, attached = user_view(item)
    if attached:
        text = "\n".join([text, *attached])
    if text.startswith("<turn_aborted>"):
        italic = _muted(theme) + Style(italic=True)
        return Text("⏹ turn interrupted — the model was told on the next turn", style=italic)
    # Full width on the surface colour, as the UserEntry widget draws it.
    return Padding(_bar(text, theme.primary), (0, 1, 0, 0), style=Style(bgcolor=theme.surface), expand=True)


def answer(item: Item, output: Item | None, theme: Theme) -> RenderableType:
    body = Padding(markdown(sanitize(it.message_text(item) or ""), theme), ANSWER_PADDING)
    refs = citations_text(item)
    return body if refs is None else Group(body, Padding(refs, ANSWER_PADDING))


def reasoning(item: Item, output: Item | None, theme: Theme) -> RenderableType:
    heading = heading_of(sanitize(reasoning_summary(item)))
    return Text(f" ▶ Thought: {heading}" if heading else " ▶ Thought", style=_muted(theme))


def call(item: Item, output: Item | None, theme: Theme) -> RenderableType:
    colour = theme.secondary or theme.primary
    patch = patch_text(item)  # a patch as its files and diff, as the live entry draws it
    shown = "" if patch is not None else sanitize(shell_command(item) or call_body(item))
    if len(shown) > 2000:
        shown = shown[:2000] + f"\n… ({len(shown) - 2000} more characters)"
    out = sanitize(output_text(output)) if output is not None else "(no output)"
    lines = out.splitlines()
    if len(lines) > 12:
        out = "\n".join(lines[:12]) + f"\n… ({len(lines) - 12} more lines)"
    parts: list[RenderableType] = [_bar("⚙ " + call_title(item), colour, Style(bold=True))]
    if patch is not None:
        parts.append(Barred(committed_patch(patch), colour))
    elif shown:
        parts.append(_bar(shown, colour))
    parts.append(_bar("→ " + out, colour, _muted(theme)))
    return Group(*parts)


def viewed(item: Item, output: Item | None, theme: Theme) -> RenderableType:
    """Any kind drawn from its view (the server's tools, a kind with no widget of its own)."""
    return Padding(view_renderable(item), (0, 1))


def error(item: Item, output: Item | None, theme: Theme) -> RenderableType:
    return _bar("✗ " + sanitize(str(item.get("message", ""))), theme.error or "red", Style(color=theme.error or "red"))


def other(item: Item, output: Item | None, theme: Theme) -> RenderableType:
    kind, status = item.get("type"), item.get("status")
    return Text(" • " + " · ".join([sanitize(str(kind))] + ([sanitize(str(status))] if status else [])),
                style=_muted(theme))


def note_line(item: Item, output: Item | None, theme: Theme) -> RenderableType:
    """A note's line, where its turn put it (a protocol note with its stylesheet padding)."""
    return Padding(note_text(item), (0, 1) if item.get("kind") == "protocol-note" else 0)

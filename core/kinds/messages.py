"""Messages: the user's (prompt and attachments, a compaction summary, the note of an
interrupted turn) and the model's answer (its text, then the sources it cites)."""

from __future__ import annotations

from typing import ClassVar

from rivulet.core import items as it
from rivulet.core.hosted_items import HostedView, citation_parts, citations
from rivulet.core.turn.attachments import describe_content, placeholder
from rivulet.core.turn.summary_marks import SUMMARY_CLOSE, SUMMARY_OPEN

from .kind import Item, ItemKind, fence

ABORTED_MARK = "<turn_aborted>"  # how the note of an interrupted turn starts


class UserMessage(ItemKind):
    name: ClassVar[str] = "user"
    types: ClassVar[frozenset[str]] = frozenset({"message"})

    def claims(self, item: Item) -> bool:
        return it.item_type(item) == "message" and item.get("role") == "user"

    def view(self, item: Item) -> HostedView:
        pieces = describe_content(item)
        prompt = "".join(p.text for p in pieces if p.kind == "text")
        return HostedView(title=prompt, lines=[placeholder(p) for p in pieces if p.kind != "text"])

    def search_text(self, item: Item, output: Item | None) -> str:
        return it.message_text(item) or ""

    def brief(self, item: Item) -> str:
        return it.message_text(item) or ""

    def markdown(self, item: Item, output: Item | None) -> str:
        text = it.message_text(item) or ""
        if text.startswith(ABORTED_MARK):
            return "\n*(the turn was interrupted)*\n"
        if text.startswith(SUMMARY_OPEN):
            summary = text[len(SUMMARY_OPEN):].removesuffix(SUMMARY_CLOSE)
            return "\n## Summary of the earlier conversation (compacted)\n\n" + summary.strip() + "\n"
        return "\n## User\n\n" + _user_content(item)


class Answer(ItemKind):
    """The model's message (a message in no role is taken as the model's, as servers send it)."""

    name: ClassVar[str] = "answer"
    types: ClassVar[frozenset[str]] = frozenset({"message"})

    def claims(self, item: Item) -> bool:
        return it.item_type(item) == "message" and item.get("role") != "user"

    def malformed(self, item: Item) -> str | None:
        return it.malformed_reason(item)

    def view(self, item: Item) -> HostedView:
        return HostedView(title="Answer", lines=[it.message_text(item) or ""])

    def search_text(self, item: Item, output: Item | None) -> str:
        return it.message_text(item) or ""

    def copy_text(self, item: Item, output: Item | None) -> str:
        return it.message_text(item) or ""  # the Markdown source, as the model wrote it

    def brief(self, item: Item) -> str:
        return it.message_text(item) or ""

    def markdown(self, item: Item, output: Item | None) -> str:
        out = "\n## Assistant\n\n" + (it.message_text(item) or "").strip() + "\n"
        refs = citations(item)
        if refs:  # the sources (web pages and files), numbered as the chat shows them
            out += "\nSources:\n\n" + "".join(f"{r.number}. [{r.title}]({r.link})\n" if r.link else
                                              f"{r.number}. {r.title} ({r.url})\n" if r.url else
                                              f"{r.number}. {' — '.join(citation_parts(r))}\n" for r in refs)
        return out


def _user_content(item: Item) -> str:
    """The prompt, then each attachment: a file's placeholder line and its text fenced,
    an image as a placeholder line (never its base64)."""
    out = []
    for piece in describe_content(item):
        if piece.kind == "text":
            out.append(piece.text.strip() + "\n")
        elif piece.kind == "file":
            out.append(f"\n*{placeholder(piece)}*\n\n" + (fence(piece.text) if piece.text else ""))
        else:
            out.append(f"\n*{placeholder(piece)}*\n")
    return "".join(out)

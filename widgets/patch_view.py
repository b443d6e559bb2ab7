"""How a patch looks on screen: the files it touches, and the tail of its diff.

Used by the live pane while the model writes a patch (fed by the incremental parser)
and by the history entry once the call is committed. What is drawn is bounded (every
file's header, then at most `tail` diff lines), so a frame costs the same however long
the patch grows. All text is sanitised: a patch is model output.
"""

from __future__ import annotations

from rich.text import Text

from rivulet.core.sanitize import sanitize
from rivulet.core.tools.patch_format import OpKind, PatchError, PatchParser

_MARK = {OpKind.ADD: ("A", "green"), OpKind.DELETE: ("D", "red"), OpKind.UPDATE: ("M", "yellow")}
_LINE = {"+": "green", "-": "red", " ": ""}


def render_patch(parser: PatchParser, tail: int = 40, writing: bool = False) -> Text:
    out = Text()
    for op in parser.ops:
        mark, colour = _MARK[op.kind]
        plus, minus = op.counts()
        out.append(f"{mark} ", style=f"bold {colour}")
        out.append(sanitize(op.path))
        if op.move_to:
            out.append(f" → {sanitize(op.move_to)}")
        out.append(f"  +{plus} -{minus}\n", style="dim")
    lines: list[tuple[str, str]] = []
    for op in parser.ops[-2:]:  # the tail of the file being written (and of the one before)
        lines.append(("@", f"── {op.path} ──"))
        if op.kind is OpKind.ADD:
            lines.extend(("+", line) for line in op.added[-tail:])
        for hunk in op.hunks[-3:]:
            if hunk.anchor:
                lines.append(("@", f"@@ {hunk.anchor}"))
            lines.extend(hunk.lines[-tail:])
    if writing and parser.pending_line:
        lines.append(("…", parser.pending_line))
    for tag, line in lines[-tail:]:
        style = "bold" if tag == "@" else "dim" if tag == "…" else _LINE.get(tag, "")
        prefix = "" if tag in "@…" else tag
        out.append(sanitize(prefix + line)[:400] + "\n", style=style)
    for error in parser.errors[:3]:
        out.append(f"! {sanitize(error)}\n", style="bold red")
    out.rstrip()
    return out


def committed_patch(patch: str, tail: int = 200) -> Text:
    """A committed call's whole patch as drawn: the live entry's and a frozen (old) one's."""
    parser = PatchParser()
    parser.feed(patch)
    try:
        parser.finish()
    except PatchError:
        pass  # the errors are drawn with the patch; the tool output says the same
    return render_patch(parser, tail=tail)

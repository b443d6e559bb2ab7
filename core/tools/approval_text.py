"""What an approval question says, in words: shared by the chat's dialog
(widgets/dialogs.py) and exec's terminal prompt (app/exec_prompt.py), so both show the
same thing: the whole command with every line numbered and the line count, hidden
characters as codes with a warning, a warning for a word that mixes Latin with look-alike
letters of another script (`сurl`), the directory, the time limit, and OUTSIDE THE
SANDBOX when it is. Plain strings: each front end adds its own styles.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rivulet.core.sanitize import lookalike_letters, mixed_script_words, reveal, sanitize, script_of
from rivulet.core.tools.approval import ApprovalRequest

OUTSIDE = "OUTSIDE THE SANDBOX: it can read and change anything you can (asked every time)"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def lookalikes(text: str, what: str) -> list[str]:
    """A warning line for the words of `text` that mix Latin letters with look-alike ones
    of another script, each with the foreign letters' code points; none when no word does."""
    words = mixed_script_words(text)
    if not words:
        return []
    named = []
    for word in words[:3]:
        letters = lookalike_letters(word)
        scripts = " and ".join(dict.fromkeys(script_of(c) for c in letters))
        codes = ", ".join(f"U+{ord(c):04X}" for c in letters)
        named.append(f"\"{reveal(word)[0]}\" mixes Latin with {scripts} ({codes})")
    more = f" and {plural(len(words) - 3, 'more word')}" if len(words) > 3 else ""
    return [f"Look-alike letters in {what}: {'; '.join(named)}{more}. It may not be what it looks like."]


def number_lines(text: str) -> list[tuple[str, str]]:
    """Every line with its number, right-aligned: (number, line). A line far below the
    first (a command padded with newlines) is still one row of its own."""
    lines = text.split("\n")
    width = len(str(len(lines)))
    return [(f"{n:>{width}}", line) for n, line in enumerate(lines, 1)]


@dataclass
class Question:
    ask: str  # "Run this command"
    count: str  # "3 lines": how much is approved
    meta: str = ""  # "in . · time limit 120 s · sandbox workspace-write"
    warnings: list[str] = field(default_factory=list)  # each one line, most serious first
    body: str = ""  # what is approved, hidden characters shown as codes (a command, arguments)
    numbered: bool = True  # the body is shown with its lines numbered

    @property
    def title(self) -> str:
        return f"{self.ask}? ({self.count})"


def shell_question(r: ApprovalRequest, where: str = "below") -> Question:
    shown, hidden = reveal(r.title)
    meta = f"in {sanitize(r.workdir or r.detail.removeprefix('in ') or '.')}"
    if r.timeout is not None:
        meta += f" · time limit {r.timeout:g} s"
    if r.sandbox:
        meta += f" · {sanitize(r.sandbox)}"
    warnings = [f"Protected: {sanitize(p)}" for p in r.protected]
    if not r.sandboxed:
        warnings.insert(0, OUTSIDE)
    if hidden:
        warnings.append(f"The command holds {' and '.join(hidden)}: shown {where} as ␛, \\u… codes. "
                        "Read it before you allow it.")
    warnings += lookalikes(r.title, "the command")
    return Question("Run this command", plural(r.title.count(chr(10)) + 1, "line"), meta, warnings, shown)


def mcp_question(r: ApprovalRequest, where: str = "below") -> Question:
    """The arguments come as indented JSON, hidden characters already shown as codes by
    the core (which says so in `reason`)."""
    meta = f"server {sanitize(r.server or '?')} · tool {sanitize(r.tool or '?')}"
    if r.destructive:
        meta += " · the server marks it destructive"
    elif r.read_only:
        meta += " · the server marks it read-only"
    warnings = []
    if r.reason:
        warnings.append(f"The arguments hold {sanitize(r.reason.split(': ', 1)[-1])}: shown {where} as ␛, \\u… "
                        "codes. Read them before you allow the call.")
    warnings += lookalikes(r.detail, "the arguments")
    return Question("Call this MCP tool", plural(r.detail.count(chr(10)) + 1, "line") + " of arguments", meta,
                    warnings, sanitize(r.detail))


def patch_question(r: ApprovalRequest, where: str = "below") -> Question:
    files = r.files or [r.title]
    shown, hidden = reveal("\n".join(files))
    warnings = [f"Protected: {sanitize(p)}" for p in r.protected]
    if hidden:
        warnings.append(f"The list of files holds {' and '.join(hidden)}: shown {where} as ␛, \\u… codes. "
                        "Read it before you allow it.")
    warnings += lookalikes("\n".join(files), "the list of files")
    if in_content := reveal(r.detail.replace("\r\n", "\n"))[1]:
        warnings.append(f"The patch's content holds {' and '.join(in_content)}: shown in the diff as codes.")
    return Question(r.heading or "Apply this patch", plural(len(files), "file"), "", warnings, shown, numbered=False)


def question(r: ApprovalRequest, where: str = "below") -> Question:
    """The question for `r`; `where` the body is shown, for the warnings' words."""
    return {"shell": shell_question, "mcp": mcp_question}.get(r.kind, patch_question)(r, where)

"""A call item as an ACP tool call: its id, title, kind and content, from the item-kind
registry's view (core/kinds); a patch as `diff` blocks (old and new text per file).

Everything here is the model's or a tool's text: the editor shows it as plain text or a
diff, never as a terminal's bytes, so it goes as sent (JSON escapes every control)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rivulet.core import items as it
from rivulet.core.kinds import calls
from rivulet.core.kinds.registry import kind_of

if TYPE_CHECKING:
    from acp.helpers import SessionUpdate
    from acp.schema import ContentToolCallContent, FileEditToolCallContent, TerminalToolCallContent, ToolKind

    from rivulet.core.tools.patch_format import FileOp

    Content = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent

Item = dict[str, Any]
# How an output says its call did not do its job: the tools' refusals and errors, and the
# stand-in for a call an interrupt left without a result (core/items.py aborted_output).
FAILED_OUTPUT = ("The user declined", "error:", "aborted", "not run")


def call_key(item: Item, item_id: str) -> str:
    """The tool call's id: the call's call_id (its output and its approval name it), else the item's."""
    return it.call_id(item) or str(item.get("id") or item_id)


def is_tool_item(item: Item) -> bool:
    """A call the editor sees as a tool call (a plan is shown as ACP's plan instead)."""
    from rivulet.core.tools.plan_tool import is_plan_call

    return kind_of(item).name in ("call", "hosted") and not is_plan_call(item)


def plan_update(item: Item) -> SessionUpdate | None:
    """A committed `update_plan` call as ACP's `plan` (every step, priority medium: the
    model's plan has none); None for any other item or a plan that does not read."""
    from acp import plan_entry, update_plan

    from rivulet.core.tools.plan_tool import is_plan_call, read_plan

    plan = read_plan(item) if is_plan_call(item) else None
    if plan is None or isinstance(plan, str):
        return None
    return update_plan([plan_entry(s.step, status=s.status) for s in plan.plan])


def is_patch(item: Item) -> bool:
    return item.get("name") == "apply_patch" and it.item_type(item) in ("custom_tool_call", "function_call")


def is_shell(item: Item) -> bool:
    """rivulet's own shell tool (whose output streams as it runs)."""
    return item.get("name") == "shell" and it.item_type(item) == "function_call"


def shell_cwd(item: Item, workspace: Path) -> str:
    """Where a shell call runs, for the editor's display (the router confines it; this only shows)."""
    try:
        args = json.loads(str(item.get("arguments") or "{}"))
    except ValueError:
        args = {}
    workdir = args.get("workdir") if isinstance(args, dict) else None
    return str(workspace / workdir) if isinstance(workdir, str) and workdir not in ("", ".") else str(workspace)


def title_of(item: Item) -> str:
    from rivulet.app.acp.subagents import call_title

    agent = call_title(item)
    if agent is not None:
        return agent  # "agent tests: count the tests"
    view = kind_of(item).view(item)
    if item.get("name") == "shell" and view.code and view.code.startswith("$ "):
        return view.code[2:]  # the command itself: what the editor's row should say
    return view.title


def tool_kind(item: Item) -> ToolKind:
    from rivulet.core.subagents.tool import is_agent_call

    name, kind = item.get("name"), it.item_type(item)
    if is_agent_call(item):
        return "think"  # a subagent: a conversation of its own
    if name == "shell" or kind in ("local_shell_call", "shell_call", "code_interpreter_call"):
        return "execute"
    if is_patch(item) or kind == "apply_patch_call":
        return "edit"
    if kind in ("web_search_call", "file_search_call"):
        return "search"
    return "other"


def code_content(text: str, lang: str = "") -> list[Content]:
    """Text the editor must show as it is: editors draw a tool call's text as Markdown (Zed,
    Toad), where a command's output or a diff would lose its lines and its `#`, `*` and
    `<...>` would be read as markup; in a fence longer than any run of backticks in it."""
    if not text:
        return []
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return text_content(f"{fence}{lang}\n{text.rstrip(chr(10))}\n{fence}")


def output_content(text: str) -> list[Content]:
    """A call's output: fenced, but a refusal or an error line (a sentence) as text."""
    if text.startswith(FAILED_OUTPUT) or text.startswith("The user "):
        return text_content(text)
    return code_content(text)


def text_content(text: str) -> list[Content]:
    from acp import text_block, tool_content

    return [tool_content(text_block(text))] if text else []


def call_content(item: Item, workspace: Path) -> list[Content]:
    """What the call will do: a patch's diffs, else its view's code and lines (a command, arguments)."""
    from rivulet.core.subagents.tool import is_agent_call, read_call

    if is_patch(item):
        diffs = patch_diffs(patch_text(item), workspace)
        if diffs:
            return diffs
    if is_agent_call(item):  # a subagent: its task
        args = read_call(item)
        return text_content(args if isinstance(args, str) else args.task)
    view = kind_of(item).view(item)
    return code_content("\n".join([*([view.code] if view.code else []), *view.lines]))


def output_status(output: Item) -> str:
    """completed or failed, from what the tool answered (a command's exit code, a refusal, an error)."""
    from rivulet.core.kinds.calls import output_text

    text = output_text(output)
    if output.get("status") == "failed" or text.startswith(FAILED_OUTPUT):
        return "failed"
    if text.startswith("Exit code: ") and not text.startswith("Exit code: 0\n"):
        return "failed"
    return "completed"


def agent_status(output_text: str) -> str:
    """A `spawn_agent` call's status from its output (a saved session's: the events are gone)."""
    failed = output_text.startswith("The subagent ") and (" failed: " in output_text.split("\n", 1)[0]
                                                          or " was stopped: " in output_text.split("\n", 1)[0])
    return "failed" if failed or output_text.startswith(FAILED_OUTPUT) else "completed"


def hosted_status(item: Item) -> str:
    return "failed" if item.get("status") in ("failed", "incomplete") or item.get("error") else "completed"


def patch_text(item: Item) -> str:
    """The patch an apply_patch call carries (core/kinds' one reading), "" for none."""
    return calls.patch_text(item) or ""


def patch_diffs(text: str, workspace: Path) -> list[Content]:
    """One `diff` block per file, the whole file before and after. The relay reads them
    as the call is committed, usually before it runs (the patch planned on the files as
    they are); a patch that ran already is planned backwards from the files it wrote.
    Where neither applies (a formatter changed the file since, a later turn did), the
    hunks' own lines."""
    from acp import tool_diff_content

    from rivulet.core.tools.patch_apply import plan_patch
    from rivulet.core.tools.patch_format import OpKind, PatchError, parse_patch

    try:
        ops = parse_patch(text)
    except PatchError:
        return []
    for plan, backwards in ((ops, False), (_backwards(ops), True)):
        if not plan:
            continue
        try:
            changes = plan_patch(plan, workspace)
        except (PatchError, OSError):
            continue
        if backwards:
            return [tool_diff_content(str(c.path), c.old or "", c.new) for c in changes]
        return [tool_diff_content(str(c.path), c.new or "", c.old) for c in changes]
    out: list[Content] = []
    for op in ops:
        path = str(workspace / op.path)
        if op.kind is OpKind.ADD:
            out.append(tool_diff_content(path, "".join(f"{line}\n" for line in op.added), None))
        elif op.kind is OpKind.DELETE:
            out.append(tool_diff_content(path, "", None))
        else:
            old = "\n".join(line for hunk in op.hunks for line in hunk.old)
            new = "\n".join(line for hunk in op.hunks for line in hunk.new)
            out.append(tool_diff_content(path, new, old))
    return out


def _backwards(ops: list[FileOp]) -> list[FileOp]:
    """The patch undone: each update's lines swapped (+ for -), at the file it wrote. Only
    a patch of updates can be planned backwards (an added file's "before" is no file)."""
    from rivulet.core.tools.patch_format import FileOp, Hunk, OpKind

    if any(op.kind is not OpKind.UPDATE for op in ops):
        return []
    swap = {"+": "-", "-": "+"}
    return [FileOp(OpKind.UPDATE, op.move_to or op.path,
                   hunks=[Hunk(h.anchor, [(swap.get(tag, tag), line) for tag, line in h.lines], h.at_eof)
                          for h in op.hunks]) for op in ops]

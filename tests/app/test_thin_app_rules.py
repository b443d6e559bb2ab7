"""The rules of ARCHITECTURE.md that keep the App thin, checked on the source as the
import rules are (tests/core/test_architecture_rules.py):

- no module of app/ but the App's own (app/tui.py, app/tui_*.py) reads a private
  attribute of the app object: handlers and commands go through ChatView and
  CommandContext (app/chat_view.py, app/commands/context.py);
- handlers and commands never import the App (not even for a type);
- the status line has one writer, app/status_board.py: nothing else sets its fields or
  redraws it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rivulet.app.status_board import FIELDS

ROOT = Path(__file__).resolve().parents[2]
APP_OWN = {"app/tui.py"} | {p.relative_to(ROOT).as_posix() for p in (ROOT / "app").glob("tui_*.py")}


def _sources(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _is_app(node: ast.expr) -> bool:
    """`app`, `self.app`, `self._app`, `x.app`: an expression that names the app object."""
    return (isinstance(node, ast.Name) and node.id == "app") or \
        (isinstance(node, ast.Attribute) and node.attr in ("app", "_app"))


def _private(name: object) -> bool:
    return isinstance(name, str) and name.startswith("_") and not name.startswith("__")


def private_reads_of_the_app(source: str) -> list[str]:
    """`app._x`, `self.app._x`, and `getattr(app, "_x")`/`setattr(...)`, as "line: name"."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and _private(node.attr) and _is_app(node.value):
            found.append(f"{node.lineno}: {node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) >= 2 \
                and _is_app(node.args[0]) and isinstance(node.args[1], ast.Constant) \
                and _private(node.args[1].value):
            found.append(f"{node.lineno}: {node.args[1].value}")
    return found


def imports_of_the_app(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "rivulet.app.tui":
            found.append(f"{node.lineno}: from rivulet.app.tui import {', '.join(a.name for a in node.names)}")
        elif isinstance(node, ast.Import) and any(a.name == "rivulet.app.tui" for a in node.names):
            found.append(f"{node.lineno}: import rivulet.app.tui")
    return found


def status_writes(source: str) -> list[str]:
    """A StatusLine field set (`status.note = ...`, `self._status.state += ...`, on any
    expression whose last name says status), or the line redrawn (`refresh_line()`,
    `set_usage()`): both belong to the status board."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = [t for target in node.targets for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr in FIELDS and "status" in ast.unparse(target.value).lower():
                found.append(f"{node.lineno}: {ast.unparse(target)} =")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("refresh_line", "set_usage"):
            found.append(f"{node.lineno}: {ast.unparse(node.func)}()")
    return found


def test_no_module_but_the_apps_own_reads_its_private_state():
    offenders = {_name(p): private_reads_of_the_app(p.read_text()) for p in _sources("app") if _name(p) not in APP_OWN}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_handlers_and_commands_never_import_the_app():
    offenders = {_name(p): imports_of_the_app(p.read_text()) for p in _sources("app/handlers", "app/commands")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_status_board_is_the_status_lines_only_writer():
    allowed = {"app/status_board.py", "widgets/status.py"}
    offenders = {_name(p): status_writes(p.read_text()) for p in _sources("app", "widgets") if _name(p) not in allowed}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_app_stays_small():
    """The App owns screens, bindings and lifecycle; no module of app/ grows past 300 lines."""
    sizes = {_name(p): len(p.read_text().splitlines()) for p in _sources("app")}
    assert sizes["app/tui.py"] <= 250
    assert {k: n for k, n in sizes.items() if n > 300} == {}


# The checks themselves, on the shapes they must catch (and must not).
@pytest.mark.parametrize("source, caught", [
    ("app._status.note = 'x'", ["1: _status"]),
    ("self.app._transcript.mount(w)", ["1: _transcript"]),
    ("x = getattr(app, '_saved_prompts', None)", ["1: _saved_prompts"]),
    ("self.view.transcript.mount(w)", []),
    ("self._app.notify('x')", []),  # the view's own reference, then a public method
    ("app.__class__", []),
])
def test_the_private_state_check_sees_what_it_must(source, caught):
    assert private_reads_of_the_app(source) == caught


@pytest.mark.parametrize("source, caught", [
    ("status.note = 'x'", ["1: status.note ="]),
    ("self.app._status.state, x = 'idle', 1", ["1: self.app._status.state ="]),
    ("status.note += ' more'", ["1: status.note ="]),
    ("line.refresh_line()", ["1: line.refresh_line()"]),
    ("settings.model = 'm'", []),  # not the status line
    ("self.view.status.set(note='x')", []),
])
def test_the_status_write_check_sees_what_it_must(source, caught):
    assert status_writes(source) == caught


def test_the_import_check_sees_what_it_must():
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from rivulet.app.tui import RivuletApp\n"
    assert imports_of_the_app(source) == ["3: from rivulet.app.tui import RivuletApp"]

"""The rules of ARCHITECTURE.md that keep the App thin, checked on the source as the
import rules are (tests/core/test_architecture_rules.py):

- no module of app/ but the App's own (app/tui.py, app/tui_*.py) reads a private
  attribute of the app object: handlers go through ChatView (app/chat_view.py), commands
  through the services they are given (app/commands/services.py);
- commands, handlers and the views they open read no attribute of the App, and never
  import it (not even for a type);
- the app's largest import circle (every import counted: under TYPE_CHECKING, inside a
  function) stays at most CIRCLE modules (scripts/house_metrics.py measures it);
- the status line has one writer, app/status_board.py: nothing else sets its fields or
  redraws it."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from rivulet.app.status_board import FIELDS

ROOT = Path(__file__).resolve().parents[2]
APP_OWN = {"app/tui.py"} | {p.relative_to(ROOT).as_posix() for p in (ROOT / "app").glob("tui_*.py")}
CIRCLE = 12  # issue 37.3: 46 modules on main before it
# The views commands and handlers open, outside app/commands/ and app/handlers/.
VIEWS = ("app/chat_view.py", "app/edit_resend.py", "app/resume.py", "app/undo_views.py", "app/copying.py",
         "app/transcript_out.py", "app/background_resume.py", "app/mcp/wiring.py")


def _metrics():  # scripts/ is not a package: the measuring script, loaded from its file
    spec = importlib.util.spec_from_file_location("house_metrics", ROOT / "scripts" / "house_metrics.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    paths = _sources("app/handlers", "app/commands") + [ROOT / v for v in VIEWS]
    offenders = {_name(p): imports_of_the_app(p.read_text()) for p in paths}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_commands_handlers_and_views_read_no_attribute_of_the_app():
    """They are given typed services (app/commands/services.py, app/chat_view.py), never the
    App: no `app.x`, `self.app.x`, nor `x.y` of a name typed as the App."""
    reads = _metrics().app_attribute_reads()
    mine = {k: sorted(v) for k, v in reads.items() if k.startswith(("app/commands/", "app/handlers/")) or k in VIEWS}
    assert mine == {}


def test_the_apps_largest_import_circle_stays_small():
    circle = _metrics().largest_cycle()
    assert len(circle) <= CIRCLE, sorted(circle)


def test_the_circle_measure_counts_every_kind_of_import():
    m = _metrics()
    assert max(m.components({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}), key=len) == {"a", "b", "c"}
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from rivulet.app import tui\n"
              "def f():\n    import rivulet.app.boot\n    from . import keymap\n")
    known = {"rivulet.app.tui", "rivulet.app.boot", "rivulet.app.keymap", "rivulet.app.probe"}
    assert m.imports_in(source, "rivulet.app.probe", known) == known - {"rivulet.app.probe"}


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

"""Rules of the test tree itself. pytest imports each conftest.py as a plugin; a test that
imports one as a module as well gets a second copy of it (its module-level work done
twice, its fixtures and hooks seen from two modules). Helpers that tests share live in
tests/helpers/ (and a folder's own modules, such as tests/terminal/chat_app.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from helpers.tiers import runs_the_app

TESTS = Path(__file__).resolve().parent


def conftest_imports(source: str) -> list[int]:
    """The lines of `source` that import a conftest module (plain, dotted or relative)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        if any(name == "conftest" or name.endswith(".conftest") for name in names):
            lines.append(node.lineno)
    return lines


def test_the_rule_sees_each_way_of_importing_a_conftest():
    assert conftest_imports("from conftest import settings") == [1]
    assert conftest_imports("x = 1\nfrom .conftest import RIVULET") == [2]
    assert conftest_imports("import tests.conftest") == [1]
    assert conftest_imports("def f():\n    import conftest") == [2]
    assert conftest_imports("from helpers.mock_api import settings\nfrom . import chat_app") == []


def test_no_module_under_tests_imports_a_conftest():
    found = [f"{path.relative_to(TESTS)}:{line}" for path in sorted(TESTS.rglob("*.py"))
             for line in conftest_imports(path.read_text(encoding="utf-8"))]
    assert found == []


# Built from parts: this module itself runs no app and must not read as one that does.
RUN_TEST, SNAPSHOT = "run_test" + "(", "snap" + "_compare"


def test_a_module_that_runs_the_app_is_in_the_pilot_tier():
    assert runs_the_app(f"async with app.{RUN_TEST}size=(80, 24)) as pilot:\n    await pilot.press('a')")
    assert runs_the_app(f"def test_screen({SNAPSHOT}):\n    assert {SNAPSHOT}(app)")
    assert not runs_the_app("def test_parse():\n    assert parse('x') == 'x'")


def test_the_pilot_modules_of_the_tree_are_the_ones_that_run_the_app():
    """The rule finds the modules it is for (Pilot tests of app/ and widgets/, snapshots), and
    leaves the pure ones (the sanitiser's, the CLI's, this one) in the fast tier."""
    pilot = {path.relative_to(TESTS).as_posix() for path in TESTS.rglob("test_*.py")
             if runs_the_app(path.read_text(encoding="utf-8"))}
    assert {"app/test_tui.py", "app/test_snapshots.py", "widgets/test_composer_blink.py"} <= pilot
    assert not {"core/test_sanitize.py", "app/test_cli.py", "test_tree_rules.py"} & pilot

"""Rules of the test tree itself. pytest imports each conftest.py as a plugin; a test that
imports one as a module as well gets a second copy of it (its module-level work done
twice, its fixtures and hooks seen from two modules). Helpers that tests share live in
tests/helpers/ (and a folder's own modules, such as tests/terminal/chat_app.py)."""

from __future__ import annotations

import ast
from pathlib import Path

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

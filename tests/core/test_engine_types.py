"""The engine's own parts are typed (mypy strict checks what uses them): its agent tools
are `AgentTools`, never `Any`, and nothing on them is looked up with `getattr`."""

from __future__ import annotations

import ast

from helpers.paths import ROOT

from rivulet.core.engine import Engine


def test_the_engines_agent_tools_are_typed_and_never_probed():
    assert Engine.__annotations__["agent_tools"] == "AgentTools | None"
    tree = ast.parse((ROOT / "core" / "engine.py").read_text())
    probes = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
              and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")]
    assert probes == []
    def is_any(annotation: ast.expr | None) -> bool:
        return isinstance(annotation, ast.Name) and annotation.id == "Any"

    untyped = [node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
               and (is_any(node.returns) or any(is_any(a.annotation) for a in node.args.args + node.args.kwonlyargs))]
    assert untyped == []

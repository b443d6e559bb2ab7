#!/usr/bin/env python3
"""How much of a hub the App still is (issue 37.3), measured on the source with `ast`:

- the largest import circle among app/'s modules: the largest strongly connected
  component of the graph "module A imports module B", counting every import (at the top,
  under TYPE_CHECKING, inside a function);
- the distinct attributes of the App read outside the App's own modules (app/tui.py,
  app/tui_*.py): `app.x`, `self.app.x`, `self._app.x`, and `x.y` where `x` is a name
  annotated as the App or a CommandContext;
- the members of app/commands/context.py's `CommandContext` (0 once it is gone);
- the imports inside functions, in app/, widgets/ and core/.

Run: `.venv/bin/python scripts/house_metrics.py` (tests/app/test_thin_app_rules.py keeps
the circle from growing past its bound)."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "rivulet"
APP_TYPES = {"RivuletApp", "CommandContext"}  # names whose attributes are the App's


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def _sources(folder: str) -> list[Path]:
    return sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)


def _resolve(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = here.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join([*base, node.module] if node.module else base)


def imports_in(source: str, here: str, known: set[str], is_package: bool = False) -> set[str]:
    """Every module of `known` that the module `here` imports, wherever the import stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node, here, is_package)
            for alias in node.names:  # `from pkg import module` imports the module
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {m for m in found if m in known and m != here}


def imported_modules(path: Path, known: set[str]) -> set[str]:
    return imports_in(path.read_text(), module_name(path), known, path.name == "__init__.py")


def import_graph(folder: str = "app") -> dict[str, set[str]]:
    paths = _sources(folder)
    known = {module_name(p) for p in paths}
    return {module_name(p): imported_modules(p, known) for p in paths}


def components(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components, iteratively (no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                found.append(component)
    return found


def largest_cycle(folder: str = "app") -> set[str]:
    return max(components(import_graph(folder)), key=len)


def _names_of_app(tree: ast.AST) -> set[str]:
    """Parameters and variables annotated as the App or a CommandContext."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            target, annotation = node.arg, node.annotation
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, annotation = node.target.id, node.annotation
        else:
            continue
        text = ast.unparse(annotation).strip("'\"")
        if text.split("[")[0].split(".")[-1] in APP_TYPES:
            names.add(target)
    return names


def _is_app(node: ast.expr, names: set[str]) -> bool:
    return (isinstance(node, ast.Name) and (node.id == "app" or node.id in names)) or \
        (isinstance(node, ast.Attribute) and node.attr in ("app", "_app"))


def app_reads(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = _names_of_app(tree)
    return {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and _is_app(node.value, names) and node.attr not in ("app", "_app")}


def app_own(path: Path) -> bool:
    rel = path.relative_to(ROOT).as_posix()
    return rel == "app/tui.py" or (rel.startswith("app/tui_") and "/" not in rel[4:])


def app_attribute_reads() -> dict[str, set[str]]:
    """Module -> the App's attributes it reads, for app/ outside the App's own modules."""
    out = {}
    for path in _sources("app"):
        if not app_own(path) and (reads := app_reads(path)):
            out[path.relative_to(ROOT).as_posix()] = reads
    return out


def command_context_members() -> int:
    path = ROOT / "app" / "commands" / "context.py"
    if not path.exists():
        return 0
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef) and node.name == "CommandContext":
            return sum(1 for n in node.body if isinstance(n, (ast.AnnAssign, ast.FunctionDef, ast.AsyncFunctionDef)))
    return 0


def imports_in_functions(*folders: str) -> int:
    count = 0
    for folder in folders:
        for path in _sources(folder):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    count += sum(1 for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom)))
    return count


def _own_imports(tree: ast.AST) -> int:
    return sum(1 for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)))


def report() -> list[str]:
    cycle = largest_cycle()
    reads = app_attribute_reads()
    attrs = set().union(*reads.values()) if reads else set()
    return [
        f"largest import circle in app/    {len(cycle)} modules",
        f"App attributes read outside it   {len(attrs)} distinct, in {len(reads)} modules",
        f"CommandContext members           {command_context_members()}",
        f"imports inside functions         {imports_in_functions('app')} in app/, "
        f"{imports_in_functions('app', 'widgets', 'core')} in app/, widgets/, core/",
    ]


def main(argv: list[str]) -> int:
    for line in report():
        print(line)
    if "-v" in argv:
        print("\ncircle:", *sorted(largest_cycle()), sep="\n  ")
        print("\nreads:")
        for module, attrs in sorted(app_attribute_reads().items()):
            print(f"  {module}: {', '.join(sorted(attrs))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

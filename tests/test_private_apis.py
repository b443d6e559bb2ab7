"""No module but the compat ones (core/compat/, widgets/compat/) uses a library's private
API: an import of a private name or module, an attribute with a private name on anything
but the module's own objects, a private method of a library class overridden or called
through super(), a getattr/hasattr of a private name, or a library's object assigned to
(a monkeypatch). Rivulet's own private names are told apart by where they are defined.
Left to review, not to this scan: code that copies a library's internals (Rich's Markdown
constructor, now widgets/compat/rich.py's init_markdown)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIBRARIES = {"textual", "rich", "httpx", "httpcore", "mcp", "asyncio"}
COMPAT = ("core/compat/", "widgets/compat/")
# Private names of libraries outside the list (the standard library's), each with its use.
OTHER = {"_Decompress": "zlib's decompressor type, for a type annotation (core/protocol/byte_caps.py)",
         "_name_parser_map": "argparse's subcommand parsers (app/cli.py)",
         "_make": "NamedTuple's public API (the underscore avoids field names)",
         "_replace": "NamedTuple's public API (the underscore avoids field names)"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _own_private_names() -> set[str]:
    """Private names rivulet defines itself (functions, classes, attributes assigned, class fields)."""
    own: set[str] = set()
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                own.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                own.add(node.attr)
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        own.add(stmt.target.id)
                    elif isinstance(stmt, ast.Assign):
                        own.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    return {name for name in own if _private(name)}


def _compat_private_names() -> set[str]:
    """The library-private names the compat modules reach for: never read elsewhere, even
    where rivulet has a name of its own like it (`_driver`, `_transport`)."""
    return {node.attr for path in _modules() if str(path.relative_to(ROOT)).startswith(COMPAT)
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Attribute) and _private(node.attr)}


def _modules() -> list[Path]:
    return sorted(p for top in ("core", "widgets", "app") for p in (ROOT / top).rglob("*.py"))


def _library_names(tree: ast.Module) -> set[str]:
    """Local names bound to a library module or to something imported from one."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] in LIBRARIES)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in LIBRARIES:
            names.update(a.asname or a.name for a in node.names)
    return names


def _library_bases(tree: ast.Module) -> dict[str, object]:
    """Each library class a class here derives from, imported: {local name: class}."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in LIBRARIES:
            bound.update({a.asname or a.name: f"{node.module}:{a.name}" for a in node.names})
        elif isinstance(node, ast.Import):
            bound.update({(a.asname or a.name).split(".")[0]: a.name.split(".")[0] for a in node.names
                          if a.name.split(".")[0] in LIBRARIES})
    found: dict[str, object] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for base in node.bases:
            dotted = ast.unparse(base)
            head, _, rest = dotted.partition(".")
            if head not in bound:
                continue
            module, _, name = bound[head].partition(":")
            obj: object = importlib.import_module(module)
            for part in [name, *rest.split(".")] if name else rest.split("."):
                if part:
                    obj = getattr(obj, part) if hasattr(obj, part) else importlib.import_module(f"{module}.{part}")
            found.setdefault(node.name, obj)
    return found


def private_uses(source: str, own: set[str], allowed_overrides: frozenset[str] = frozenset(),
                 defined: set[str] | None = None) -> list[str]:
    """`own`: rivulet's private names, less the library ones the compat modules use;
    `defined`: all the private names rivulet defines (what `self.` may read)."""
    defined = own if defined is None else defined
    tree = ast.parse(source)
    lib_names = _library_names(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in LIBRARIES:
            if any(map(_private, node.module.split("."))) or any(_private(a.name) for a in node.names):
                found.append(f"{node.lineno}: from {node.module} import …")
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names
                      if a.name.split(".")[0] in LIBRARIES and any(map(_private, a.name.split(".")))]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            value = node.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
                if node.attr not in allowed_overrides:
                    found.append(f"{node.lineno}: super().{node.attr}")
            elif isinstance(value, ast.Name) and value.id in lib_names:
                found.append(f"{node.lineno}: {value.id}.{node.attr}")
            elif isinstance(value, ast.Name) and value.id in ("self", "cls"):
                # on one's own object: a private name rivulet never defines is a base class's
                if node.attr not in defined and node.attr not in allowed_overrides:
                    found.append(f"{node.lineno}: {value.id}.{node.attr}")
            elif node.attr not in own:
                found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") \
                and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and _private(node.args[1].value) \
                and node.args[1].value not in own:
            found.append(f"{node.lineno}: {node.func.id}(…, {node.args[1].value!r})")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") \
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in lib_names:
            found.append(f"{node.lineno}: {node.func.id}({node.args[0].id}, …) (a monkeypatch)")
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id in lib_names:
                    found.append(f"{node.lineno}: {target.value.id}.{target.attr} = … (a monkeypatch)")
    bases = _library_bases(tree)
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name in bases):
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and _private(stmt.name) \
                    and stmt.name not in allowed_overrides and hasattr(bases[cls.name], stmt.name):
                found.append(f"{stmt.lineno}: {cls.name}.{stmt.name} overrides a library's private method")
    return found


def test_no_private_library_api_outside_the_compat_modules() -> None:
    from rivulet.widgets.compat.textual import OVERRIDDEN_HOOKS

    defined = (_own_private_names() - set(OVERRIDDEN_HOOKS)) | set(OTHER)
    own = defined - _compat_private_names()
    uses = {str(path.relative_to(ROOT)): hits for path in _modules()
            if not str(path.relative_to(ROOT)).startswith(COMPAT)
            for hits in [private_uses(path.read_text(), own, frozenset(OVERRIDDEN_HOOKS), defined)] if hits}
    assert uses == {}, "private library API outside core/compat/ and widgets/compat/: " + repr(uses)


def test_the_scan_sees_each_kind_of_use() -> None:
    own = {"_mine"}
    source = """
import httpx
from textual._xterm_parser import XTermParser
from textual.drivers import linux_driver
class C(httpx.AsyncClient):
    def _init_transport(self): return super()._init_transport()
def f(app, proc):
    linux_driver.XTermParser = None
    setattr(linux_driver, "XTermParser", None)
    return app._driver, proc._transport, app._mine, self_like._mine, getattr(proc, "_transport", None)
class D:
    def g(self): return self._bindings, self._mine
"""
    hits = " ".join(private_uses(source, own))
    for expected in ("textual._xterm_parser", "super()._init_transport", "linux_driver.XTermParser = ",
                     "._driver", "._transport", "C._init_transport overrides",
                     "getattr(…, '_transport')", "self._bindings",
                     "setattr(linux_driver, …)"):
        assert expected in hits
    assert "._mine" not in hits


def test_every_library_whose_internals_are_used_has_an_upper_bound() -> None:
    import tomllib

    from packaging.requirements import Requirement

    deps = {r.name: r for r in map(Requirement, tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
                                   ["dependencies"])}
    used = {p.stem for top in COMPAT for p in (ROOT / top).glob("*.py") if p.stem != "__init__"} - {"asyncio"}
    assert used == {"textual", "rich", "httpx", "mcp"}
    unbounded = {name for name in used if not any(s.operator in ("<", "<=", "~=", "==") for s in deps[name].specifier)}
    assert unbounded == set(), f"no upper version bound in pyproject.toml for {sorted(unbounded)}"

"""The rules of ARCHITECTURE.md that keep the engine one thing and the app thin, checked
on the source as the import rules are (tests/core/test_layout_and_config.py)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from helpers.paths import ROOT

PACKAGES = ("core", "app", "widgets", "themes")


def _sources(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def _calls_to(name: str, path: Path) -> int:
    tree = ast.parse(path.read_text())
    return sum(1 for node in ast.walk(tree) if isinstance(node, ast.Call)
               and ((isinstance(node.func, ast.Name) and node.func.id == name)
                    or (isinstance(node.func, ast.Attribute) and node.func.attr == name)))


def test_a_conversation_is_constructed_in_exactly_one_module():
    """The chat, /new, /resume, exec and every later front end get theirs from core/engine.py."""
    makers = [p.relative_to(ROOT).as_posix() for p in _sources(*PACKAGES) if _calls_to("Conversation", p)]
    assert makers == ["core/engine.py"]


def test_an_engine_is_constructed_by_the_one_assembly_only():
    """Every front end (the chat, /new, /resume, plain, exec, doctor, ACP) gets its engine from
    core/assembly.py's open_conversation; no file under app/ builds one (issue 37)."""
    makers = [p.relative_to(ROOT).as_posix() for p in _sources(*PACKAGES) if _calls_to("Engine", p)]
    assert makers == ["core/assembly.py"]


def test_agent_tools_and_transports_are_assembled_by_the_engine_only():
    for name, allowed in (("AgentTools", {"core/engine.py"}),
                          ("make_transport", {"core/engine.py"})):
        makers = {p.relative_to(ROOT).as_posix() for p in _sources("app", "widgets") if _calls_to(name, p)}
        assert makers <= allowed, f"{name} built outside the engine: {sorted(makers - allowed)}"


def test_no_two_classes_share_a_name():
    """A name says which thing it is: two `Probe`s or `Limits` hide which one a reader sees."""
    names: Counter[str] = Counter()
    for path in _sources(*PACKAGES):
        names.update(node.name for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.ClassDef)
                     and not node.name.startswith("_"))
    assert [name for name, count in names.items() if count > 1] == []


# Textual's own state on the App that a widget may read (the composer applies the user's keymap).
TEXTUAL_STATE = {"_keymap"}


def test_widgets_talk_to_the_app_by_messages_only():
    """A widget posts a Message (widgets/messages.py); it never looks up or calls the app's methods."""
    for path in _sources("widgets"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr"):
                target, name = (node.args + [None, None])[:2]
                if isinstance(name, ast.Constant) and name.value in TEXTUAL_STATE:
                    continue
                assert not (isinstance(target, ast.Attribute) and target.attr == "app"), \
                    f"{path.relative_to(ROOT)}:{node.lineno} probes the app; post a message instead"

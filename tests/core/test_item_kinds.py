"""The item-kind registry (issue 37.3): every item type rivulet knows has its kind, and a
new type added as one module plus its registration (helpers/diagram_kind.py) is
refused or kept, shown, printed, found, copied and exported with no other change."""

from __future__ import annotations

import io

import pytest
from helpers.diagram_kind import diagram_kind
from rich.console import Console
from textual.theme import BUILTIN_THEMES

from rivulet.app.plain.printer import PlainPrinter
from rivulet.core import items as it
from rivulet.core.hosted_items import HOSTED_TYPES
from rivulet.core.kinds import UNKNOWN, commit_problem, kind_of
from rivulet.core.store.export import history_markdown
from rivulet.core.turn import bus as b
from rivulet.widgets.entries import ViewEntry
from rivulet.widgets.inspector import describe
from rivulet.widgets.kind_views import entry_for, entry_renderable, live_pane_for
from rivulet.widgets.live import LiveOther
from rivulet.widgets.search import item_text

DIAGRAM = {"id": "dg_1", "type": "diagram_call", "status": "completed", "title": "the flow",
           "nodes": ["request", "stream", "commit"]}


def _drawn(renderable) -> str:
    console = Console(file=io.StringIO(), width=100, color_system=None, legacy_windows=False)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("item, name", [
    ({"type": "message", "role": "user", "content": "hi"}, "user"),
    ({"type": "message", "role": "assistant", "content": []}, "answer"),
    ({"type": "message", "content": []}, "answer"),  # a server that leaves the role out
    ({"type": "reasoning", "summary": []}, "reasoning"),
    ({"type": "compaction"}, "compaction"),
    *[({"type": t, "call_id": "c"}, "call") for t in it.CALL_OUTPUT_TYPES],
    *[({"type": t, "call_id": "c"}, "output") for t in it.OUTPUT_TYPES],
    *[({"type": t}, "hosted") for t in sorted(HOSTED_TYPES)],
])
def test_every_item_type_rivulet_knows_has_its_kind(item, name):
    assert kind_of(item).name == name


def test_a_type_no_kind_claims_is_unknown_and_shown_by_type_and_status():
    item = {"type": "diagram_call", "status": "completed"}
    assert kind_of(item) is UNKNOWN
    assert "*(diagram_call item)*" in history_markdown([item])
    assert "diagram_call · completed" in _drawn(entry_renderable(item, None, BUILTIN_THEMES["textual-dark"]))


def test_a_new_kind_is_one_module_and_its_registration():
    with diagram_kind() as kind:
        assert kind_of(DIAGRAM) is kind
        # normalised: its own rule refuses a broken one at commit; a good one passes
        assert commit_problem({**DIAGRAM, "nodes": "x"}) == "diagram_call 'nodes' must be a list"
        assert commit_problem(DIAGRAM) is None
        # drawn live (a status pane), as an entry and frozen (from its view, sanitised)
        assert isinstance(live_pane_for(DIAGRAM, "dg_1"), LiveOther)
        assert isinstance(entry_for(DIAGRAM, "dg_1"), ViewEntry)
        frozen = _drawn(entry_renderable({**DIAGRAM, "title": "the \x1b[31mflow"}, None,
                                         BUILTIN_THEMES["textual-dark"]))
        assert "◇ diagram: the" in frozen and "request → stream → commit" in frozen and "\x1b[31m" not in frozen
        # found, copied, listed by the inspector
        assert "stream" in item_text(DIAGRAM, None)
        assert kind.copy_text(DIAGRAM, None) == "request\nstream\ncommit"
        assert describe(DIAGRAM) == "request → stream → commit"
        # exported and printed in plain mode
        assert "### diagram: the flow\n\n- request → stream → commit\n" in history_markdown([DIAGRAM])
        out = io.StringIO()
        PlainPrinter(out).completed(b.ItemCompleted(DIAGRAM, "dg_1"))
        assert "→ diagram: the flow" in out.getvalue() and "request → stream → commit" in out.getvalue()
    assert kind_of(DIAGRAM) is UNKNOWN  # unregistered: back to what nobody claims


def test_entry_copy_is_what_the_kind_says():
    with diagram_kind():
        entry = entry_for(DIAGRAM, "dg_1")
        assert entry.copy_text() == "request\nstream\ncommit"
    answer = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "**hi**"}]}
    assert entry_for(answer, "m1").copy_text() == "**hi**"  # the answer's Markdown source

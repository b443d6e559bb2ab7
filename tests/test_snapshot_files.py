"""Every snapshot SVG belongs to a test that still exists. syrupy (under pytest-textual-snapshot)
fails a one-process run on a snapshot no test used, but skips that check under pytest-xdist,
which scripts/test uses: a test renamed or removed would leave its old SVG behind unseen."""

from __future__ import annotations

import re

from helpers.paths import ROOT


def _owner(svg_stem: str) -> str:
    """The test function a snapshot is named after: its name without the parameters' ids
    (`test_x[80]`) or the count of a second snapshot in one test (`test_x.1`)."""
    return re.sub(r"(\[.*\])?(\.\d+)?$", "", svg_stem)


def test_the_owner_of_a_snapshot_is_its_name_without_ids_or_count():
    assert _owner("test_code_block_wraps_when_committed[120]") == "test_code_block_wraps_when_committed"
    assert _owner("test_idle_demo.1") == "test_idle_demo"
    assert _owner("test_idle_demo") == "test_idle_demo"


def test_every_snapshot_svg_has_its_test():
    svgs = sorted((ROOT / "tests").rglob("__snapshots__/*/*.svg"))
    assert svgs, "no snapshot found: the folder layout changed"
    orphans = []
    for svg in svgs:
        module = svg.parent.parent.parent / f"{svg.parent.name}.py"
        name = _owner(svg.stem)
        if not module.exists() or not re.search(rf"^(async )?def {re.escape(name)}\(", module.read_text(), re.M):
            orphans.append(str(svg.relative_to(ROOT)))
    assert orphans == [], "snapshots of no test (delete them, or run `scripts/test -n 0 --snapshot-update`)"

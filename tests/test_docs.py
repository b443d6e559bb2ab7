"""The docs a user reads stay true to the code: the configuration reference is the one
scripts/config_reference.py makes from the `Settings` model (so it names every setting),
every command of the chat's /help is in the user guide, the README stays short and keeps
CI's test command, one first-run time is said everywhere, and every link between the
pages lands on a file and a heading that exist. Fast: no app is started."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

from rivulet.app.commands.registry import slash_commands
from rivulet.app.commands.status import help_lines
from rivulet.core.config import Settings

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md")), ROOT / "benchmarks" / "README.md",
         *sorted((ROOT / "benchmarks" / "journal").glob("*.md"))]


def _reference_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("config_reference", ROOT / "scripts" / "config_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_configuration_reference_is_the_generated_one():
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    assert _reference_script().render(page) == page, \
        "docs/configuration.md is stale: run .venv/bin/python scripts/config_reference.py"


def test_the_configuration_reference_names_every_setting_with_its_variable():
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)` \| ([^|]+) \|", page, re.M)}
    assert set(Settings.model_fields) <= set(rows), set(Settings.model_fields) - set(rows)
    assert "`RIVULET_MODEL`" in rows["model"] and "`OPENAI_API_KEY`" in rows["api_key"]


class _NoWorkspace:
    """What the registry reads to list /init and saved prompts: no workspace, so no prompts."""

    workspace = None


def test_every_command_in_help_is_in_the_guides_command_table():
    guide = (DOCS / "guide.md").read_text(encoding="utf-8")
    table = guide.split("### Slash commands", 1)[1].split("\n\n| command | does |", 1)[1].split("\n\n", 1)[0]
    named = {m.group(1) for m in re.finditer(r"^\| `(/[\w-]+)", table, re.M)}
    lines = help_lines(slash_commands(_NoWorkspace()), keys="")  # type: ignore[arg-type]
    commands = {line.split()[0] for line in lines if line.startswith("/") and not line.startswith("//")}
    assert {"/profile", "/init", "/transcript", "/help"} <= commands
    assert commands <= named, f"in /help but not in docs/guide.md: {sorted(commands - named)}"
    for other in ("`!cmd`", "`//text`"):  # the rest of /help
        assert other in guide


def test_the_readme_is_short_and_keeps_the_two_set_up_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    # CI runs the README's test command (.ci/run), and tests/test_ci_script.py checks scripts/test.
    assert "\nscripts/run     " in readme and "\nscripts/test    " in readme
    for page in ("guide", "configuration", "servers", "headless", "security", "coming-from", "internals"):
        assert f"(docs/{page}.md)" in readme


def test_one_first_run_time_is_said_everywhere():
    said = {path.name: path.read_text(encoding="utf-8") for path in (ROOT / "README.md", ROOT / "scripts" / "setup")}
    assert "about 15 s" in said["README.md"] and "(first run, about 15 s)" in said["setup"]
    for name, text in said.items():
        assert not re.search(r"(about|~)\s?(12|20|30) s\b", text), name


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.M)}


def test_every_link_between_the_pages_lands():
    broken = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            if not dest.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, broken

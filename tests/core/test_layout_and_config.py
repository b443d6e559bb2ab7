"""Project rules that must hold: core is UI-free; settings layer and keep secrets."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest
from helpers.config_files import empty_config
from helpers.paths import ROOT

from rivulet.core.config import Settings, load_settings
from rivulet.core.errors import ConfigError
from rivulet.core.server_endpoint import safe_url


def test_core_never_imports_textual():
    for path in (ROOT / "core").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(n.split(".")[0] in ("textual", "rich") for n in names), f"{path}: {names}"
    code = ("import sys, pkgutil, importlib, rivulet.core as c\n"
            "[importlib.import_module('rivulet.core.' + m.name) for m in pkgutil.iter_modules(c.__path__)]\n"
            "print('textual' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.fixture
def config_file(tmp_path, monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RIVULET_MODEL", "RIVULET_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    path = tmp_path / "config.toml"
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(path)))
    return path


def test_layers_defaults_file_env_arguments(config_file, monkeypatch):
    config_file.write_text('model = "from-file"\nidle_timeout = 12.5\n[headers]\nOpenAI-Project = "p1"\n')
    s = load_settings()
    assert (s.model, s.idle_timeout, s.headers) == ("from-file", 12.5, {"OpenAI-Project": "p1"})
    monkeypatch.setenv("RIVULET_MODEL", "from-env")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")
    s = load_settings()
    assert s.model == "from-env" and s.base_url == "http://127.0.0.1:9/v1"
    assert load_settings(model="from-arg").model == "from-arg"


def test_bad_config_values_and_files_are_one_clear_error(config_file):
    config_file.write_text("idle_timeout = 'soon'\n")
    with pytest.raises(ConfigError, match="idle_timeout"):
        load_settings()
    config_file.write_text("this is = = not toml")
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_settings()


def test_the_key_never_shows_in_repr_or_dump(config_file, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret-000111")
    s = load_settings()
    assert s.auth_headers()["Authorization"] == "Bearer sk-very-secret-000111"
    # Every field as text, the way a dump or a debug line would show it.
    dump = json.dumps({name: getattr(s, name) for name in Settings.model_fields}, default=str)
    assert "sk-very-secret" not in repr(s) and "sk-very-secret" not in dump


def test_safe_url_drops_credentials():
    assert safe_url("https://user:pw@host.example:8443/v1?key=sk-1") == "https://host.example:8443/v1"
    assert Settings(base_url="http://localhost:1/v1").base_url == "http://localhost:1/v1"


def test_every_source_package_is_in_the_wheel():
    """A subpackage missing from pyproject's list installs without its modules (the
    installed app then dies on import); every folder with an __init__.py must be listed."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(project["packages"])
    dirs = project["package-dir"]
    for name, folder in dirs.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            assert ".".join((name, *rel)) in listed, f"{init.parent} is not in [tool.setuptools] packages"


def test_a_remembered_setting_keeps_the_rest_of_the_file_as_written(tmp_path, monkeypatch):
    """Switching the theme writes config.toml: the user's comments, order and other
    tables must survive (a load-and-dump would drop the comments)."""
    from rivulet.core.config_sources import save_setting

    path = tmp_path / "config.toml"
    text = ('# my settings\nmodel = "gpt-5"  # the one I use\ntheme = "rivulet-dark"\n\n'
            '[mcp_servers.docs]  # docs server\ncommand = "docs-mcp"\n')
    path.write_text(text)
    monkeypatch.setenv("RIVULET_CONFIG", str(path))
    save_setting("theme", "rivulet-light")
    assert path.read_text() == text.replace('theme = "rivulet-dark"', 'theme = "rivulet-light"')
    save_setting("notify", "bell")
    written = path.read_text()
    assert "# my settings" in written and "# the one I use" in written and "# docs server" in written
    assert load_settings().notify == "bell"


def test_tables_merge_across_the_file_and_the_environment(config_file, monkeypatch):
    # A header from the file and one from the environment both count; the flag wins over both.
    config_file.write_text('[headers]\nOpenAI-Project = "p1"\nX-Team = "file"\n')
    monkeypatch.setenv("RIVULET_HEADERS", '{"X-Team": "env", "X-Env": "1"}')
    assert load_settings().headers == {"OpenAI-Project": "p1", "X-Team": "env", "X-Env": "1"}
    monkeypatch.setenv("rivulet_max_retries", "7")  # variable names are compared without case
    assert load_settings().max_retries == 7
    assert load_settings(max_retries=2).max_retries == 2


def test_a_table_in_the_environment_that_is_not_json_is_one_line_naming_it(config_file, monkeypatch):
    monkeypatch.setenv("RIVULET_HEADERS", "{oops")
    with pytest.raises(ConfigError, match=r"^bad \$RIVULET_HEADERS: not JSON") as info:
        load_settings()
    assert "\n" not in info.value.message

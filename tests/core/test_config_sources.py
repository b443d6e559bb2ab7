"""`config_sources.peek`: what the chat's first frame shows before the settings are
validated. It must read the sources the way `Settings` does, refuse what the chat would
refuse before drawing, and import no pydantic."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rivulet.core.config import Settings, load_settings
from rivulet.core.config_sources import SETTING_NAMES, peek
from rivulet.core.errors import ConfigError

CLEAN = ("RIVULET_", "OPENAI_")


@pytest.fixture
def sources(tmp_path, monkeypatch):
    """An empty environment and a config file the test writes."""
    import os

    for name in list(os.environ):
        if name.startswith(CLEAN):
            monkeypatch.delenv(name)
    path = tmp_path / "config.toml"
    path.write_text("")
    monkeypatch.setenv("RIVULET_CONFIG", str(path))
    return path


def test_the_names_are_the_settings_fields():
    assert set(Settings.model_fields) == SETTING_NAMES


@pytest.mark.parametrize("case", [
    dict(file='model = "from-file"\ntheme = "rivulet-light"\n', env={}, flags={}),
    dict(file='model = "from-file"\n', env={"RIVULET_MODEL": "from-env"}, flags={}),
    dict(file='model = "from-file"\n', env={"RIVULET_MODEL": "from-env"}, flags={"model": "from-flag"}),
    dict(file='base_url = "http://127.0.0.1:8080/v1/"\n', env={}, flags={}),
    dict(file='base_url = "http://127.0.0.1:8080/v1"\n', env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, flags={}),
    dict(file="", env={"RIVULET_BASE_URL": "http://127.0.0.1:7/v1", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
         flags={"base_url": "http://localhost:5/v1"}),
    dict(file='[keymap]\n"composer.submit" = "ctrl+s"\n', env={"RIVULET_THEME": "rivulet-light"}, flags={}),
    dict(file='api_key = "sk-file"\n', env={}, flags={}),
    dict(file="", env={"OPENAI_API_KEY": "sk-env"}, flags={}),
    dict(file="", env={}, flags={}),
])
def test_peek_layers_the_sources_as_the_settings_do(sources, monkeypatch, case):
    sources.write_text(case["file"])
    for name, value in case["env"].items():
        monkeypatch.setenv(name, value)
    seen, settings = peek(**case["flags"]), load_settings(**case["flags"])
    assert (seen.model, seen.base_url, seen.theme, seen.keymap) == \
        (settings.model, settings.base_url, settings.theme, settings.keymap)
    assert seen.has_key == (settings.api_key is not None)


def test_no_key_and_no_server_is_the_demo(sources):
    assert peek().needs_demo
    assert not peek(base_url="http://127.0.0.1:9/v1").needs_demo


@pytest.mark.parametrize("text, message", [
    ('modle = "x"\n', "unknown setting 'modle'"),
    ("model = \n", "cannot read config file"),
])
def test_what_the_chat_refuses_before_drawing(sources, text, message):
    sources.write_text(text)
    with pytest.raises(ConfigError, match=message):
        peek()


def test_a_value_of_the_wrong_type_is_left_to_the_validation(sources):
    sources.write_text("model = 5\nstream_fps = \"fast\"\n")
    assert peek().model == "gpt-5.1-codex"  # the default is shown until the validation says no
    with pytest.raises(ConfigError, match="bad 'model' in config file"):
        load_settings()


def test_a_missing_file_named_by_the_environment_is_refused(sources, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(sources.parent / "nope.toml"))
    with pytest.raises(ConfigError, match=r"\$RIVULET_CONFIG names"):
        peek()


def test_peek_imports_no_pydantic(sources):
    probe = ("import sys\nfrom rivulet.core.config_sources import peek\npeek()\n"
             "print(','.join(m for m in ('pydantic', 'pydantic_settings', 'httpx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "", out.stderr

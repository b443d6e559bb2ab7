"""Profiles (`[profiles.NAME]`, -p, `profile = ...`), `-c key=value`, and the order of
every source: defaults < provider preset < file < profile < environment < -c < flags."""

from __future__ import annotations

import os

import pytest

from rivulet.core.config import load_settings
from rivulet.core.config_overrides import parse_overrides
from rivulet.core.config_sources import SETTING_NAMES, peek
from rivulet.core.errors import ConfigError

CLEAN = ("RIVULET_", "OPENAI_", "AZURE_", "OPENROUTER_", "VLLM_")


@pytest.fixture
def config(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith(CLEAN):
            monkeypatch.delenv(name)
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(tmp_path / "sessions"))
    path = tmp_path / "config.toml"
    path.write_text("")
    monkeypatch.setenv("RIVULET_CONFIG", str(path))
    return path


LAYERED = '''
model = "from-file"
profile = "work"
[profiles.work]
model = "from-profile"
'''


def test_each_source_beats_the_one_below_it(config, monkeypatch):
    """defaults < file < profile < env < -c < flags, taken away from the top down."""
    config.write_text(LAYERED)
    monkeypatch.setenv("RIVULET_MODEL", "from-env")
    assert load_settings(model="from-flag", overrides=["model=from-c"]).model == "from-flag"
    assert load_settings(overrides=["model=from-c"]).model == "from-c"
    assert load_settings().model == "from-env"
    monkeypatch.delenv("RIVULET_MODEL")
    assert load_settings().model == "from-profile"
    config.write_text('model = "from-file"\n')
    assert load_settings().model == "from-file"
    config.write_text("")
    assert load_settings().model == "gpt-5.1-codex"


def test_a_preset_is_beneath_the_file(config):
    config.write_text('provider = "llamacpp"\n')
    assert load_settings().patch_tool == "function"
    assert load_settings().base_url == "http://127.0.0.1:8080/v1"
    config.write_text('provider = "llamacpp"\npatch_tool = "custom"\nbase_url = "http://127.0.0.1:9/v1"\n')
    settings = load_settings()
    assert (settings.patch_tool, settings.base_url) == ("custom", "http://127.0.0.1:9/v1")
    assert {"patch_tool", "base_url", "provider"} <= settings.explicit
    assert "transport" not in settings.explicit  # the preset's sse is not the user's choice


@pytest.mark.parametrize("how", ["flag", "file", "env", "c"])
def test_a_profile_is_picked_four_ways(config, monkeypatch, how):
    config.write_text(('profile = "local"\n' if how == "file" else "")
                      + '[profiles.local]\nbase_url = "http://127.0.0.1:8080/v1"\nmodel = "gemma"\n')
    if how == "env":
        monkeypatch.setenv("RIVULET_PROFILE", "local")
    settings = load_settings(profile="local" if how == "flag" else None,
                             overrides=["profile=local"] if how == "c" else [])
    assert (settings.profile, settings.model, settings.base_url) == ("local", "gemma", "http://127.0.0.1:8080/v1")


def test_the_flag_beats_the_files_profile(config):
    config.write_text('profile = "a"\n[profiles.a]\nmodel = "ma"\n[profiles.b]\nmodel = "mb"\n')
    assert load_settings(profile="b").model == "mb"
    assert load_settings().model == "ma"


def test_an_unknown_profile_is_one_line_with_the_nearest_name(config):
    config.write_text('[profiles.work]\nmodel = "m"\n[profiles.home]\nmodel = "n"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(profile="wrok")
    assert caught.value.message == "unknown profile 'wrok' (did you mean 'work'?)"
    with pytest.raises(ConfigError) as caught:
        load_settings(profile="zzzzzz")
    assert caught.value.message == "unknown profile 'zzzzzz' (the config file has: home, work)"
    config.write_text("")
    with pytest.raises(ConfigError, match=r"has no \[profiles.NAME\] table"):
        load_settings(profile="work")


def test_a_misspelt_key_in_a_profile_names_the_profile(config):
    config.write_text('[profiles.work]\nmodle = "m"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(profile="work")
    assert "unknown setting 'modle' in profile 'work'" in caught.value.message
    assert "did you mean 'model'" in caught.value.message


def test_a_bad_value_in_a_profile_names_the_profile(config):
    config.write_text('[profiles.work]\nmax_retries = "many"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(profile="work")
    assert caught.value.message.startswith("bad 'max_retries' in profile 'work'")


@pytest.mark.parametrize("table", ['api_key = "sk-live-SECRET-1"', '[profiles.work.headers]\nAuthorization = "Bearer sk-live-SECRET-1"',
                                   '[profiles.work.headers]\napi-key = "sk-live-SECRET-1"'])
def test_a_key_in_a_profile_is_refused_and_not_echoed(config, table):
    head = "[profiles.work]\n" if not table.startswith("[") else "[profiles.work]\nmodel = \"m\"\n"
    config.write_text(head + table + "\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(profile="work")
    assert "api_key_env" in caught.value.message
    assert "SECRET" not in caught.value.message


@pytest.mark.parametrize("item", ["api_key=sk-live-SECRET-1", "headers.authorization=Bearer sk-live-SECRET-1",
                                  "headers.X-API-Key=sk-live-SECRET-1"])
def test_a_key_in_c_is_refused_and_not_echoed(config, item):
    with pytest.raises(ConfigError) as caught:
        load_settings(overrides=[item])
    assert "api_key_env" in caught.value.message
    assert "SECRET" not in caught.value.message


def test_c_values_are_toml_and_plain_words_are_strings():
    values, labels = parse_overrides(["max_retries=2", "store=true", 'models=["a", "b"]', "model=gpt-5.1-codex",
                                      "stream_fps=12.5", 'instructions="say \\"hi\\""', "headers.X-Team=blue",
                                      "headers.X-Org = acme ", "query.api-version=2025-04-01-preview", "query.v=2024-10-21"], SETTING_NAMES)
    assert values == {"max_retries": 2, "store": True, "models": ["a", "b"], "model": "gpt-5.1-codex",
                      "stream_fps": 12.5, "instructions": 'say "hi"',
                      "headers": {"X-Team": "blue", "X-Org": "acme"}, "query": {"api-version": "2025-04-01-preview", "v": "2024-10-21"}}
    assert labels["headers"] == "-c headers"


@pytest.mark.parametrize("item, message", [
    ("model", "bad -c model: expected KEY=VALUE, e.g. -c model=gpt-5.1"),
    ("=x", "bad -c (empty): expected KEY=VALUE, e.g. -c model=gpt-5.1"),
    ("modle=x", "unknown setting 'modle' in -c modle (did you mean 'model'?)"),
    ("headers..x=1", "bad -c key 'headers..x': use letters, digits, - and _, with dots between tables"),
])
def test_a_bad_c_item_is_one_line_naming_its_key(config, item, message):
    with pytest.raises(ConfigError) as caught:
        load_settings(overrides=[item])
    assert caught.value.message == message


def test_a_bad_c_value_names_the_key(config):
    with pytest.raises(ConfigError) as caught:
        load_settings(overrides=["max_retries=lots"])
    assert caught.value.message.startswith("bad -c max_retries: ")
    with pytest.raises(ConfigError) as caught:
        load_settings(overrides=["transport=pigeon"])
    assert caught.value.message.startswith("bad -c transport: ")
    with pytest.raises(ConfigError) as caught:
        load_settings(overrides=["headers.X-Count=3"])
    assert caught.value.message == "bad -c headers: headers.X-Count: Input should be a valid string"


def test_c_tables_merge_with_the_files(config):
    config.write_text('[headers]\nX-Org = "acme"\nX-Team = "red"\n')
    settings = load_settings(overrides=["headers.X-Team=blue"])
    assert settings.headers == {"X-Org": "acme", "X-Team": "blue"}


def test_peek_follows_the_profile_and_c_as_the_settings_do(config, monkeypatch):
    config.write_text('[profiles.l]\nprovider = "llamacpp"\nmodel = "gemma"\n')
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-000")
    for kw in ({"profile": "l"}, {"profile": "l", "overrides": ["model=other", "base_url=http://127.0.0.1:7/v1"]},
               {"overrides": ["profile=l"]}):
        seen, settings = peek(**kw), load_settings(**kw)
        assert (seen.model, seen.base_url, seen.profile) == (settings.model, settings.base_url, settings.profile)
        assert seen.has_key is (settings.api_key is not None) is False  # llama.cpp is sent no key
        assert not seen.needs_demo


def test_peek_refuses_an_unknown_profile_before_the_first_frame(config):
    with pytest.raises(ConfigError, match="unknown profile"):
        peek(profile="nope")

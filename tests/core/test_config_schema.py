"""`Settings` is one pydantic model (issue 37.4): pydantic declares and validates every
setting, with no hand-made check beside it, and each field carries the description the
configuration reference is generated from (issue 38)."""

from __future__ import annotations

import importlib.util

import pydantic
import pytest

from rivulet.core.config import Settings, env_names, load_settings
from rivulet.core.errors import ConfigError

pytestmark = pytest.mark.usefixtures("isolated_config")


@pytest.fixture(autouse=True)
def _no_user_env(monkeypatch):
    for name in Settings.model_fields:
        for env in env_names(name):
            monkeypatch.delenv(env, raising=False)


def test_settings_is_a_pydantic_model_and_nothing_else_validates_it():
    assert issubclass(Settings, pydantic.BaseModel)
    assert all(isinstance(f, pydantic.fields.FieldInfo) for f in Settings.model_fields.values())
    for lookalike in ("rivulet.core.config_fields", "rivulet.core.config_pydantic"):
        assert importlib.util.find_spec(lookalike) is None, lookalike


def test_every_setting_is_described_in_the_schema():
    properties = Settings.model_json_schema()["properties"]
    assert set(properties) == set(Settings.model_fields)
    undescribed = sorted(name for name, prop in properties.items() if len(prop.get("description", "")) < 10)
    assert undescribed == []


def test_the_key_is_pydantics_secret_and_never_shown():
    settings = Settings(api_key="sk-schema-secret-1", base_url="http://localhost:1/v1")
    assert isinstance(settings.api_key, pydantic.SecretStr)
    assert settings.api_key.get_secret_value() == "sk-schema-secret-1"
    for text in (repr(settings), str(settings), settings.model_dump_json(), str(Settings.model_json_schema())):
        assert "sk-schema-secret" not in text


def test_environment_strings_are_converted_as_pydantic_converts_them(monkeypatch):
    monkeypatch.setenv("RIVULET_SAVE_SESSIONS", "no")
    monkeypatch.setenv("RIVULET_MAX_RETRIES", " 7 ")
    monkeypatch.setenv("RIVULET_STREAM_FPS", "20")
    settings = load_settings()
    assert (settings.save_sessions, settings.max_retries, settings.stream_fps) == (False, 7, 20.0)


def test_a_bad_value_is_one_line_naming_its_source_and_pydantics_reason(monkeypatch):
    monkeypatch.setenv("RIVULET_MAX_RETRIES", "-1")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert caught.value.message == "bad $RIVULET_MAX_RETRIES: Input should be greater than or equal to 0"
    monkeypatch.delenv("RIVULET_MAX_RETRIES")
    with pytest.raises(ConfigError) as caught:
        load_settings(overrides=["stream_fps=1000"])
    assert caught.value.message == "bad -c stream_fps: Input should be less than or equal to 120"

"""The settings' fast check (core/config_fields.py) never disagrees with pydantic: what it
accepts, pydantic accepts and converts to the same value; what it cannot vouch for goes to
pydantic, which words the error as it always did. And the usual run imports no pydantic."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Literal, get_args, get_origin

import pydantic
import pytest

from rivulet.core import config
from rivulet.core.config_fields import SecretStr, Unsure
from rivulet.core.config_pydantic import validate

# Inputs of every kind a source can give: TOML values, environment strings, flags.
SAMPLES = [
    None, True, False, 0, 1, -1, 2, 5, 100, 101, 1000, 10**20, 0.0, 0.5, 1.0, 2.5, -0.5, 5.0, 120.0,
    float("inf"), float("nan"), "", "0", "1", "-1", "07", "+3", " 5", "1_000", "2.5", "1e3", "-0", "0.0",
    "true", "false", "True", "yes", "off", "t", "sse", "ws", "auto", "SSE", "openai", "ask", "never-ask",
    "x", "gpt-5.1", "OPENAI_KEY_2", "9LIVES", "A\n", "http://localhost:1/v1", "https://h.example/v1/",
    "ftp://h", "web_search", [], ["a"], ["a", 1], [["a"]], ("a",), {}, {"a": "b"}, {"a": 1}, {"a": {"x": 1}},
    {"a": {"input": 1.5, "output": 2}}, {"a": {"input": "1"}}, {1: "a"}, b"bytes",
    [{"type": "web_search"}], ["file_search"],
]


def _literals(annotation: object) -> list[object]:
    if get_origin(annotation) is Literal:
        return list(get_args(annotation))
    return [v for arg in get_args(annotation) for v in _literals(arg)]


# Every allowed word of every choice setting, and each with a capital letter.
SAMPLES += [w for f in config._FIELDS.values() for v in _literals(f.annotation) for w in (v, str(v).title())]


def _pydantic(name: str, value: object) -> tuple[bool, object]:
    try:
        return True, validate({name: value}, config._FIELDS, config._VALIDATORS)[name]
    except pydantic.ValidationError:
        return False, None


def _fast(name: str, value: object) -> tuple[bool, object]:
    try:
        return True, config._validated_fast({name: value})[name]
    except Unsure:
        return False, None


@pytest.mark.parametrize("name", sorted(config._FIELDS))
def test_what_the_fast_check_accepts_pydantic_accepts_alike(name):
    vouched = 0
    for value in SAMPLES:
        fast_ok, fast_value = _fast(name, value)
        if not fast_ok:
            continue  # pydantic decides: the slow path
        vouched += 1
        slow_ok, slow_value = _pydantic(name, value)
        assert slow_ok, (name, value, "the fast check accepts what pydantic refuses")
        assert fast_value == slow_value and type(fast_value) is type(slow_value), (name, value, fast_value, slow_value)
    assert vouched, f"the fast check accepts no sample for {name}"  # each field has a fast path


def test_a_value_the_fast_check_cannot_vouch_for_is_converted_by_pydantic():
    settings = config.Settings(max_retries=" 3", store="yes", stream_fps="12", base_url="http://localhost:1/v1")
    assert (settings.max_retries, settings.store, settings.stream_fps) == (3, True, 12.0)


def test_a_bad_value_is_still_pydantics_error():
    with pytest.raises(pydantic.ValidationError) as caught:
        config.Settings(transport="pigeon", base_url="http://localhost:1/v1")
    assert caught.value.errors()[0]["msg"] == "Input should be 'sse', 'ws' or 'auto'"


def test_the_key_is_a_secret_whichever_path_checked_it():
    fast = config.Settings(api_key="sk-fast-1", base_url="http://localhost:1/v1")
    slow = config.Settings(api_key="sk-slow-1", max_retries=" 1", base_url="http://localhost:1/v1")
    for settings, key in ((fast, "sk-fast-1"), (slow, "sk-slow-1")):
        assert type(settings.api_key) is SecretStr and settings.api_key.get_secret_value() == key
        assert key not in repr(settings) and key not in str(settings.api_key)


def test_settings_from_a_usual_config_import_no_pydantic(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('model = "m"\nmax_retries = 2\nstream_fps = 20\nheaders = { X-Team = "blue" }\n'
                    'approval = "never-ask"\n[prices.m]\ninput = 1\noutput = 2.5\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    env.update({"RIVULET_CONFIG": str(path), "RIVULET_SAVE_SESSIONS": "false", "RIVULET_MAX_RETRIES": "3",
                "OPENAI_API_KEY": "sk-test-1", "HOME": str(tmp_path)})
    probe = ("import sys\nfrom rivulet.core.config import load_settings\n"
             "s = load_settings(base_url='http://localhost:1/v1')\n"
             "print(s.model, s.max_retries, s.save_sessions, s.stream_fps, s.headers, 'pydantic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.split() == ["m", "3", "False", "20.0", "{'X-Team':", "'blue'}", "False"], out.stderr

"""`-p NAME` and `-c key=value` on the real command line, and the Azure way of
authenticating checked against a server that accepts nothing else (tests/helpers/
api_key_server.py): an api-key header, api-version in the query, no Authorization."""

from __future__ import annotations

import pytest
from helpers.api_key_server import ApiKeyServer
from test_cli import rivulet

from rivulet.app.boot import all_overrides
from rivulet.app.cli import build_parser

VERSION = "2025-04-01-preview"
KEY = "az-test-key-7f3a9c"


def _profile(tmp_path, base_url: str, extra: str = "") -> str:
    config = tmp_path / "config.toml"
    config.write_text(f'[profiles.az]\nprovider = "azure"\nbase_url = "{base_url}"\nmodel = "dep-1"\n{extra}')
    return str(config)


def test_c_before_and_after_the_command_both_count():
    args = build_parser().parse_args(["-c", "model=a", "exec", "-c", "max_retries=1", "--config", "store=true", "hi"])
    assert all_overrides(args) == ["model=a", "max_retries=1", "store=true"]
    assert build_parser().parse_args(["exec", "-p", "work", "hi"]).profile == "work"


def test_an_azure_profile_reaches_a_server_that_takes_only_an_api_key_header(tmp_path):
    with ApiKeyServer(KEY, VERSION) as server:
        env = {"RIVULET_CONFIG": _profile(tmp_path, server.base_url), "AZURE_OPENAI_API_KEY": KEY,
               "OPENAI_API_KEY": "sk-openai-must-not-leave", "RIVULET_SESSIONS_DIR": str(tmp_path / "s")}
        proc = rivulet("-p", "az", "exec", "--ephemeral", "hi", env=env)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "hello from the deployment"
        post = [s for s in server.seen if s["path"] == "/openai/responses"]
        assert len(post) == 1
        assert post[0]["query"] == {"api-version": [VERSION]}
        assert post[0]["headers"]["api-key"] == KEY
        assert "authorization" not in post[0]["headers"]
        assert "sk-openai-must-not-leave" not in str(server.seen)


def test_the_same_server_refuses_a_bearer_key(tmp_path):
    """The server is strict: the same key as a Bearer token (provider custom) is refused."""
    with ApiKeyServer(KEY, VERSION) as server:
        env = {"RIVULET_CONFIG": _profile(tmp_path, server.base_url), "AZURE_OPENAI_API_KEY": KEY,
               "RIVULET_SESSIONS_DIR": str(tmp_path / "s")}
        proc = rivulet("-p", "az", "-c", "auth=bearer", "-c", "max_retries=0", "exec", "--ephemeral", "hi", env=env)
        assert proc.returncode != 0
        assert "Authorization header is not accepted" in proc.stderr
        assert KEY not in proc.stderr


def test_c_alone_reaches_it_too(tmp_path):
    with ApiKeyServer(KEY, VERSION) as server:
        env = {"AZURE_OPENAI_API_KEY": KEY, "RIVULET_SESSIONS_DIR": str(tmp_path / "s")}
        proc = rivulet("-c", "provider=azure", "exec", "-c", f"base_url={server.base_url}", "-c", f"query.api-version={VERSION}",
                       "--ephemeral", "hi", env=env)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "hello from the deployment"


async def test_the_model_list_carries_the_query_and_the_header(tmp_path, monkeypatch):
    from rivulet.core.config import load_settings
    from rivulet.core.protocol.models import list_models

    with ApiKeyServer(KEY, VERSION) as server:
        monkeypatch.setenv("RIVULET_CONFIG", _profile(tmp_path, server.base_url))
        monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)
        found = await list_models(load_settings(profile="az"))
        assert [m.id for m in found.models] == ["dep-1"] and found.source == "server"


@pytest.mark.parametrize("argv, line", [
    (["-p", "wrok", "exec", "hi"], "rivulet: error: unknown profile 'wrok' (did you mean 'work'?)\n"),
    (["-c", "api_key=sk-live-SECRET", "exec", "hi"], None),
    (["-c", "modle=x", "exec", "hi"], "rivulet: error: unknown setting 'modle' in -c modle (did you mean 'model'?)\n"),
])
def test_mistakes_are_one_line(tmp_path, argv, line):
    config = tmp_path / "config.toml"
    config.write_text('[profiles.work]\nmodel = "m"\n')
    proc = rivulet(*argv, env={"RIVULET_CONFIG": str(config)})
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    if line is not None:
        assert proc.stderr == line
    assert "SECRET" not in proc.stderr


def test_doctor_takes_the_profile_and_its_report_names_the_key_variable(tmp_path):
    with ApiKeyServer(KEY, VERSION) as server:
        env = {"RIVULET_CONFIG": _profile(tmp_path, server.base_url), "AZURE_OPENAI_API_KEY": KEY,
               "RIVULET_SESSIONS_DIR": str(tmp_path / "s")}
        proc = rivulet("-p", "az", "doctor", "--timeout", "20", "--report", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "| plain text | ok |" in proc.stdout and "(provider azure)" in proc.stdout
    assert f"curl -N '{server.base_url}/responses?api-version={VERSION}'" in proc.stdout
    assert '-H "api-key: $AZURE_OPENAI_API_KEY"' in proc.stdout
    assert KEY not in proc.stdout and "Authorization" not in proc.stdout
    assert all("authorization" not in s["headers"] for s in server.seen)

"""Attack 6 of issue 11: the API key was reachable. A shell child read it from
/proc/$PPID/environ; a key printed in two pieces was shown and committed in full;
other providers' keys in error bodies were printed; the key went over plain http to
any host."""

from __future__ import annotations

import base64
import json
import os
import subprocess

import pytest
from helpers.calls import fn_call, fn_call_response
from helpers.config_files import empty_config
from helpers.streams import body, completed, created, message, message_events
from hostile import RIVULET, HostileServer, rivulet_env
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from rivulet.core.config import Settings, load_settings
from rivulet.core.errors import ApiError, ConfigError, error_from_body
from rivulet.core.tools.approval import ApprovalPolicy
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.turn.bus import EventBus, ToolOutputDelta

KEY = "zz-live-0123456789abcdefghijKLMNOP"  # no known prefix: only masking by value can catch it


async def test_a_key_printed_in_two_pieces_is_masked_live_and_in_the_output(tmp_path):
    fifo = tmp_path / "go"
    os.mkfifo(fifo)
    gate = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # held open: the write below never blocks
    half = len(KEY) // 2
    command = f"printf '%s' 'before {KEY[:half]}'; read -r x < {fifo}; printf '%s\\n' '{KEY[half:]} after'"
    bus = EventBus()
    shown: list[str] = []

    def on_delta(event: ToolOutputDelta) -> None:
        shown.append(event.text)
        os.write(gate, b"go\n")  # the second piece is printed only after the first was shown

    bus.subscribe(on_delta, ToolOutputDelta)
    tools = AgentTools(ToolSettings(workspace=tmp_path, secrets=(KEY,)), ApprovalPolicy("never-ask"), bus)
    try:
        out = await tools.run(fn_call("fc", "c1", "shell", {"command": command, "workdir": None, "timeout_ms": 10000,
                                                            "justification": None}))
        await bus.drain()
    finally:
        os.close(gate)
    assert len(shown) >= 2, "the two pieces were not read separately"
    live = "".join(shown)
    assert "before [redacted] after" in live and KEY[:half] not in live and KEY[half:] not in live
    assert "before [redacted] after" in out["output"] and KEY[:half] not in out["output"]


def test_the_configured_key_is_masked_by_value_in_errors():
    Settings(api_key=KEY, base_url="https://api.example.com/v1")
    error = error_from_body(401, json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}."}}))
    assert KEY not in error.message and "[redacted]" in error.message
    assert KEY[:12] not in str(ApiError(f"key={KEY}"))


@pytest.mark.parametrize("leaked", [
    "AIzaSyA" + "b" * 32, "ghp_" + "c" * 36, "github_pat_" + "d" * 40,
    "AKIA" + "E" * 16, "xai-" + "f" * 40, "gsk_" + "g" * 40, "hf_" + "h" * 34, "xoxb-" + "1" * 20,
    "sk_live_" + "i" * 24,
])
def test_other_providers_keys_in_an_error_body_are_redacted(leaked):
    error = error_from_body(400, json.dumps({"error": {"message": f"upstream said: invalid key {leaked} (retry)"}}))
    assert leaked not in error.message and leaked[:10] not in error.message
    assert error.message == "upstream said: invalid key [redacted] (retry)"


def _shell_then_answer(command: str):
    def respond(request: dict, headers: dict) -> tuple[int, str, bytes]:
        if not any(i.get("type") == "function_call_output" for i in request.get("input", [])):
            call = fn_call("fc_1", "call_1", "shell", {"command": command, "workdir": None, "timeout_ms": 20000,
                                                       "justification": None})
            return 200, "text/event-stream", fn_call_response("r1", call)
        return 200, "text/event-stream", body([created("r2"), *message_events("m2", "done"),
                                               completed([message("m2", "done")], "r2")])
    return respond


def test_a_shell_child_cannot_read_the_key_from_the_parent_environment(tmp_path):
    # base64: masking by value cannot see an encoded key; only its absence protects it.
    command = "base64 -w0 /proc/$PPID/environ; echo; echo ---; base64 -w0 /proc/1/environ 2>/dev/null"
    with HostileServer(_shell_then_answer(command)) as server:
        env = rivulet_env(tmp_path, OPENAI_API_KEY=KEY, RIVULET_SANDBOX="off")
        done = subprocess.run([*RIVULET, "exec", "--approval", "never-ask", "--base-url", server.base_url,
                               "--workspace", str(tmp_path), "hi"], env=env, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        outputs = [i for r in server.requests for i in r["input"] if i.get("type") == "function_call_output"]
    assert outputs, "the command did not run"
    text = outputs[0]["output"]
    blobs = [line.strip() for line in text.splitlines() if len(line.strip()) > 40]
    assert blobs, f"the command printed no environment: {text[:300]}"
    decoded = b"".join(base64.b64decode(b + "=" * (-len(b) % 4)) for b in blobs)
    assert b"OPENAI_API_KEY" in decoded  # it did read the parent's block ...
    assert KEY.encode() not in decoded  # ... which no longer holds the key


def test_the_key_is_refused_over_plain_http_to_another_host(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "none.toml")))
    with pytest.raises(ConfigError, match="plain http"):
        load_settings(base_url="http://api.example.com/v1", api_key=KEY)
    with pytest.raises(ConfigError, match="plain http"):
        Settings(base_url="http://10.0.0.7:8000/v1", api_key=KEY).auth_headers()
    assert load_settings(base_url="http://127.0.0.1:8000/v1", api_key=KEY).auth_headers()["Authorization"]
    assert load_settings(base_url="https://api.example.com/v1", api_key=KEY).auth_headers()
    allowed = load_settings(base_url="http://api.example.com/v1", api_key=KEY, allow_insecure_http=True)
    assert allowed.auth_headers()["Authorization"] == f"Bearer {KEY}"
    done = subprocess.run([*RIVULET, "exec", "--base-url", "http://192.0.2.1/v1", "hi"], capture_output=True,
                          text=True, timeout=60, env=rivulet_env(tmp_path, OPENAI_API_KEY=KEY))
    assert done.returncode == 2 and "refusing to send the API key over plain http" in done.stderr


@hsettings(max_examples=200, deadline=None)
@given(st.text(alphabet="zz-live0123ab \n", max_size=60), st.text(alphabet="zz-live0123ab \n", max_size=60),
       st.lists(st.integers(1, 25), min_size=1, max_size=30))
def test_the_key_is_masked_however_the_output_is_cut(before, after, cuts):
    from rivulet.core.tools.secret_mask import SecretMasker

    text = before + KEY + after + KEY[:7]  # a key, and a key's start at the very end
    masker, out, pos = SecretMasker((KEY,)), [], 0
    for size in cuts * (len(text) // sum(cuts) + 1):
        out.append(masker.feed(text[pos:pos + size]))
        pos += size
        if pos >= len(text):
            break
    out.append(masker.flush())
    assert "".join(out) == text.replace(KEY, "[redacted]")
    assert KEY not in "".join(out)

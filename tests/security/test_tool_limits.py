"""Attack 9 of issue 11 (the tool layer's part): 100 MB of arguments took 559 MB of
memory, and a 200 MB patch was applied. Both are refused now, before anything is
parsed or written, with an error the model can act on; the call stays answered."""

from __future__ import annotations

import json
import tracemalloc

from helpers.calls import custom_call, fn_call
from helpers.config_files import empty_config

from rivulet.core.config import Settings
from rivulet.core.tools.approval import ApprovalPolicy
from rivulet.core.tools.router import AgentTools, ToolSettings, tool_settings


async def test_huge_arguments_are_refused_without_being_parsed(tmp_path):
    big = json.dumps({"command": "echo " + "x" * 20_000_000, "workdir": None, "timeout_ms": None,
                      "justification": None})
    call = {**fn_call("fc", "c1", "shell", {}), "arguments": big}
    tools = AgentTools(ToolSettings(workspace=tmp_path), ApprovalPolicy("never-ask"))
    tracemalloc.start()
    try:
        out = await tools.run(call)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out["type"] == "function_call_output" and out["call_id"] == "c1"
    assert "more than the limit of 4,000,000 (setting max_tool_args_chars)" in out["output"]
    assert peak < 2_000_000, f"{peak:,} bytes allocated to refuse it"


async def test_a_patch_over_the_cap_is_refused_and_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "none.toml")))
    ws = tmp_path / "ws"
    ws.mkdir()
    limits = tool_settings(Settings(workspace=str(ws), max_patch_chars=5_000, api_key="k"))
    assert limits.max_patch_chars == 5_000
    patch = "*** Begin Patch\n*** Add File: big.txt\n" + "+0123456789\n" * 1000 + "*** End Patch\n"
    tools = AgentTools(limits, ApprovalPolicy("never-ask"))
    out = await tools.run(custom_call("ct", "c2", "apply_patch", patch))
    assert out == {"type": "custom_tool_call_output", "call_id": "c2", "output": out["output"]}
    assert "more than the limit of 5,000 (setting max_patch_chars); no file was changed" in out["output"]
    assert not (ws / "big.txt").exists()
    small = "*** Begin Patch\n*** Add File: small.txt\n+ok\n*** End Patch\n"
    assert "Success" in (await tools.run(custom_call("ct2", "c3", "apply_patch", small)))["output"]

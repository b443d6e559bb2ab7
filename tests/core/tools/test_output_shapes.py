"""Every output rivulet sends back for a client-executed call has exactly the shape its
type requires, checked against the openai SDK's own input types (a test-only oracle)."""

from __future__ import annotations

import typing

import pytest
from openai.types.responses import response_input_item_param as sdk
from pydantic import TypeAdapter

from rivulet.core import items as it
from rivulet.core.tools.builtin import BuiltinTools

SDK_TYPES = {
    "function_call_output": sdk.FunctionCallOutput,
    "custom_tool_call_output": None,  # its own module, below
    "local_shell_call_output": sdk.LocalShellCallOutput,
    "shell_call_output": sdk.ShellCallOutput,
    "apply_patch_call_output": sdk.ApplyPatchCallOutput,
    "computer_call_output": sdk.ComputerCallOutput,
}

CALLS = {
    "function_call": {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
    "custom_tool_call": {"id": "ct_1", "type": "custom_tool_call", "call_id": "call_2", "name": "c", "input": "x"},
    "shell_call": {"id": "sh_1", "type": "shell_call", "call_id": "call_3", "action": {"commands": ["ls"]}},
    "apply_patch_call": {"id": "ap_1", "type": "apply_patch_call", "call_id": "call_4",
                         "operation": {"type": "create_file", "path": "a.txt", "diff": "+a"}},
    "computer_call": {"id": "cu_1", "type": "computer_call", "call_id": "call_5", "action": {"type": "screenshot"}},
}


def _sdk_type(kind: str):
    if kind == "custom_tool_call_output":
        from openai.types.responses.response_custom_tool_call_output_param import ResponseCustomToolCallOutputParam
        return ResponseCustomToolCallOutputParam
    return SDK_TYPES[kind]


def _check(output: dict) -> None:
    cls = _sdk_type(output["type"])
    TypeAdapter(cls).validate_python(output)  # required keys present, every type right
    allowed = set(typing.get_type_hints(cls, include_extras=False))
    assert set(output) <= allowed, f"{output['type']}: unknown keys {set(output) - allowed}"
    assert output["call_id"]


@pytest.mark.parametrize("kind", sorted(CALLS))
def test_aborted_outputs_have_the_sdk_shape(kind):
    _check(it.aborted_output(CALLS[kind], "aborted: the user interrupted the turn"))


@pytest.mark.parametrize("kind", sorted(CALLS))
async def test_a_call_rivulet_does_not_offer_is_answered_in_the_sdk_shape(kind):
    _check(await BuiltinTools().run(CALLS[kind]))


def test_the_shell_outcome_of_an_aborted_call_is_an_exit_record():
    out = it.aborted_output(CALLS["shell_call"], "not run")
    assert out["output"][0]["outcome"] == {"type": "exit", "exit_code": 130}
    assert out["output"][0]["stderr"] == "not run"


def test_an_aborted_patch_is_failed_not_completed():
    assert it.aborted_output(CALLS["apply_patch_call"])["status"] == "failed"

"""OpenAI's gpt-oss reference Responses server with a scripted "model".

Run with the gpt-oss virtualenv (see scripts/setup), not rivulet's:

    python tests/peers/gptoss_scripted.py PORT

Every event is built by OpenAI's server code (`gpt_oss.responses_api.api_server`); only
the token source is ours. It plays harmony tokens, as the model would emit them,
chosen from what the prompt holds:

* the prompt has no tool result yet: reasoning, then a call ending in <|call|>:
  `functions.apply_patch` (a fixed patch) when the user's message says "patch",
  else `functions.shell` (`cat data.txt`);
* the prompt holds a tool result: reasoning, then a final answer that quotes the last
  line of the tool's output, ending in <|return|>.

The server calls the token source synchronously, one token at a time.
"""

from __future__ import annotations

import json
import sys

import uvicorn
from gpt_oss.responses_api.api_server import create_api_server
from openai_harmony import HarmonyEncodingName, Message, Role, load_harmony_encoding

encoding = load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)
START_ASSISTANT = 2  # <|start|>assistant: the prompt already ends with these
END, RETURN = 200007, 200002


def _tokens(*messages: Message) -> list[int]:
    out: list[int] = []
    for n, message in enumerate(messages):
        toks = encoding.render(message)
        out.extend(toks[START_ASSISTANT:] if n == 0 else toks)
    if out[-1] == END:
        out[-1] = RETURN  # a final answer ends the response
    return out


PATCH = ("*** Begin Patch\n*** Add File: made-by-gpt-oss.txt\n+written through the reference server\n"
         "*** Update File: data.txt\n@@\n-the answer is 42\n+the answer is 43\n*** End Patch\n")


def _call(tool: str, args: dict, thought: str) -> list[int]:
    return _tokens(
        Message.from_role_and_content(Role.ASSISTANT, thought).with_channel("analysis"),
        Message.from_role_and_content(Role.ASSISTANT, json.dumps(args)).with_channel("commentary")
        .with_recipient(f"functions.{tool}").with_content_type("<|constrain|>json"),
    )


def _script(prompt: list[int]) -> list[int]:
    text = encoding.decode(prompt)
    results = [m for m in ("<|start|>functions.shell to=assistant", "<|start|>functions.apply_patch to=assistant")
               if m in text]
    if not results:
        user = text.rsplit("<|start|>user<|message|>", 1)[-1]
        if "patch" in user:
            return _call("apply_patch", {"input": PATCH}, "The user wants a change. Write a patch.")
        args = {"command": "cat data.txt", "workdir": None, "timeout_ms": None,
                "justification": "read the file the user asked about"}
        return _call("shell", args, "The user wants data.txt. Run cat.")
    marker = max(results, key=text.rfind)
    result = text.rsplit(marker, 1)[1]
    lines = [line for line in result.split("<|message|>", 1)[-1].split("<|end|>", 1)[0].splitlines() if line.strip()]
    quoted = lines[-1] if lines else "(nothing)"
    return _tokens(
        Message.from_role_and_content(Role.ASSISTANT, "The command ran. Report it.").with_channel("analysis"),
        Message.from_role_and_content(Role.ASSISTANT, f"The file ends with: {quoted}").with_channel("final"),
    )


_queue: list[int] = []


def infer_next_token(tokens: list[int], temperature: float = 0.0, new_request: bool = False) -> int:
    global _queue
    if new_request or not _queue:
        _queue = _script(tokens)
    return _queue.pop(0)


if __name__ == "__main__":
    port = int(sys.argv[1])
    uvicorn.run(create_api_server(infer_next_token, encoding), host="127.0.0.1", port=port, log_level="warning")

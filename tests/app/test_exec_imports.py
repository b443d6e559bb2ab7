"""`rivulet exec` imports what a turn needs and nothing else: no TUI, no pydantic-settings
(pydantic validates the settings; the layering is ours), no command-line tool of
httpx, no MCP SDK when no server is configured; no code of a tool, a checkpoint walk or a
hook in a turn that runs none, and no class of ours made by @dataclass. Each of these cost
milliseconds of a start (benchmarks/exec_bench.py measures it)."""

from __future__ import annotations

import os
import subprocess
import sys

from helpers.local_server import LocalServer, Reply, Request, json_reply, sse_reply
from helpers.streams import simple_text_response

NOT_NEEDED = ("textual", "rich", "pydantic_settings", "click", "pygments", "mcp", "websockets",
              "acp", "rivulet.app.acp",  # the Agent Client Protocol SDK: `rivulet acp` only (issue 39)
              "rivulet.core.tools.mcp_client",
              # what only a tool call, a hook or an error needs (issue 22: each is a few ms of a start)
              "pathspec", "rivulet.core.checkpoints.restore", "rivulet.core.checkpoints.store",
              "rivulet.core.tools.shell", "rivulet.core.tools.patch_apply", "rivulet.core.hooks.dispatch",
              "rivulet.core.hooks.runner", "ctypes", "difflib", "rivulet.app.attach.refs",
              # the default config, sessions and checkpoints folders, when all are given (as here; exec
              # looks for an interrupted restore in the checkpoints' folder at every start)
              "platformdirs",
              # the Unicode tables of core/sanitize.py: an answer all in ASCII takes its fast path
              "regex",
              # an HTML error page's entities (core/errors.one_line): only with such a page (issue 37)
              "html",
              # what only --output-schema checks (issue 40: ~60 ms of a start)
              "jsonschema")

PROBE = """
import sys
from rivulet.app import cli
try:
    code = cli.main(["exec", "--base-url", {url!r}, "hi"])
except SystemExit as exit:
    code = exit.code
print("LOADED", ",".join(m for m in {modules!r} if m in sys.modules), "EXIT", code, file=sys.stderr)
made = sorted(f"{{name}}.{{k}}" for name, mod in list(sys.modules.items()) if name.startswith("rivulet.")
              for k, v in vars(mod).items()
              if isinstance(v, type) and v.__module__ == name and "__dataclass_fields__" in v.__dict__)
print("DATACLASSES", ",".join(made), file=sys.stderr)
"""


def _answer(request: Request) -> Reply | None:
    if request.method == "GET" and request.route == "/v1/models":  # a local server's one model (issue 42.2)
        return json_reply(200, {"object": "list", "data": [{"id": "local-model", "object": "model"}]})
    return sse_reply(simple_text_response("Hello from the server")) if request.method == "POST" else None


def test_an_exec_turn_imports_nothing_it_does_not_use(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    env.update({"RIVULET_CONFIG": os.devnull, "RIVULET_SESSIONS_DIR": str(tmp_path), "HOME": str(tmp_path),
                "RIVULET_CHECKPOINTS_DIR": str(tmp_path / "checkpoints")})
    with LocalServer(_answer) as server:
        proc = subprocess.run([sys.executable, "-c", PROBE.format(url=server.base_url, modules=NOT_NEEDED)],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert proc.stdout.strip() == "Hello from the server"
    assert "LOADED  EXIT 0" in proc.stderr, proc.stderr
    # A @dataclass compiles its methods at import (~0.7 ms, a frozen one ~1.3): the classes a
    # turn imports are msgspec Structs (made in C) or plain classes.
    assert "DATACLASSES \n" in proc.stderr, proc.stderr

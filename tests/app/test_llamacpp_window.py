"""The context window against a llama.cpp-like server (a real local HTTP server whose
`/v1/models` lists one GGUF file with `meta.n_ctx`, as llama-server does): the window
is the one the server runs, whatever `--model` says, `/status` says where it came
from, and automatic compaction measures against it (issue 23, part 7)."""

from __future__ import annotations

import json

import pytest
from helpers.canned_server import CannedServer
from helpers.paths import ROOT
from helpers.streams import simple_text_response
from helpers.tui import until

from rivulet.app.commands.status import status_lines
from rivulet.app.tui import RivuletApp
from rivulet.core.config import Settings
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.turn.compaction import SUMMARY_PROMPT
from rivulet.widgets.status import StatusLine

GGUF = "/models/qwen2.5-1.5b-instruct-q4_k_m.gguf"
LLAMA_MODELS = [{"id": GGUF, "object": "model", "owned_by": "llamacpp",
                 "meta": {"n_ctx": 16_384, "n_ctx_train": 32_768, "n_vocab": 151_936}}]


pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def _app(server: CannedServer, **kw) -> RivuletApp:
    s = Settings(base_url=server.base_url, save_sessions=False, **kw)
    return RivuletApp(s, SseTransport(s), remember_theme=False)


@pytest.mark.parametrize("model", ["qwen", "qwen2.5-1.5b-instruct-q4_k_m", None])
async def test_the_window_is_the_one_the_server_runs(model):
    kw = {"model": model} if model else {}  # None: the default model, which llama-server ignores
    with CannedServer(simple_text_response("hi"), models=LLAMA_MODELS) as server:
        app = _app(server, **kw)
        async with app.run_test(size=(110, 30)) as pilot:
            status = app.query_one(StatusLine)
            await until(pilot, lambda: status.window == 16_384, "the window llama-server reports")
            lines = status_lines(app.services)
    assert f"window from    the server's /models ({GGUF})" in lines
    assert "context        window 16,384 tokens, nothing sent yet" in lines


async def test_status_says_when_the_figure_is_rivulets_own():
    with CannedServer(simple_text_response("hi"), models=None) as server:  # no /models: 404
        app = _app(server, model="qwen2.5-coder")
        async with app.run_test(size=(110, 30)) as pilot:
            await pilot.pause()
            lines = status_lines(app.services)
            assert app.query_one(StatusLine).window == 32_768
    assert "window from    rivulet's table of known models" in lines


async def test_automatic_compaction_measures_against_the_servers_window():
    full = {"input_tokens": 14_000, "output_tokens": 1_000, "total_tokens": 15_000}  # 91% of 16,384
    bodies = [simple_text_response("one", "r1", "m1", usage=full), simple_text_response("summary", "rs", "ms"),
              simple_text_response("two", "r2", "m2")]
    with CannedServer(*bodies, models=LLAMA_MODELS) as server:
        app = _app(server, model="qwen")
        async with app.run_test(size=(110, 30)) as pilot:
            status = app.query_one(StatusLine)
            await until(pilot, lambda: status.window == 16_384, "the window")
            await pilot.press(*"first", "enter")
            await until(pilot, lambda: status.usage is not None and status.state == "idle", "the first turn")
            await pilot.press(*"second", "enter")
            await until(pilot, lambda: len(server.requests) == 3 and status.state == "idle", "the second turn")
    prompts = [r["input"][-1]["content"][0]["text"] for r in server.requests]
    assert prompts == ["first", SUMMARY_PROMPT, "second"]


async def test_the_real_llamacpp_model_list_gives_its_n_ctx_for_a_short_name():
    listed = json.loads((ROOT / "fixtures/real/llamacpp/llamacpp_models.json").read_text())["data"]
    with CannedServer(simple_text_response("hi"), models=listed) as server:
        app = _app(server, model="qwen")
        async with app.run_test(size=(110, 30)) as pilot:
            status = app.query_one(StatusLine)
            await until(pilot, lambda: status.window == 16_384, "the window of the real capture")
            assert "window from    the server's /models (/work/peer/models/qwen-coder-1.5b.gguf)" in status_lines(app.services)

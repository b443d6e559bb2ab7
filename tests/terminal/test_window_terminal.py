"""The context window against a llama.cpp-like server, in a real terminal: the status
line measures against the window the server runs for `--model qwen` (not the table's
32,768), and `/status` says where the figure came from."""

from __future__ import annotations

from helpers.canned_server import CannedServer
from helpers.streams import simple_text_response

from .chat_app import RIVULET, chat_ready

GGUF = "/models/qwen2.5-1.5b-instruct-q4_k_m.gguf"
HALF = {"input_tokens": 8_000, "output_tokens": 192, "total_tokens": 8_192}  # half of 16,384, a quarter of 32,768


def test_the_servers_window_is_used_and_status_says_so(term):
    models = [{"id": GGUF, "object": "model", "owned_by": "llamacpp", "meta": {"n_ctx": 16_384, "n_ctx_train": 32_768}}]
    with CannedServer(simple_text_response("hi there", usage=HALF), models=models) as server:
        term.start([*RIVULET, "--base-url", server.base_url, "--model", "qwen"], cwd=term.home / "work")
        term.wait(chat_ready, what="the chat")
        term.send("hello", "Enter")
        term.wait("50% context left", what="the context left against 16,384 tokens")
        term.type("/status")
        term.send("Enter")
        screen = term.wait("window from", what="/status")
    assert "8,192 of 16,384 tokens, 50% left" in screen
    assert f"window from    the server's /models ({GGUF})" in screen

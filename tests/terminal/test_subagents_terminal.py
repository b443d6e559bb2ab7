"""Issue 41 in the chat, in a real terminal at 80×24 and at 120×40: two subagents stream at
once, each in its own pane under its spawn_agent call, and fold to a header and a line
when they end. The server (a real socket) holds both answers after their first line
until the test has seen both panes streaming."""

from __future__ import annotations

import threading

import pytest
from helpers.agent_server import first_user_text, spawn
from helpers.calls import answer, fn_call_response
from helpers.local_server import Reply, Request, StubServer, json_reply, sse_reply
from helpers.streams import body, completed, created, message, message_events

from .chat_app import RIVULET, chat_ready

PROMPT = "delegate both"
TASKS = {"count the tests": ("counter", "COUNTER"), "read the docs": ("reader", "READER")}


class TwoAgentsServer(StubServer):
    """The prompt gets two spawn_agent calls, then the final answer; each subagent's answer
    streams its first line, waits for `gate`, then ends."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.lock = threading.Lock()
        self.prompts = 0

    def reply(self, request: Request) -> Reply:
        if request.method == "GET":
            return json_reply(404, {"error": {"message": "no model list here"}})
        key = first_user_text(request.json()["input"])
        if key == PROMPT:
            with self.lock:
                self.prompts += 1
                first = self.prompts == 1
            if first:
                calls = [spawn(f"call_{n}", task, name=name) for n, (task, (name, _)) in enumerate(TASKS.items())]
                return sse_reply(fn_call_response("r1", *calls))
            return sse_reply(answer("r2", "ALL DONE: both reported"))
        tag = TASKS[key][1]
        text = f"{tag} line one\n{tag} line two\n"  # two deltas of one line each
        events = [created(f"r_{tag}"), *message_events(f"m_{tag}", text, chunks=2),
                  completed([message(f"m_{tag}", text)], f"r_{tag}")]

        def stream():
            yield body(events[:4])  # created, the message added, its part, the first line
            self.gate.wait(60)
            yield body(events[4:])

        return sse_reply(stream())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_two_subagents_stream_at_once_in_their_panes_then_fold(term, size):
    term.width, term.height = size
    with TwoAgentsServer() as server:
        term.start([*RIVULET, "--base-url", server.base_url, "-c", "save_sessions=false"], cwd=term.home / "work")
        term.wait(chat_ready, what="the chat")
        term.type(PROMPT)
        term.send("Enter")
        screen = term.wait(lambda s: "COUNTER line one" in s and "READER line one" in s,
                           what="both subagents streaming at once")
        assert "line two" not in screen  # held by the server: both are live at once
        assert "◆ agent 'counter' · running" in screen and "◆ agent 'reader' · running" in screen
        assert "2 subagents running" in screen  # the status line says what runs
        rows = screen.splitlines()
        # each subagent's text is in its own pane: below its own header, above the next one's
        at = {what: next(n for n, row in enumerate(rows) if what in row)
              for what in ("agent 'counter'", "COUNTER line one", "agent 'reader'", "READER line one")}
        assert at["agent 'counter'"] < at["COUNTER line one"] < at["agent 'reader'"] < at["READER line one"]
        assert all(len(row) <= size[0] for row in rows)
        server.gate.set()
        screen = term.wait(lambda s: "ALL DONE" in s and "Done in" in s and "· running" not in s,
                           what="the answer, both subagents folded")
        assert "◆ agent 'reader' · done" in screen and "→ READER line one" in screen
        if size == (120, 40):  # the whole turn fits: both folded panes under their calls
            assert "◆ agent 'counter' · done" in screen and "→ COUNTER line one" in screen
        rows = screen.splitlines()
        header = next(n for n, row in enumerate(rows) if "◆ agent 'reader' · done" in row)
        assert "task: read the docs" in rows[header + 1] and "→ READER line one" in rows[header + 2]
        assert "line two" not in rows[header + 2]  # folded: its header and one line (the call shows the output)
        assert all(len(row) <= size[0] for row in rows)

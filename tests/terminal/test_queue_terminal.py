"""Issue 25 in a real terminal: messages typed while a turn runs. Enter queues them in a
list above the composer, alt+up moves into it and `d` drops one, Tab steers the draft
into the running turn; the server sees the steered message right after the tool's
output, and the queued one as the next turn."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready

# The tool runs until the test creates `go` in the workspace: the user types meanwhile.
HELD = "while [ ! -e go ]; do sleep 0.1; done; echo released"


def rows_above_composer(screen: str) -> list[str]:
    """The lines between the status line and the composer's top border."""
    lines = screen.splitlines()
    top = max(i for i, line in enumerate(lines) if line.lstrip().startswith("╭"))
    status = max(i for i, line in enumerate(lines[:top]) if "esc to interrupt" in line or "Done in" in line
                 or "Ready" in line)
    return [line.strip() for line in lines[status + 1:top] if line.strip()]


def user_texts(body: dict) -> list[str]:
    return [i["content"][0]["text"] for i in body["input"] if i.get("role") == "user"]


def test_queue_drop_and_steer_while_a_tool_runs(term, server):
    work = term.home / "work"
    server.call("shell", {"command": HELD, "workdir": None, "timeout_ms": 120000, "justification": None})
    term.start([*RIVULET, "--base-url", server.base_url, "--approval", "never-ask"], cwd=work)
    term.wait(chat_ready, what="the chat")
    term.send("look at the logs", "Enter")
    term.wait(lambda s: "esc to interrupt" in s and len(server.bodies) == 1, what="the tool running")
    term.type("queued alpha")
    term.send("Enter")
    term.wait("queued 1 queued alpha", what="the first queued row")
    term.type("queued beta")
    term.send("Enter")
    screen = term.wait("queued 2 queued beta", what="the second queued row")
    rows = rows_above_composer(screen)
    assert rows[:2] == ["queued 1 queued alpha", "queued 2 queued beta"], screen  # right above the composer
    assert any("alt+up: edit the queue" in row and "tab: steer" in row for row in rows), screen
    term.send("M-Up")  # into the queue, on the newest entry
    term.wait("▸ queued 2 queued beta", what="the newest entry chosen")
    term.send("d")
    term.wait(lambda s: "queued beta" not in s, what="the entry dropped")
    term.wait("d/del: drop", what="the list's own keys")
    term.send("Escape")  # back to the composer; the turn goes on
    # (waited for: an Esc read together with the next characters would be alt+s)
    term.wait(lambda s: "alt+up: edit the queue" in s and "esc to interrupt" in s, what="typing again")
    term.type("steer this way")
    term.wait("tab to steer", what="the status line's steer hint")
    term.send("Tab")
    screen = term.wait("steering steer this way", what="the steered row")
    assert len(server.bodies) == 1  # it waits for the turn's next request
    (work / "go").touch()  # the tool ends
    term.wait(lambda s: "ECHO[queued alpha]END" in s and len(server.bodies) == 3, what="the queue drained")
    follow_up = server.bodies[1]["input"]
    assert [i.get("type") for i in follow_up[-2:]] == ["function_call_output", "message"]
    assert follow_up[-2]["output"].rstrip().endswith("released")
    assert user_texts(server.bodies[1]) == ["look at the logs", "steer this way"]
    assert user_texts(server.bodies[2])[-1] == "queued alpha"  # its own turn, after the steered one
    assert "queued beta" not in str(server.bodies)  # dropped: never sent
    term.wait(lambda s: "queued alpha" not in "\n".join(rows_above_composer(s)), what="the queue emptied")

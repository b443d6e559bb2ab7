"""Attachments, project instructions and edit-and-resend against aimock, a real
Responses server, over real HTTP. aimock's own journal keeps its chat-style reading
of each request (image parts dropped), so a small recording proxy in front of it keeps
the exact bodies rivulet sent."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import httpx
import pytest
from helpers.aimock import rivulet
from helpers.config_files import empty_config
from helpers.images import PNG
from helpers.local_server import Reply, Request, StubServer
from helpers.mock_api import settings
from helpers.tui import until

from rivulet.app.tui import RivuletApp
from rivulet.core.protocol.transports import make_transport
from rivulet.widgets.composer import Composer
from rivulet.widgets.entries import TranscriptEntry


class Recorder(StubServer):
    """An HTTP proxy to `upstream` that keeps each JSON request body."""

    def __init__(self, upstream: str) -> None:
        super().__init__(protocol="HTTP/1.0")  # (as http.server's default answered)
        self.upstream = upstream.rstrip("/")
        self.bodies: list[dict] = []
        self.url = self.base_url
        self.start()

    def reply(self, request: Request) -> Reply:
        if request.method == "POST":
            self.bodies.append(request.json())
        answer = httpx.request(request.method, self.upstream + request.path.removeprefix("/v1"),
                               content=request.body if request.method == "POST" else None, timeout=60,
                               headers={"content-type": "application/json"})
        return Reply(answer.status_code, {"content-type": answer.headers.get("content-type", "application/json")},
                     answer.content)

    def close(self) -> None:
        self.stop()


@pytest.fixture
def recorder(aimock) -> Iterator[Recorder]:
    rec = Recorder(aimock)
    try:
        yield rec
    finally:
        rec.close()


@pytest.fixture
def project(tmp_path):
    """A git repository with AGENTS.md at its root and in the workspace below it."""
    repo = tmp_path / "repo"
    ws = repo / "pkg"
    ws.mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "AGENTS.md").write_text("root rule\n")
    (ws / "AGENTS.md").write_text("pkg rule\n")
    (ws / "notes.txt").write_text("the secret word is plum\n")
    (ws / "shot.png").write_bytes(PNG)
    return ws


def image_of(parts: list[dict]) -> bytes:
    (url,) = [p["image_url"] for p in parts if p["type"] == "input_image"]
    prefix, data = url.split(",", 1)
    assert prefix == "data:image/png;base64"
    return base64.b64decode(data)


def test_exec_sends_agents_md_instructions_and_image_parts(recorder, project, tmp_path):
    proc = rivulet("exec", "say-hello", "--base-url", recorder.url, "--workspace", str(project),
                   "--instructions", "be brief", "-i", str(project / "shot.png"), "--image", str(project / "shot.png"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Hello from aimock!")
    (body,) = recorder.bodies
    assert body["instructions"] == "# AGENTS.md\n\nroot rule\n\n# pkg/AGENTS.md\n\npkg rule\n\nbe brief"
    (user,) = body["input"]
    parts = user["content"]
    # The prompt, then each --image as its label, the image and the closing label.
    assert [p["type"] for p in parts] == ["input_text"] + ["input_text", "input_image", "input_text"] * 2
    assert parts[0] == {"type": "input_text", "text": "say-hello"}
    assert parts[1]["text"] == '<image path="shot.png">'
    assert image_of(parts[:4]) == PNG


def test_exec_refuses_a_bad_image_in_one_line_before_any_request(recorder, project):
    proc = rivulet("exec", "say-hello", "--base-url", recorder.url, "--workspace", str(project),
                   "-i", str(project / "notes.txt"))
    assert proc.returncode == 1
    assert proc.stderr == "rivulet: error: cannot attach notes.txt as an image: it is not a PNG, JPEG, GIF or " \
                          "WebP file\n"
    assert recorder.bodies == []


async def test_chat_attachments_and_an_edited_resend(recorder, project, tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))
    s = settings(base_url=recorder.url, model="gpt-test", workspace=str(project), instructions="be brief",
                 max_retries=0)
    app = RivuletApp(s, make_transport(s), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.query_one(Composer)
        composer.load_text(f"say-hello @notes.txt @{project / 'shot.png'}")
        await pilot.press("enter")
        await until(pilot, lambda: app.turn_worker is not None and app.turn_worker.is_finished, "turn 1", 2000)
        composer.load_text("think-first")
        await pilot.press("enter")
        await until(pilot, lambda: len(recorder.bodies) == 2 and app.turn_worker.is_finished, "turn 2", 2000)
        await until(pilot, lambda: app.conversation.history.items[-1].get("role") == "assistant")
        await pilot.press("escape", "escape")
        await until(pilot, lambda: composer.text == "think-first", "the draft")
        composer.load_text("Say hi. @notes.txt")
        await pilot.press("enter")
        await until(pilot, lambda: len(recorder.bodies) == 3 and app.turn_worker.is_finished, "turn 3", 2000)
        await until(pilot, lambda: len(app.query(TranscriptEntry)) >= 4)
    first, second, third = recorder.bodies
    for body in (first, second, third):
        assert body["instructions"] == "# AGENTS.md\n\nroot rule\n\n# pkg/AGENTS.md\n\npkg rule\n\nbe brief"
    parts = first["input"][0]["content"]
    assert parts[0] == {"type": "input_text", "text": f"say-hello @notes.txt @{project / 'shot.png'}"}
    assert parts[1] == {"type": "input_text", "text": '<file path="notes.txt">\nthe secret word is plum\n\n</file>'}
    assert image_of(parts) == PNG
    # The edited resend: the first turn as it was, then the new prompt; the cut turn is gone.
    assert third["input"][:len(second["input"]) - 1] == second["input"][:-1]
    assert "think-first" not in json.dumps(third["input"])
    last = third["input"][-1]
    assert last["role"] == "user" and last["content"][0]["text"] == "Say hi. @notes.txt"
    assert last["content"][1]["text"].startswith('<file path="notes.txt">')

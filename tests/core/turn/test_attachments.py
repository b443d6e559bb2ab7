"""`@path` completion (git's view of the workspace, else a .gitignore-honouring walk,
fuzzy ranking) and attachments: text files as input_text, images as input_image, in
the request, the session file and the export."""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path

import httpx
import pytest
from helpers.images import PNG
from helpers.mock_api import serving, settings
from helpers.streams import simple_text_response
from openai.types.responses.easy_input_message_param import EasyInputMessageParam
from pydantic import TypeAdapter

from rivulet.core.store.export import to_markdown
from rivulet.core.store.session import SessionWriter, load_session
from rivulet.core.tools import workspace_files as wf
from rivulet.core.turn import attachments as att
from rivulet.core.turn.conversation import Conversation


def _tree(root: Path) -> None:
    """Files, ignore rules (top-level and nested, with a negation) and ignored junk."""
    for rel, text in {
        ".gitignore": "build/\n*.log\n!keep.log\n",
        "README.md": "readme", "src/app.py": "print()", "src/util/helpers.py": "x = 1",
        "src/.gitignore": "generated_*.py\n", "src/generated_parser.py": "junk",
        "build/out.bin": "junk", "debug.log": "junk", "keep.log": "kept", "docs/guide.md": "guide",
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


EXPECTED = [".gitignore", "README.md", "docs/guide.md", "keep.log", "src/.gitignore", "src/app.py",
            "src/util/helpers.py"]


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_in_a_git_work_tree_git_decides(tmp_path):
    _tree(tmp_path)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "README.md", "src/app.py")
    (tmp_path / "gone.txt").write_text("x")
    _git(tmp_path, "add", "gone.txt")
    (tmp_path / "gone.txt").unlink()  # still in the index, no longer a file
    (tmp_path / ".git" / "info" / "exclude").write_text("docs/\n")  # an ignore source only git knows
    got = wf.list_files(tmp_path)
    assert got == [p for p in EXPECTED if not p.startswith("docs/")]
    # From a subdirectory: its files, relative to it.
    assert wf.list_files(tmp_path / "src") == [".gitignore", "app.py", "util/helpers.py"]


def test_outside_git_the_walk_honours_every_gitignore(tmp_path):
    _tree(tmp_path)
    assert wf.list_files(tmp_path) == EXPECTED
    (tmp_path / ".git").mkdir()  # a broken repository: git refuses, the walk takes over, .git is skipped
    (tmp_path / ".git" / "config").write_text("junk")
    assert wf.list_files(tmp_path) == EXPECTED
    capped = wf.list_files(tmp_path, use_git=False, max_files=3)
    assert len(capped) == 3 and set(capped) <= set(EXPECTED)


def test_fuzzy_ranking_prefers_names_word_starts_and_runs():
    paths = ["core/conversation.py", "core/session.py", "tests/test_sessions.py", "core/config.py",
             "widgets/composer.py", "README.md"]
    assert wf.rank("session", paths)[:2] == ["core/session.py", "tests/test_sessions.py"]
    assert wf.rank("cfg", paths)[0] == "core/config.py"
    assert wf.rank("conv", paths) == ["core/conversation.py"]
    assert wf.rank("zzz", paths) == []
    assert wf.rank("", paths, limit=2) == ["README.md", "core/config.py"]  # no query: shortest first
    assert wf.fuzzy_score("İx", "İx.py") is not None  # a letter whose lower case is longer


# ---- attaching ------------------------------------------------------------------------------


def test_a_text_file_becomes_a_wrapped_input_text_part(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("print('hi')\n")
    a = att.attach("src/a.py", tmp_path)
    assert (a.kind, a.path, a.size) == ("file", "src/a.py", 12)
    assert a.parts == ({"type": "input_text", "text": "<file path=\"src/a.py\">\nprint('hi')\n\n</file>"},)


def test_an_image_becomes_a_base64_data_url_named_by_text_parts(tmp_path):
    (tmp_path / "shot.dat").write_bytes(PNG)  # the bytes decide, not the name
    a = att.attach("shot.dat", tmp_path)
    assert (a.kind, a.mime, a.size) == ("image", "image/png", len(PNG))
    label, image, close = a.parts
    assert label == {"type": "input_text", "text": '<image path="shot.dat">'} and close["text"] == "</image>"
    assert image["type"] == "input_image" and image["detail"] == "auto"
    prefix, data = image["image_url"].split(",", 1)
    assert prefix == "data:image/png;base64" and base64.b64decode(data) == PNG


@pytest.mark.parametrize("head, mime", [(b"\xff\xd8\xff\xe0", "image/jpeg"), (b"GIF89a", "image/gif"),
                                        (b"GIF87a", "image/gif"), (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp")])
def test_image_kinds_by_magic(head, mime):
    assert att.image_mime(head + b"\x00" * 20) == mime


@pytest.mark.parametrize("name, content, message", [
    ("big.txt", b"x" * 101, "cannot attach big.txt: it is 101 bytes, over the 100 bytes cap (attach_max_bytes)"),
    ("big.png", PNG + b"\x00" * 200, "cannot attach big.png: it is 267 bytes, over the 200 bytes cap (image_max_bytes)"),
    ("tool.bin", b"ELF\x00\x01", "cannot attach tool.bin: it is a binary file (only text files and PNG, JPEG, "
                                 "GIF or WebP images can be attached)"),
    ("latin1.txt", "café".encode("latin-1"), "cannot attach latin1.txt: it is not UTF-8 text"),
])
def test_what_cannot_be_attached_says_why_in_one_line(tmp_path, name, content, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(att.AttachmentError) as caught:
        att.attach(name, tmp_path, text_max_bytes=100, image_max_bytes=200)
    assert str(caught.value) == message


def test_missing_files_and_directories_are_refused(tmp_path):
    (tmp_path / "dir").mkdir()
    with pytest.raises(att.AttachmentError, match="cannot attach nope.txt: no such file"):
        att.attach("nope.txt", tmp_path)
    with pytest.raises(att.AttachmentError, match="cannot attach dir: not a regular file"):
        att.attach("dir", tmp_path)


def test_a_file_outside_the_workspace_keeps_its_absolute_path(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "notes.txt").write_text("n")
    assert att.attach(str(tmp_path / "notes.txt"), ws).path == str(tmp_path / "notes.txt")
    assert att.attach("../notes.txt", ws).path == str(tmp_path / "notes.txt")


def test_the_message_has_the_shape_the_api_takes_and_reads_back(tmp_path):
    (tmp_path / "a.md").write_text('say "hi"')
    (tmp_path / 'od"d.png').write_bytes(PNG)
    files = [att.attach("a.md", tmp_path), att.attach('od"d.png', tmp_path)]
    item = att.user_message("look at these", files)
    TypeAdapter(EasyInputMessageParam).validate_python(item)  # the SDK's own input type
    assert [p["type"] for p in item["content"]] == ["input_text", "input_text", "input_text", "input_image",
                                                    "input_text"]
    pieces = att.describe_content(item)
    assert pieces == [att.Piece("text", "look at these"), att.Piece("file", 'say "hi"', "a.md"),
                      att.Piece("image", path='od"d.png', mime="image/png", size=len(PNG))]
    assert att.placeholder(pieces[2]) == f'[image od"d.png (image/png, {len(PNG)} bytes)]'
    assert att.placeholder(pieces[1]) == "[file a.md (8 bytes)]"


# ---- through the conversation: request, session file, export --------------------------------------


async def test_the_request_session_and_export_carry_the_attachments(tmp_path):
    (tmp_path / "notes.txt").write_text("remember the milk")
    (tmp_path / "cat.png").write_bytes(PNG)
    files = [att.attach("notes.txt", tmp_path), att.attach("cat.png", tmp_path)]
    requests: list[httpx.Request] = []
    writer, meta = SessionWriter.create(model="m", base_url="http://x", directory=tmp_path / "sessions")
    conv = Conversation(settings(), serving(simple_text_response("a cat"), requests=requests), session=writer)
    await conv.run_turn("what is this?", files)
    writer.close()
    sent = json.loads(requests[0].content)["input"][0]["content"]
    assert sent[0] == {"type": "input_text", "text": "what is this?"}
    assert sent[1]["text"] == '<file path="notes.txt">\nremember the milk\n</file>'
    assert sent[3]["image_url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    # The item is the record: the session file holds it whole, and resume gets it back.
    loaded = load_session(meta.path)
    assert loaded.history.items[0]["content"] == sent
    markdown = to_markdown(loaded)
    assert "*[file notes.txt (17 bytes)]*" in markdown and "remember the milk" in markdown
    assert f"*[image cat.png (image/png, {len(PNG)} bytes)]*" in markdown
    assert base64.b64encode(PNG).decode()[:20] not in markdown and "base64" not in markdown

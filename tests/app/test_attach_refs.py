"""`@path` tokens, pasted image paths and --image, before any Textual: what counts as
a token, what attaches, and what is refused (in one line)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers.images import PNG

from rivulet.app.attach.refs import AttachLimits, attach_image, attachments_in, find_refs, pasted_image_path, unescape
from rivulet.core.turn.attachments import AttachmentError

LIMITS = AttachLimits(text_max_bytes=1000, image_max_bytes=1000)


def test_tokens():
    assert [r.path for r in find_refs('see @a.py, @"my notes.txt" and @src/b.py. Mail me@x.com or @@bob')] == [
        "a.py", "my notes.txt", "src/b.py"]
    text = "first\n@x.md"
    (ref,) = find_refs(text)
    assert text[ref.start:ref.end] == "@x.md"
    assert unescape("ask @@bob about @a.py") == "ask @bob about @a.py"


def test_attachments_in_order_once_each(tmp_path: Path):
    (tmp_path / "a.py").write_text("A")
    (tmp_path / "shot.png").write_bytes(PNG)
    got = attachments_in("@a.py @shot.png @a.py @bob", tmp_path, LIMITS)
    assert [(a.path, a.kind) for a in got] == [("a.py", "file"), ("shot.png", "image")]


@pytest.mark.parametrize(("text", "why"), [
    ("@missing.txt", "cannot attach @missing.txt: no such file in the workspace"),
    ("@dir/nothing", "cannot attach @dir/nothing: no such file in the workspace"),
    ("@../outside.txt", "cannot attach @../outside.txt: it is outside the workspace"),
    ("@link.txt", "cannot attach @link.txt: it is outside the workspace"),  # a symlink out counts as out
    ("@big.txt", "cannot attach big.txt: it is 1.2 KiB, over the 1000 bytes cap (attach_max_bytes)"),
    ("@blob.dat", "cannot attach blob.dat: it is a binary file"),
    ("@sub", "cannot attach sub: not a regular file"),
])
def test_refused_in_one_line(tmp_path: Path, text: str, why: str):
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (tmp_path / "outside.txt").write_text("secret")
    os.symlink(tmp_path / "outside.txt", ws / "link.txt")
    (ws / "big.txt").write_text("x" * 1200)
    (ws / "blob.dat").write_bytes(b"\0\1" * 10)
    with pytest.raises(AttachmentError) as caught:
        attachments_in(f"read {text}", ws, LIMITS)
    assert caught.value.message.startswith(why) and "\n" not in caught.value.message


def test_a_pasted_path_is_an_image_only_when_it_names_one(tmp_path: Path):
    shot = tmp_path / "my shot.png"
    shot.write_bytes(PNG)
    (tmp_path / "notes.txt").write_text("text")
    for pasted in [f"'{shot}'", f'"{shot}"', str(shot).replace(" ", "\\ "), f"file://{str(shot).replace(' ', '%20')}",
                   f"  '{shot}'\n"]:
        assert pasted_image_path(pasted, tmp_path) == shot, pasted
    for pasted in [str(tmp_path / "notes.txt"), f"'{shot}' '{shot}'", f"look at '{shot}'", f"'{shot}'\nmore",
                   "no/such.png", ""]:
        assert pasted_image_path(pasted, tmp_path) is None, pasted


def test_image_flag_takes_images_only(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("text")
    with pytest.raises(AttachmentError, match="not a PNG, JPEG, GIF or WebP file"):
        attach_image(str(tmp_path / "notes.txt"), tmp_path, LIMITS)
    outside = tmp_path.parent / f"{tmp_path.name}-shot.png"
    outside.write_bytes(PNG)
    assert attach_image(str(outside), tmp_path, LIMITS).kind == "image"  # named by the user: may lie outside


def test_sizes_in_the_transcript_lines():
    from rivulet.core.turn.attachments import Piece, placeholder

    assert placeholder(Piece("image", path="cat.png", mime="image/png", size=12288)) == \
        "[image cat.png (image/png, 12.0 KiB)]"
    assert placeholder(Piece("image", path="big.png", mime="image/png", size=3 * 1024 * 1024)) == \
        "[image big.png (image/png, 3.0 MiB)]"
    assert placeholder(Piece("file", text="x" * 1536, path="a.txt")) == "[file a.txt (1.5 KiB)]"

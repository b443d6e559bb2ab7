"""Generated images saved beside the session (core/store/images.py): each server id has
a file of its own, however alike two ids look once cleaned, and a link planted where an
image is to go is never written through."""

from __future__ import annotations

import base64
import os

import pytest

from rivulet.core.store.images import file_stem, save_image

ONE, TWO = base64.b64encode(b"first image").decode(), base64.b64encode(b"second image").decode()


def test_ids_that_clean_to_the_same_slug_keep_two_files(tmp_path):
    first = save_image(tmp_path, "ig_a/b", "final", ONE)
    second = save_image(tmp_path, "ig_a.b", "final", TWO)
    third = save_image(tmp_path, "ig_a_b", "final", ONE)
    assert first is not None and second is not None and third is not None
    assert len({first, second, third}) == 3
    assert first.read_bytes() == b"first image" and second.read_bytes() == b"second image"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in (first, second, third))
    for path in (first, second, third):
        assert path.parent == tmp_path and path.name.startswith("ig_a_b-") and path.name.endswith("-final.png")


def test_the_same_id_saved_again_is_a_new_file_not_an_overwrite(tmp_path):
    first = save_image(tmp_path, "ig_1", "final", ONE)
    again = save_image(tmp_path, "ig_1", "final", TWO)
    assert first is not None and again is not None and first != again
    assert first.read_bytes() == b"first image" and again.read_bytes() == b"second image"


def test_a_planted_link_is_not_followed(tmp_path):
    folder, outside = tmp_path / "s.images", tmp_path / "outside.txt"
    folder.mkdir()
    outside.write_bytes(b"keep me")
    first = save_image(folder, "ig_x", "final", ONE)
    assert first is not None and first.name.startswith(file_stem("ig_x", "final"))
    first.unlink()
    os.symlink(outside, first)  # planted where ig_x's image goes
    saved = save_image(folder, "ig_x", "final", TWO)
    assert outside.read_bytes() == b"keep me"
    assert saved is not None and not saved.is_symlink() and saved.read_bytes() == b"second image"


def test_a_linked_images_folder_is_not_written_into(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, tmp_path / "s.images")
    with pytest.raises(OSError):
        save_image(tmp_path / "s.images", "ig_y", "final", ONE)
    assert list(elsewhere.iterdir()) == []

"""--instructions and -i/--image on the chat, `resume` and `exec` command lines."""

from __future__ import annotations

import pytest
from helpers.images import PNG

from rivulet.app.boot import cli_images, settings_for
from rivulet.app.cli import build_parser
from rivulet.core.turn.attachments import AttachmentError


@pytest.fixture
def config(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    path.write_text('instructions = "from the config"\n')
    monkeypatch.setenv("RIVULET_CONFIG", str(path))
    monkeypatch.delenv("RIVULET_INSTRUCTIONS", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-key-123456")
    return path


@pytest.mark.parametrize("argv", [
    ["--instructions", "be brief"],
    ["resume", "--last", "--instructions", "be brief"],
    ["exec", "hi", "--instructions", "be brief"],
    ["--instructions", "be brief", "exec", "hi"],
])
def test_instructions_add_to_the_configured_ones(config, argv):
    settings, _ = settings_for(build_parser().parse_args(argv), headless=True)
    assert settings.instructions == "from the config\n\nbe brief"


def test_without_the_flag_the_config_decides(config):
    settings, _ = settings_for(build_parser().parse_args([]), headless=True)
    assert settings.instructions == "from the config"


def test_images_are_read_from_the_shells_directory(config, tmp_path, monkeypatch):
    shots = tmp_path / "shots"
    shots.mkdir()
    (shots / "a.png").write_bytes(PNG)
    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.chdir(shots)
    for argv in (["-i", "a.png", "--image", "a.png", "--workspace", str(ws)],
                 ["exec", "hi", "-i", "a.png", "-i", "a.png", "--workspace", str(ws)]):
        args = build_parser().parse_args(argv)
        settings, _ = settings_for(args, headless=True)
        images = cli_images(args, settings)
        assert [(i.kind, i.path) for i in images] == [("image", str(shots / "a.png"))] * 2
    args = build_parser().parse_args(["-i", "missing.png"])
    with pytest.raises(AttachmentError, match="no such file"):
        cli_images(args, settings_for(args, headless=True)[0])


def test_image_help_is_in_both_commands():
    parser = build_parser()
    assert "--image" in parser.format_help()
    exec_help = parser._subparsers._group_actions[0].choices["exec"].format_help()
    assert "-i PATH, --image PATH" in exec_help and "--instructions TEXT" in exec_help

"""The chat's start in a real terminal: the composer is drawn before the settings are
validated (app/boot.py); keys typed at once are kept and handled in order; a setting that
fails the validation still ends the chat with one line and exit status 2."""

from __future__ import annotations

from .chat_app import RIVULET
from .test_input import composer_lines


def printed(term) -> list[str]:
    """The non-empty lines on screen, wrapped lines joined (tmux's -J)."""
    joined = term.tmux("capture-pane", "-p", "-J", "-t", "t", "-S", "-100")
    return [line.rstrip() for line in joined.splitlines() if line.strip() and not line.startswith("Pane is dead")]


def test_a_message_typed_as_soon_as_the_composer_shows_is_sent_whole(term, server):
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
    term.wait("Send", what="the composer's keys in the footer")  # the first frame, no later
    term.send("typed at once", "Enter")  # very likely while the chat is still starting
    term.wait("ECHO[typed at once]END", what="the answer")
    assert server.prompts == ["typed at once"]
    assert composer_lines(term.screen()) == [""]


def test_a_slash_typed_at_once_opens_the_popup(term, server):
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
    term.wait("Send", what="the composer")
    term.send("/mo")
    term.wait("/model", what="the slash popup narrowed to /model")


def chat_exit_with_config(term, server, text: str):
    """Start the chat with a config file holding `text`; its exit status and the file."""
    config = term.home / "config.toml"
    config.write_text(text)
    term.start([*RIVULET, "--base-url", server.base_url], env={"RIVULET_CONFIG": str(config)},
               cwd=term.home / "work")
    return term.wait_exit(), config


def test_a_bad_value_ends_the_chat_with_one_line_and_status_2(term, server):
    status, config = chat_exit_with_config(term, server, 'stream_fps = "fast"\n')
    assert status == 2
    lines = printed(term)
    assert lines == [f"rivulet: error: bad 'stream_fps' in config file {config}: "
                     "Input should be a valid number, unable to parse string as a number"], lines
    assert not server.prompts


def test_a_misspelt_setting_is_refused_before_anything_is_drawn(term, server):
    status, config = chat_exit_with_config(term, server, 'modle = "x"\n')
    assert status == 2
    assert printed(term) == [f"rivulet: error: unknown setting 'modle' in config file {config} "
                             "(did you mean 'model'?)"]

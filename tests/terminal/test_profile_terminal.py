"""Profiles in a real terminal: `-p NAME` picks the server and the status line names
the profile; `/profile NAME` sends the next turn to the other one; an unknown name at
start is one line with the nearest name, before anything is drawn."""

from __future__ import annotations

from helpers.canned_server import CannedServer
from helpers.streams import simple_text_response

from .chat_app import RIVULET, chat_ready
from .test_launch_terminal import printed


def _config(home, one: str, two: str) -> None:
    folder = home / ".config" / "rivulet"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(f'[profiles.one]\nbase_url = "{one}"\nmodel = "model-one"\n'
                                        f'[profiles.two]\nprovider = "llamacpp"\nbase_url = "{two}"\n'
                                        'model = "model-two"\n')


def test_pick_a_profile_and_switch_to_another(term):
    with CannedServer(simple_text_response("answer from one")) as one, \
            CannedServer(simple_text_response("answer from two")) as two:
        _config(term.home, one.base_url, two.base_url)
        term.start([*RIVULET, "-p", "one"], cwd=term.home / "work")
        term.wait(lambda s: chat_ready(s) and "one: model-one" in s, what="the profile in the status line")
        term.send("hello", "Enter")
        term.wait("answer from one", what="the first answer")
        term.type("/profile two")
        term.send("Enter")
        term.wait("two: model-two", what="the switch in the status line")
        term.send("again", "Enter")
        term.wait("answer from two", what="the answer from the second server")
        assert len(one.requests) == 1 and len(two.requests) == 1


def test_an_unknown_profile_is_one_line(term):
    _config(term.home, "http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1")
    term.start([*RIVULET, "-p", "onw"], cwd=term.home / "work")
    assert term.wait_exit() == 2
    assert printed(term) == ["rivulet: error: unknown profile 'onw' (did you mean 'one'?)"]

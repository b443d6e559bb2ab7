"""[keymap] keys that another binding already has (issue 25): ctrl+y is the composer's
redo (Textual's TextArea), so an app binding moved to ctrl+y never ran while the composer
had the focus, and nothing said why. The user's keymap wins, and one line names what it
replaced."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready


def start_with_keymap(term, server, table: str) -> None:
    config = term.home / "config.toml"
    config.write_text("[keymap]\n" + table)
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work",
               env={"RIVULET_CONFIG": str(config)})
    term.wait(chat_ready, what="the chat")


def test_an_app_binding_moved_to_ctrl_y_runs_from_the_composer(term, server):
    start_with_keymap(term, server, '"app.inspect" = "ctrl+y"\n')
    term.send("C-y")
    term.wait("committed items", what="the inspector opened by ctrl+y")


def test_a_key_bound_over_another_binding_is_named_in_one_line(term, server):
    start_with_keymap(term, server, '"app.inspect" = "ctrl+y"\n"app.find" = "ctrl+t"\n')
    # A toast wraps its text: look for the words.
    term.wait(lambda s: all(w in s for w in ("ctrl+t", "app.find", "app.turn_diff")), what="the clash named")
    term.wait(lambda s: all(w in s for w in ("ctrl+y", "app.inspect", "redo")), what="the composer's redo named")
    term.send("C-t")
    term.wait("find in the transcript", what="find opened by ctrl+t")

"""Find, copy, $EDITOR, prompt history across restarts and a [keymap] from the config,
in a real terminal."""

from __future__ import annotations

import shlex
import sys

from .chat_app import RIVULET, chat_ready
from .stream_server import paragraphs
from .test_input import composer_lines


def start_chat(term, server, *extra: str, env: dict | None = None):
    term.start([*RIVULET, "--base-url", server.base_url, *extra], cwd=term.home / "work", env=env)
    term.wait(chat_ready, what="the chat")


def test_find_goes_to_matches_and_esc_returns_to_the_composer(term, server):
    answers = iter(["first answer mentions zebra", paragraphs(50), "last answer"])
    server.answer_with(lambda p: next(answers))
    start_chat(term, server)
    for prompt, end in (("one", "zebra"), ("two", "THE-END"), ("three", "last answer")):
        term.send(prompt, "Enter")
        term.wait(lambda s, end=end: "Done in" in s and end in s, what=f"answer to {prompt}")
    assert "zebra" not in term.screen()
    term.send("C-f")
    term.wait("find in the transcript", what="the search line")
    term.type("zebra")
    screen = term.wait(lambda s: "first answer mentions zebra" in s and "1/1" in s, what="the match in view")
    assert "THE-END" not in screen
    term.send("Escape")
    term.wait(lambda s: "find in the transcript" not in s and "1/1" not in s, what="the search closing")
    term.type("typing again")
    term.wait(lambda s: composer_lines(s) == ["typing again"], what="typing back in the composer")


def test_copy_last_answer_falls_back_to_osc52(term, server):
    server.answer_with(lambda p: "Use this:\n\n```python\nprint('copied!')\n```\n")
    start_chat(term, server)
    term.tmux("set-option", "-g", "set-clipboard", "on")  # tmux keeps what OSC 52 sets as a buffer
    term.send("code please", "Enter")
    term.wait("Done in", what="the answer")
    term.send("C-p")
    term.wait("Search for commands", what="the palette")
    term.type("copy code block 1")
    term.wait("Copy code block 1 (python)", what="the copy command")
    term.send("Enter")
    term.wait("via OSC 52", what="the copy notice")
    assert term.tmux("show-buffer") == "print('copied!')\n"


def test_editor_edits_the_draft(term, server):
    editor = f"{sys.executable} -c " + shlex.quote(
        "import sys; p = sys.argv[1]; t = open(p).read(); open(p, 'w').write(t + ' and more from the editor\\n')")
    start_chat(term, server, env={"EDITOR": editor})
    term.type("draft")
    term.wait(lambda s: composer_lines(s) == ["draft"], what="the draft")
    term.send("C-g")
    term.wait(lambda s: composer_lines(s) == ["draft and more from the editor"], what="the edited draft")
    term.send("Enter")
    term.wait("ECHO[draft and more from the editor]END", what="the edited draft sent")


def test_prompt_history_survives_a_restart(term, server):
    start_chat(term, server)
    term.send("remember me", "Enter")
    term.wait("ECHO[remember me]END", what="the answer")
    term.send("C-q")
    term.wait_exit()
    term.kill()
    start_chat(term, server)
    term.send("Up")
    term.wait(lambda s: composer_lines(s) == ["remember me"], what="the recalled prompt")


def test_keymap_from_the_config(term, server):
    config = term.home / "config.toml"
    config.write_text('[keymap]\n"composer.submit" = "ctrl+s"\n"composer.newline" = "enter"\n')
    start_chat(term, server, env={"RIVULET_CONFIG": str(config)})
    term.send("line one", "Enter", "line two")
    term.wait(lambda s: composer_lines(s) == ["line one", "line two"], what="Enter as a newline")
    assert server.prompts == []
    term.send("C-s")
    term.wait("ECHO[line one", what="ctrl+s sending")
    assert server.prompts == ["line one\nline two"]


def test_unknown_keymap_id_is_named(term, server):
    config = term.home / "config.toml"
    config.write_text('[keymap]\n"composer.sumbit" = "ctrl+s"\n')
    start_chat(term, server, env={"RIVULET_CONFIG": str(config)})
    # A toast wraps its text: look for the words.
    term.wait(lambda s: all(w in s for w in ("no binding", "composer.sumbit", "composer.submit?")),
              what="the keymap warning")


def test_find_reaches_old_frozen_entries(term, server):
    """Past the newest 40 entries, history is frozen into pre-rendered lines; find
    still goes there."""
    from rivulet.core import items as it
    from rivulet.core.store.session import SessionWriter
    from rivulet.core.turn.history import History

    work = term.home / "work"
    store = term.home / ".local" / "share" / "rivulet" / "sessions"
    writer, _ = SessionWriter.create(model="m", base_url="u", cwd=str(work), directory=store)
    history = History(observers=[writer.observe])
    for n in range(60):
        history.append(it.user_message(f"question {n:02d}" + (" about the walrus" if n == 3 else "")), key=f"u{n}")
        history.append({"type": "message", "role": "assistant", "id": f"m{n}",
                        "content": [{"type": "output_text", "text": f"answer {n:02d}"}]}, key=f"a{n}")
    writer.close()
    term.start([*RIVULET, "--base-url", server.base_url, "resume", "--last"], cwd=work)
    term.wait("answer 59", what="the resumed session at its end")
    term.send("C-f")
    term.wait("find in the transcript", what="the search line")
    term.type("walrus")
    screen = term.wait(lambda s: "question 03 about the walrus" in s and "1/1" in s, what="the old match in view")
    assert "answer 59" not in screen
    # A narrower terminal re-wraps everything: the match stays in view.
    term.resize(70, 30)
    term.wait(lambda s: max(len(line.rstrip()) for line in s.splitlines()) <= 70
              and "question 03 about the walrus" in s, what="the match still in view at 70 columns")

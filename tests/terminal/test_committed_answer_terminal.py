"""Issue 22: the committed answer, now one widget of pre-rendered lines, in a real
terminal: its heading starts where its text does, its table's columns are aligned, a
long code line is continued after "↪" (nothing cut), and a resize re-wraps all of it."""

from __future__ import annotations

from .test_navigation import drawn_at, start_chat

CODE = "print('" + "abcdefghij" * 10 + "')"
ANSWER = ("# Report\n\nIntro line here.\n\n| name | count |\n|:--|--:|\n| a | 1 |\n| bbbbbb | 22222 |\n\n"
          f"```python\n{CODE}\n```\n\nTHE-END\n")


def code_shown(screen: str) -> tuple[str, int]:
    """The code line as the screen shows it (its rows joined) and how many rows it takes."""
    lines = [line.strip(" ▌╏") for line in screen.splitlines()]
    first = next(i for i, line in enumerate(lines) if line.startswith("print('"))
    rows = [lines[first]]
    for line in lines[first + 1:]:
        if not line.startswith("↪ "):
            break
        rows.append(line[2:])
    return "".join(row.rstrip() for row in rows), len(rows)


def test_a_committed_answer_is_drawn_whole_and_rewraps(term, server):
    server.answer_with(lambda p: ANSWER)
    start_chat(term, server)
    term.send("report please", "Enter")
    screen = term.wait(lambda s: "Done in" in s and "THE-END" in s, what="the committed answer")
    lines = screen.splitlines()
    title = next(line for line in lines if "Report" in line and "report please" not in line)
    intro = next(line for line in lines if "Intro line here." in line)
    assert title.index("Report") == intro.index("Intro line here.")  # at the left, not centred
    short = next(line for line in lines if " a " in line and line.rstrip().endswith("1"))
    wide = next(line for line in lines if "bbbbbb" in line)
    assert len(short.rstrip()) == len(wide.rstrip())  # "count" is right-aligned
    code, rows = code_shown(screen)
    assert code == CODE and rows == 2  # 111 characters on a 100-column screen

    term.resize(60, 30)
    narrow = term.wait(lambda s: drawn_at(s, 60) and "THE-END" in s, what="the answer at 60 columns")
    code, narrow_rows = code_shown(narrow)
    assert code == CODE and narrow_rows == 3  # re-wrapped: still all of it

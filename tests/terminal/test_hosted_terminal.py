"""The server's own tools in a real terminal (issue 27): `rivulet replay` of real captures
shows an answer's numbered source under it, and a code interpreter block (its code, then
its logs), as a user sees them."""

from __future__ import annotations

from helpers.paths import REAL

from .chat_app import RIVULET
from .tmux import Terminal

CAPTURES = REAL / "pydantic-ai"


def _replay(home, capture: str, shown: str) -> str:
    """The screen once the replay has ended and `shown` is drawn. The status line's end is
    painted ahead of the last commit's layout (issue 22), so the end alone is too early."""
    term = Terminal(home, width=120, height=50)
    try:
        term.start([*RIVULET, "replay", "--speed", "0", str(CAPTURES / capture)], cwd=home / "work")
        return term.wait(lambda s: "Failed" in s or (("Done in" in s or "Stopped:" in s) and shown in s),
                         what=f"the replay's end and {shown!r}")
    finally:
        term.kill()


def test_a_citation_reference_and_a_code_interpreter_block_show_in_the_transcript(home):
    cited = _replay(home, "test_openai_responses_web_search_citations_stream.1.sse", "[1] GitHub")
    assert "🔎 web search" in cited and "query: Pydantic AI GitHub repository official" in cited
    assert "Sources" in cited and "[1] GitHub - pydantic/pydantic-ai" in cited
    assert "https://github.com/pydantic/pydantic-ai?utm_source=openai" in cited
    code = _replay(home, "test_openai_responses_code_execution_download_file_stream.1.sse", "▶ code interpreter")
    assert "▶ code interpreter" in code
    assert '│ file_path = "/mnt/data/numbers_and_squares.csv"' in code  # the code, as a block
    assert "'/mnt/data/numbers_and_squares.csv'" in code  # then its logs
    assert "Failed" not in cited + code

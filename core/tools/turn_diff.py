"""The running diff of everything one turn changed in the workspace.

Before a tool first writes a file in a turn, its content is remembered; the turn diff
is then the unified diff from those originals to what the files hold now, so several
patches to one file show as one change, and a file changed back shows nothing.
"""

from __future__ import annotations

from pathlib import Path


def file_diff(rel: str, before: str | None, after: str | None) -> str:
    """A unified diff of one file (None: the file does not exist on that side)."""
    import difflib  # with the first patch: a turn that writes no file never needs it

    lines = list(difflib.unified_diff((before or "").splitlines(keepends=True),
                                      (after or "").splitlines(keepends=True),
                                      f"a/{rel}" if before is not None else "/dev/null",
                                      f"b/{rel}" if after is not None else "/dev/null"))
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return "".join(lines)


class TurnDiff:
    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace.resolve()
        self._originals: dict[Path, str | None] = {}

    def reset(self) -> None:
        self._originals.clear()

    def remember(self, path: Path, content: str | None) -> None:
        """`content` is the file before this turn's first change to it (None: absent)."""
        self._originals.setdefault(path, content)

    @property
    def files(self) -> list[Path]:
        return list(self._originals)

    def unified(self) -> str:
        out: list[str] = []
        for path, before in sorted(self._originals.items()):
            try:
                after = path.read_text(encoding="utf-8") if path.is_file() else None
            except (OSError, UnicodeDecodeError):
                after = None
            if before != after:
                out.append(file_diff(path.relative_to(self.workspace).as_posix(), before, after))
        return "".join(out)

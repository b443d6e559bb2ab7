"""Paths whose change can make code run later, or turn approvals off: a patch touching
one always asks, whatever the approval policy (except `never-ask`), and the question
says why. A sandboxed command cannot change the ones that exist (they are bound
read-only) and one it creates is found afterwards and asked about (protected_snapshot.py).

`DEFAULT_PROTECTED` is the configurable part (setting `protected_paths`): glob patterns.
A pattern without a slash matches any one path component (`.git` protects every
`.git` directory at any depth, and everything under it); a pattern with a slash matches
the path relative to the workspace. Always on, whatever the setting: files inside a
virtualenv (a directory holding `pyvenv.cfg`) and rivulet's own config and data
directories when they lie inside the workspace, the directory a `.git` file's
`gitdir:` points to, and any directory git would take for a git directory, whatever its
name (`HEAD` with `objects/` and `refs/`, or with `commondir`: git's own test), the
workspace root included: `git status` there runs its config's core.fsmonitor.
"""

from __future__ import annotations

import os
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

_VCS = "version control metadata: hooks and settings like core.fsmonitor run commands"
_PY = "Python runs it (or from it) at start-up"
_EDITOR = "editor task, launch and container files run commands"
_SHELL = "a shell start-up file"
WHY: dict[str, str] = {
    ".git": _VCS, ".hg": _VCS, ".svn": _VCS, ".jj": _VCS, ".gitmodules": _VCS,
    "*.pth": _PY, ".venv": "a virtualenv: " + _PY, "venv": "a virtualenv: " + _PY,
    "site-packages": "installed packages: " + _PY, "sitecustomize.py": _PY, "usercustomize.py": _PY,
    ".envrc": "direnv runs it on entering the directory", ".vscode": _EDITOR, ".idea": _EDITOR,
    ".devcontainer": _EDITOR, ".pre-commit-config.yaml": "pre-commit runs the hooks it names",
    ".husky": "git hooks (core.hooksPath)", ".githooks": "git hooks (core.hooksPath)",
    ".github/workflows": "CI runs it with the repository's secrets",
    **{rc: _SHELL for rc in (".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
                             ".zshenv", ".zprofile", ".zlogin", ".inputrc", ".config/fish")},
    ".rivulet": "rivulet's own settings (approvals, sandbox)",
}
DEFAULT_PROTECTED: tuple[str, ...] = tuple(WHY)


def rivulet_dirs() -> list[Path]:
    from platformdirs import user_config_dir, user_data_dir

    from rivulet.core.config_sources import config_path, sessions_dir

    dirs = [config_path(), Path(user_config_dir("rivulet")), Path(user_data_dir("rivulet")), sessions_dir()]
    return [d.expanduser().resolve() for d in dirs]


def pattern_reason(rel: str, patterns: tuple[str, ...] | list[str] = DEFAULT_PROTECTED) -> str | None:
    """Why `rel` matches one of `patterns` (the configurable part), or None: names only,
    nothing is read from disk."""
    parts = PurePosixPath(rel.replace("\\", "/")).parts
    for pattern in patterns:
        why = WHY.get(pattern, "listed in protected_paths")
        want = pattern.strip("/")
        for n in range(1, len(parts) + 1):
            if fnmatchcase("/".join(parts[:n]) if "/" in want else parts[n - 1], want):
                if n == len(parts):
                    return f"{rel}: {why}"
                return f"{rel} is inside {'/'.join(parts[:n])}: {why}"
    return None


# What makes a directory a git directory to git (setup.c's is_git_directory, a superset:
# any kind of entry counts, since a link can be made to resolve later).
GIT_MARKS = ("HEAD", "objects", "refs", "commondir")
# What `git init --bare` makes: at the workspace root these are the git directory.
GIT_PARTS = ("HEAD", "branches", "commondir", "config", "description", "hooks", "info", "objects", "refs")
GIT_DIR_WHY = "a git directory (HEAD, objects, refs): git run there uses its config and hooks (core.fsmonitor)"


def git_marks(path: str | Path) -> frozenset[str]:
    """Which of GIT_MARKS `path` holds; empty without `HEAD` (then one lstat only)."""
    if not os.path.lexists(os.path.join(path, "HEAD")):
        return frozenset()
    return frozenset(m for m in GIT_MARKS if m == "HEAD" or os.path.lexists(os.path.join(path, m)))


def is_git_dir(marks: frozenset[str] | set[str]) -> bool:
    return "HEAD" in marks and ("commondir" in marks or {"objects", "refs"} <= marks)


def made_git_dirs(workspace: Path, rels: list[str]) -> list[str]:
    """Why writing `rels` (a patch's new files) would make a directory a git directory."""
    added: dict[tuple[str, ...], set[str]] = {}
    for rel in rels:
        parts = PurePosixPath(rel.replace("\\", "/")).parts
        for n, part in enumerate(parts):
            if part in GIT_MARKS:
                added.setdefault(parts[:n], set()).add(part)
    out = []
    for folder, names in added.items():
        path = workspace.joinpath(*folder)
        if is_git_dir(git_marks(path) | names) and not is_git_dir(git_marks(path)):
            out.append(f"{'/'.join(folder) or 'the workspace root'} would become {GIT_DIR_WHY}")
    return out


def protection_reason(workspace: Path, rel: str,
                      patterns: tuple[str, ...] | list[str] = DEFAULT_PROTECTED) -> str | None:
    """Why writing `rel` (relative to `workspace`) must be asked about, or None."""
    if (why := pattern_reason(rel, patterns)) is not None:
        return why
    parts = PurePosixPath(rel.replace("\\", "/")).parts
    root = workspace.resolve()
    target = root.joinpath(*parts)
    for parent in list(target.parents):
        if parent == root.parent:
            break
        if (parent / "pyvenv.cfg").is_file():
            return f"{rel} is inside a virtualenv ({_rel(parent, root)})"
        if is_git_dir(git_marks(parent)) and (parent != root or parts[0] in GIT_PARTS):
            return f"{rel} is inside {_rel(parent, root)}, {GIT_DIR_WHY}" if parent != root else \
                f"{rel}: the workspace root is {GIT_DIR_WHY}"
    for folder in rivulet_dirs():
        if target == folder or folder in target.parents:
            return f"{rel} is in rivulet's own settings or data ({folder})"
    for gitdir in gitdirs(root):
        if target == gitdir or gitdir in target.parents:
            return f"{rel} is in the git directory that .git points to: {_VCS}"
    return None


def gitdirs(root: Path) -> list[Path]:
    """Where a `.git` file (a worktree's or a submodule's `gitdir: ...`) at the root points."""
    try:
        with open(root / ".git", "rb") as f:
            head = f.read(4096).decode("utf-8", "replace")
    except OSError:  # no .git, or a directory
        return []
    out = []
    for line in head.splitlines():
        if line.startswith("gitdir:"):
            target = Path(line[len("gitdir:"):].strip())
            out.append((root / target).resolve() if not target.is_absolute() else target.resolve())
    return out


def _rel(path: Path, root: Path) -> str:
    try:
        return os.path.relpath(path, root)
    except ValueError:
        return str(path)

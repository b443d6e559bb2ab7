"""The shell tool's OS sandbox: bubblewrap (`bwrap`, Debian's `bubblewrap` package).

Modes (setting `sandbox`):
- `workspace-write`: the whole filesystem read-only, the workspace writable (its
  protected directories such as `.git` stay read-only), a private `/tmp`.
- `read-only`: nothing writable (not even the private `/tmp`).
- `off`: the command runs as rivulet's child, as before.

Always, in a sandbox: a new PID namespace with its own `/proc` (nothing in it can see
rivulet, its environment or its key), `--die-with-parent`, a new session (no terminal
to inject keystrokes into), new IPC and UTS namespaces, no network unless
`sandbox_network = true`, and a clean environment given to bwrap itself. Where bwrap
cannot run, `probe()` says why, once, and commands run unsandboxed (and ask).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

SandboxMode = Literal["workspace-write", "read-only", "off"]

# What a sandboxed command's environment holds; nothing else of rivulet's crosses over.
_KEEP_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "SHELL")
_BASE_ARGS = ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
              "--unshare-cgroup-try", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]


@dataclass
class Probe:
    ok: bool
    reason: str = ""  # why bwrap cannot run here
    extra: list[str] = field(default_factory=list)  # e.g. --unshare-user where it is needed


_probe: Probe | None = None


def probe() -> Probe:
    """Can bwrap run a sandbox here? Tried once per process, for real."""
    global _probe
    if _probe is not None:
        return _probe
    exe = shutil.which("bwrap")
    if exe is None:
        _probe = Probe(False, "bwrap is not installed (Debian/Ubuntu: apt install bubblewrap)")
        return _probe
    last = ""
    for extra in ([], ["--unshare-user"]):
        try:
            done = subprocess.run([exe, *extra, *_BASE_ARGS, "--unshare-net", "--tmpfs", "/tmp", "--", "true"],
                                  capture_output=True, text=True, timeout=10, env={"PATH": os.defpath})
        except (OSError, subprocess.SubprocessError) as exc:
            last = str(exc)
            continue
        if done.returncode == 0:
            _probe = Probe(True, extra=extra)
            return _probe
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    _probe = Probe(False, f"bwrap cannot create a sandbox here ({last[:200]})")
    return _probe


@dataclass
class Sandbox:
    mode: SandboxMode
    workspace: Path
    network: bool = False
    read_only_dirs: tuple[str, ...] = (".git", ".hg", ".svn", ".jj", ".venv", "venv", ".vscode", ".idea",
                                       ".devcontainer", ".rivulet")

    @property
    def active(self) -> bool:
        """Whether commands really run sandboxed (the mode is on and bwrap works)."""
        return self.mode != "off" and probe().ok

    def describe(self) -> str:
        if self.mode == "off":
            return "sandbox off"
        if not probe().ok:
            return "sandbox unavailable"
        return f"sandbox {self.mode}" + (" + network" if self.network else "")

    def env(self) -> dict[str, str]:
        env = {k: os.environ[k] for k in _KEEP_ENV if k in os.environ}
        env.setdefault("PATH", os.defpath)
        env.update({"HOME": str(self.workspace) if self.mode == "workspace-write" else "/tmp", "TMPDIR": "/tmp",
                    "PAGER": "cat", "GIT_PAGER": "cat", "TERM": "dumb", "NO_COLOR": "1"})
        return env

    def argv(self, command: str, cwd: Path, visible: Sequence[Path] = ()) -> list[str]:
        """bwrap's command line for `bash -c command` in `cwd` (inside the workspace).
        `visible`: paths the command needs that may lie under /tmp, which the private
        /tmp would otherwise hide (an MCP server's venv or script); bound read-only."""
        info = probe()
        args = ["bwrap", *info.extra, *_BASE_ARGS, "--tmpfs", "/tmp"]
        for path in visible:
            real = path.resolve()
            if real.is_relative_to("/tmp") and real.exists():
                args += ["--ro-bind", str(real), str(real)]
        if not self.network:
            args.append("--unshare-net")
        ws = str(self.workspace)
        if self.mode == "workspace-write":
            args += ["--bind", ws, ws]
            for name in self.read_only_dirs:  # what can make code run later stays read-only
                if (self.workspace / name).is_dir() and not (self.workspace / name).is_symlink():
                    args += ["--ro-bind", f"{ws}/{name}", f"{ws}/{name}"]
        else:
            args += ["--ro-bind", ws, ws, "--remount-ro", "/tmp"]
        args += ["--clearenv", *[a for k, v in self.env().items() for a in ("--setenv", k, v)],
                 "--chdir", str(cwd), "--", "bash", "-c", command]
        return args

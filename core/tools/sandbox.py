"""The shell tool's OS sandbox: bubblewrap (`bwrap`, Debian's `bubblewrap` package).

Modes (setting `sandbox`):
- `workspace-write`: system directories read-only, the workspace writable (its
  protected paths, found by protected_snapshot.py, stay read-only), a private `/tmp`.
- `read-only`: nothing writable (not even the private `/tmp`).
- `off`: the command runs as rivulet's child, as before.

Always, in a sandbox, whatever uid rivulet has (root too): a new user namespace mapped
to the caller with every capability dropped (and no further user namespaces), a
seccomp filter (seccomp_filter.py: no ptrace, no mount, no keyring, no TIOCSTI, ...), a
new PID namespace with its own `/proc` (nothing in it can see rivulet, its environment
or its key; with no capability and no mount call it cannot be unmounted), a new session
(no terminal to inject keystrokes into), new IPC and UTS namespaces, no network unless
`sandbox_network = true` (a network namespace also cuts abstract unix sockets), and a
clean environment given to bwrap itself. What holds sockets and secrets is hidden under
an empty tmpfs: every home directory, `/run` (and `/var/run`), `/var/tmp`, the XDG
directories, and wherever SSH_AUTH_SOCK, GNUPGHOME, DOCKER_HOST or D-Bus point.
Where bwrap cannot do all of this, `probe()` says why, once, and commands run
unsandboxed (and ask).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import msgspec

from rivulet.core.tools import seccomp_filter

SandboxMode = Literal["workspace-write", "read-only", "off"]

# What a sandboxed command's environment holds; nothing else of rivulet's crosses over.
_KEEP_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "SHELL")
_SECCOMP_FD = 3
_BASE_ARGS = ["--die-with-parent", "--new-session", "--unshare-user", "--unshare-pid", "--unshare-ipc",
              "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL", "--seccomp", str(_SECCOMP_FD),
              "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
# Directories that hold other people's files, sockets (agents, D-Bus, docker) and caches
# with credentials (git's credential-cache socket under ~/.cache): hidden, always.
_HIDDEN = ("/home", "/root", "/run", "/var/run", "/var/tmp", "/tmp")
_HIDDEN_ENV_DIRS = ("HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
                    "XDG_STATE_HOME", "GNUPGHOME")
# Toolchains a user installs in their home (pyenv, rustup, nvm, uv's Pythons, ...): seen,
# read-only, so that `python`, `cargo` or `node` still run; their credential files are not.
_TOOLCHAINS = (".pyenv", ".rustup", ".cargo", ".nvm", ".volta", ".bun", ".deno", "go", ".sdkman", ".asdf",
               ".local/bin", ".local/share/uv/python", ".local/share/mise", ".local/share/pnpm")
_TOOLCHAIN_SECRETS = (".cargo/credentials", ".cargo/credentials.toml")
_SOCKET_ENV = ("SSH_AUTH_SOCK", "DOCKER_HOST", "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS",
               "GPG_AGENT_INFO", "PULSE_SERVER")


class Probe(msgspec.Struct, dict=True):
    ok: bool
    reason: str = ""  # why bwrap cannot run here
    extra: list[str] = msgspec.field(default_factory=list)  # e.g. --disable-userns where this bwrap has it


_probe: Probe | None = None
_layouts: dict[tuple[str, ...], tuple[list[str], list[str], list[str], list[str]]] = {}


def launcher(bwrap_args: Sequence[str]) -> list[str]:
    """The argv that starts bwrap with the seccomp program open on its descriptor:
    a plain argv (MCP's SDK starts servers from one) needs a shell for the redirection."""
    return ["/bin/sh", "-c", f'exec "$@" {_SECCOMP_FD}<"$0"', str(seccomp_filter.program_path()),
            "bwrap", *bwrap_args]


def probe() -> Probe:
    """Can bwrap run the whole sandbox here? Tried once per process, for real."""
    global _probe
    if _probe is not None:
        return _probe
    if shutil.which("bwrap") is None:
        _probe = Probe(False, "bwrap is not installed (Debian/Ubuntu: apt install bubblewrap)")
        return _probe
    if why := seccomp_filter.available():
        _probe = Probe(False, why)
        return _probe
    last = ""
    for extra in (["--disable-userns"], []):  # bwrap before 0.8 lacks it; the filter still denies it
        try:
            argv = launcher([*_BASE_ARGS, *extra, "--unshare-net", "--tmpfs", "/tmp", "--", "true"])
            done = subprocess.run(argv, capture_output=True, text=True, timeout=10, env={"PATH": os.defpath})
        except (OSError, ValueError, RuntimeError, subprocess.SubprocessError) as exc:  # the filter too
            last = str(exc)
            continue
        if done.returncode == 0:
            _probe = Probe(True, extra=extra)
            return _probe
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    _probe = Probe(False, f"bwrap cannot create a sandbox here ({last[:200]})")
    return _probe


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _socket_paths() -> list[str]:
    """Unix socket paths the environment names (ssh and gpg agents, docker, D-Bus)."""
    out = []
    for name in _SOCKET_ENV:
        for part in os.environ.get(name, "").replace(";", ",").split(","):
            part = part.strip()
            for prefix in ("unix:path=", "unix://", "unix:"):
                if part.startswith(prefix):
                    part = part[len(prefix):]
            part = part.split(":")[0] if name == "GPG_AGENT_INFO" else part
            if part.startswith("/"):
                out.append(part)
    return out


def _git_dirs(workspace: Path) -> list[Path]:
    """A worktree's git directory and the repository's common one, when `.git` is a file
    pointing there: git in the sandbox needs them, read-only, also when they lie in a
    hidden directory."""
    from rivulet.core.tools.protected import gitdirs

    out = []
    for gitdir in gitdirs(workspace):
        out.append(gitdir)
        try:
            common = (gitdir / "commondir").read_text(errors="replace").strip()
        except OSError:
            continue
        out.append((gitdir / common).resolve())
    return out


class Sandbox(msgspec.Struct, dict=True):
    mode: SandboxMode
    workspace: Path
    network: bool = False

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

    def _layout(self) -> tuple[list[str], list[str], list[str], list[str]]:
        """hidden() and toolchains(), worked out once per environment and workspace (a
        few dozen realpath calls: ~5 ms a command otherwise)."""
        key = (str(self.workspace), *(os.environ.get(v, "") for v in ("PATH", "RIVULET_CONFIG", "RIVULET_SESSIONS_DIR",
                                                                       *_HIDDEN_ENV_DIRS, *_SOCKET_ENV)))
        if key not in _layouts:
            dirs, sockets = self.hidden()
            _layouts[key] = (dirs, sockets, *self.toolchains(dirs))
        return _layouts[key]

    def hidden(self) -> tuple[list[str], list[str]]:
        """(directories covered by an empty tmpfs, files covered by /dev/null: sockets,
        rivulet's config file). Nothing inside the workspace is hidden: the user chose to
        give it."""
        from rivulet.core.tools.protected import rivulet_dirs

        ws = str(self.workspace)
        dirs: list[str] = []
        wanted = [*_HIDDEN, *(os.environ.get(v, "") for v in _HIDDEN_ENV_DIRS)]
        sockets = []
        for own in rivulet_dirs():  # its config (it may hold the key), its sessions
            if own.is_dir():
                wanted.append(str(own))
            elif own.is_file():
                sockets.append(str(own))
        for sock in _socket_paths():
            parent = os.path.dirname(sock)
            if _inside(ws, parent):  # its folder holds the workspace: cover the socket alone
                sockets.append(sock)
            else:
                wanted.append(parent)
        for path in wanted:
            if not path.startswith("/") or not os.path.isdir(path):
                continue
            real = os.path.realpath(path)
            if real == "/" or _inside(real, ws) or any(_inside(real, d) for d in dirs):
                continue
            dirs = [d for d in dirs if not _inside(d, real)] + [real]
        socks = [os.path.realpath(s) for s in sockets if os.path.exists(s) and not os.path.isdir(s)]
        return sorted(dirs), [s for s in socks if not _inside(s, ws) and not any(_inside(s, d) for d in dirs)]

    def toolchains(self, hidden: list[str]) -> tuple[list[str], list[str]]:
        """(toolchain directories inside hidden ones, bound read-only; their secret files,
        covered by /dev/null): the fixed list under $HOME, and every PATH entry (with its
        prefix when it is a `bin` or `shims` directory, unless that is $HOME or ~/.local)."""
        home = os.path.realpath(os.path.expanduser("~"))
        wanted = [os.path.join(home, t) for t in _TOOLCHAINS]
        for entry in os.environ.get("PATH", "").split(":"):
            if not entry.startswith("/"):
                continue
            real = os.path.realpath(entry)
            wanted.append(real)
            parent = os.path.dirname(real)
            if os.path.basename(real) in ("bin", "shims") and parent not in (home, os.path.join(home, ".local")):
                wanted.append(parent)
        out: list[str] = []
        for path in wanted:
            if not os.path.isdir(path):
                continue
            real = os.path.realpath(path)
            if os.path.isdir(real) and any(_inside(real, d) for d in hidden) and real not in hidden \
                    and not any(_inside(real, o) for o in out):
                out = [o for o in out if not _inside(o, real)] + [real]
        secrets = [os.path.join(home, s) for s in _TOOLCHAIN_SECRETS]
        return sorted(out), [s for s in secrets if os.path.isfile(s) and any(_inside(s, o) for o in out)]

    def argv(self, command: str, cwd: Path, visible: Sequence[Path] = (),
             read_only: Sequence[Path] | None = None) -> list[str]:
        """The command line for `bash -c command` in `cwd` (inside the workspace).
        `visible`: paths the command needs that a hidden directory would otherwise hide
        (an MCP server's virtualenv or script); bound read-only. `read_only`: the
        workspace's protected paths (found here when not given)."""
        info = probe()
        args = [*_BASE_ARGS, *info.extra]
        if not self.network:
            args.append("--unshare-net")
        dirs, sockets, tools, secrets = self._layout()
        for folder in dirs:
            args += ["--tmpfs", folder]
        for sock in sockets:
            args += ["--ro-bind", "/dev/null", sock]
        for tool in tools:
            args += ["--ro-bind", tool, tool]
        for secret in secrets:
            args += ["--ro-bind", "/dev/null", secret]
        for needed in [*visible, *_git_dirs(self.workspace)]:
            real = needed.resolve()
            if real.exists() and any(_inside(str(real), d) for d in dirs):
                args += ["--ro-bind", str(real), str(real)]
        ws = str(self.workspace)
        if self.mode == "workspace-write":
            args += ["--bind", ws, ws]
            if read_only is None:
                from rivulet.core.tools.protected_snapshot import take

                read_only = take(self.workspace).read_only()
            for protected in read_only:  # what can make code run later stays read-only
                args += ["--ro-bind", str(protected), str(protected)]
        else:
            args += ["--ro-bind", ws, ws, "--remount-ro", "/tmp"]
        args += ["--clearenv", *[a for k, v in self.env().items() for a in ("--setenv", k, v)],
                 "--chdir", str(cwd), "--", "bash", "-c", command]
        return launcher(args)

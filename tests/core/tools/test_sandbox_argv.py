"""sandbox.py's command line: what is hidden, in which order, and the seccomp program
it hands bwrap. (What a command inside can and cannot do is tested for real, as root
and as nobody, in tests/security/test_sandbox_privileges.py.)"""

from __future__ import annotations

import socket
import stat
from itertools import pairwise

import pytest

from rivulet.core.tools import sandbox as sb
from rivulet.core.tools import seccomp_filter
from rivulet.core.tools.sandbox import Sandbox


@pytest.fixture
def tmp_not_hidden(monkeypatch):
    """pytest's tmp_path lies under /tmp, hidden whole: take /tmp off the fixed list so
    that what is hidden below it shows."""
    monkeypatch.setattr(sb, "_HIDDEN", tuple(d for d in sb._HIDDEN if d != "/tmp"))


def _pairs(argv: list[str], flag: str) -> list[tuple[str, str]]:
    return [(argv[i + 1], argv[i + 2]) for i, a in enumerate(argv) if a == flag]


def test_every_sandbox_has_a_user_namespace_no_capability_and_the_filter(tmp_path):
    argv = Sandbox("workspace-write", tmp_path).argv("true", tmp_path)
    assert argv[:3] == ["/bin/sh", "-c", 'exec "$@" 3<"$0"'] and argv[3] == str(seccomp_filter.program_path())
    bwrap = argv[4:]
    assert bwrap[0] == "bwrap" and "--unshare-user" in bwrap and "--new-session" in bwrap
    assert bwrap[bwrap.index("--cap-drop") + 1] == "ALL" and bwrap[bwrap.index("--seccomp") + 1] == "3"


def test_the_home_is_hidden_before_the_workspace_inside_it_is_bound(tmp_path, monkeypatch, tmp_not_hidden):
    home = tmp_path / "home"
    ws = home / "project"
    ws.mkdir(parents=True)
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    argv = Sandbox("workspace-write", ws).argv("true", ws)
    tmpfs = [argv[i + 1] for i, a in enumerate(argv) if a == "--tmpfs"]
    assert str(home) in tmpfs and str(runtime) in tmpfs and "/run" in tmpfs
    assert argv.index(str(home)) < argv.index("--bind")  # the tmpfs first, the workspace on top of it
    assert _pairs(argv, "--bind") == [(str(ws), str(ws))]


def test_an_agent_socket_beside_the_workspace_is_covered_alone(tmp_path, monkeypatch, tmp_not_hidden):
    ws = tmp_path / "ws"
    ws.mkdir()
    sock_path = tmp_path / "agent.sock"  # its folder holds the workspace: it cannot be hidden whole
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    monkeypatch.setenv("SSH_AUTH_SOCK", str(sock_path))
    try:
        argv = Sandbox("workspace-write", ws).argv("true", ws)
    finally:
        server.close()
    assert ("/dev/null", str(sock_path)) in _pairs(argv, "--ro-bind")
    assert str(tmp_path) not in [argv[i + 1] for i, a in enumerate(argv) if a == "--tmpfs"]


def test_read_only_mode_makes_tmp_read_only_too(tmp_path):
    argv = Sandbox("read-only", tmp_path).argv("true", tmp_path)
    assert ("--remount-ro", "/tmp") in list(pairwise(argv))
    assert "--bind" not in argv


def test_the_seccomp_program_is_private_and_whole():
    path = seccomp_filter.program_path()
    data = path.read_bytes()
    assert data and len(data) % 8 == 0  # struct sock_filter: 8 bytes an instruction
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_without_libseccomp_there_is_no_sandbox_and_probe_says_why(monkeypatch, tmp_path):
    monkeypatch.setattr(sb, "_probe", None)
    monkeypatch.setattr(seccomp_filter, "available", lambda: "libseccomp cannot be loaded (test)")
    try:
        info = sb.probe()
        assert not info.ok and info.reason == "libseccomp cannot be loaded (test)"
        assert not Sandbox("workspace-write", tmp_path).active
    finally:
        monkeypatch.setattr(sb, "_probe", None)  # the next test probes again, for real


def test_rivulets_own_config_and_sessions_are_hidden(tmp_path, monkeypatch, tmp_not_hidden):
    config = tmp_path / "etc" / "rivulet.toml"  # outside any home: it may hold the key
    config.parent.mkdir()
    config.write_text('api_key = "sk-x"\n')
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    monkeypatch.setenv("RIVULET_CONFIG", str(config))
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(sessions))
    ws = tmp_path / "ws"
    ws.mkdir()
    argv = Sandbox("workspace-write", ws).argv("true", ws)
    assert ("/dev/null", str(config)) in _pairs(argv, "--ro-bind")
    assert str(sessions) in [argv[i + 1] for i, a in enumerate(argv) if a == "--tmpfs"]

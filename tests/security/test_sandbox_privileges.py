"""Issue 21, attacks 1 and 7: as root the bubblewrap sandbox kept almost every capability
(`CapEff: 000001fffeffffff`): a command remounted `/` read-write and wrote to the host,
unmounted the sandbox's `/proc`, found rivulet in the host's and read its memory; and
unix sockets (git's credential cache under ~/.cache, docker.sock in /run) were reachable
from the no-network sandbox. Each test runs as root and as an unprivileged user."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import threading
from pathlib import Path

import pytest
from as_user import User, sandboxed_or_honest, user

pytestmark = pytest.mark.bwrap  # every test here runs commands in bubblewrap


@pytest.fixture(params=["root", "nobody"])
def who(request) -> User:
    return user(request.param)


@pytest.fixture
def ws(who: User):
    path = who.directory()
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_sandboxed_command_has_no_capability(who, ws):
    result = who.drive({"workspace": str(ws), "command": "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status"})
    if not sandboxed_or_honest(who, result):
        return
    caps = re.findall(r"^Cap(\w+):\s+([0-9a-f]+)$", result["output"], re.M)
    assert len(caps) == 5, result["output"]
    assert all(int(value, 16) == 0 for _, value in caps), result["output"]


def test_it_cannot_remount_the_root_writable_nor_unmount_proc(who, ws):
    # A system directory (visible, read-only in the sandbox); run as a user, the checkout.
    host = (Path("/opt") if os.geteuid() == 0 else Path.cwd()) / f"rivulet-sbx-{secrets.token_hex(4)}"
    host.mkdir()
    who.give(host)
    try:
        result = who.drive({"workspace": str(ws), "command":
                            "mount -o remount,bind,rw / 2>&1; echo remount=$?; umount -l /proc 2>&1; echo umount=$?; "
                            f"echo pwned > {host}/written 2>/dev/null; echo write=$?; unshare -Urm true; "
                            "echo unshare=$?"})
        if not sandboxed_or_honest(who, result):
            return
        assert not (host / "written").exists()
        out = result["output"]
        assert "remount=0" not in out and "umount=0" not in out and "write=0" not in out, out
        assert "unshare=0" not in out, out  # no new user namespace, where its capabilities would come back
    finally:
        shutil.rmtree(host)


_READ_MEMORY = r"""python3 - <<'EOF'
import os, sys
pid, needle, found = {pid}, bytes.fromhex(sys.argv[1] if len(sys.argv) > 1 else "NEEDLE"), []
try:
    with open(f"/proc/{pid}/environ", "rb") as f:
        found += ["environ"] if needle in f.read() else []
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            lo, hi = (int(x, 16) for x in span.split("-"))
            if perms.startswith("rw") and hi - lo < 1 << 28:
                try:
                    mem.seek(lo)
                    found += ["mem"] if needle in mem.read(hi - lo) else []
                except OSError:
                    pass
except OSError as exc:
    print("blocked:", type(exc).__name__)
print("FOUND:" + ",".join(found) if found else "not found")
EOF"""


def test_it_cannot_unmount_proc_to_read_rivulets_memory(who, ws):
    key = "sk-proj-" + secrets.token_hex(20)
    command = "umount -l /proc 2>/dev/null; ls /proc/{pid} >/dev/null 2>&1 && echo SEES-RIVULET; " + \
        _READ_MEMORY.replace("NEEDLE", key.encode().hex())
    result = who.drive({"workspace": str(ws), "command": command, "secret": key})
    if not sandboxed_or_honest(who, result):
        return
    out = result["output"]
    assert "not found" in out or "blocked" in out, out
    assert "FOUND:" not in out and "SEES-RIVULET" not in out, out


def test_ptrace_and_process_vm_readv_are_denied(who, ws):
    probe = r"""python3 - <<'EOF'
import ctypes, os, subprocess
libc = ctypes.CDLL(None, use_errno=True)
child = subprocess.Popen(["sleep", "10"])
print("attach", libc.ptrace(16, child.pid, 0, 0), ctypes.get_errno())
buf = ctypes.create_string_buffer(8)
class Iov(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
local, remote = Iov(ctypes.addressof(buf), 8), Iov(0x400000, 8)
print("vm_readv", libc.process_vm_readv(child.pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0),
      ctypes.get_errno())
child.kill()
pid = os.fork()
if pid == 0:
    os._exit(0 if libc.ptrace(0, 0, 0, 0) == 0 else 1)
print("traceme", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
EOF"""
    result = who.drive({"workspace": str(ws), "command": probe})
    if not sandboxed_or_honest(who, result):
        return
    out = result["output"]
    assert "attach -1 1\n" in out, out  # EPERM: the filter, whoever the target is
    assert "vm_readv -1 1\n" in out, out
    assert "traceme 1" in out, out


def _listen(path: Path) -> socket.socket:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    path.chmod(0o777)  # anyone may connect: only the sandbox stands in the way
    server.listen()

    def accept() -> None:
        try:
            while True:
                conn, _ = server.accept()
                conn.sendall(b"token=ghp_secret\n")
                conn.close()
        except OSError:
            pass

    threading.Thread(target=accept, daemon=True).start()
    return server


_CONNECT = r"""python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected", s.recv(100))
except OSError as exc:
    print("unreachable", type(exc).__name__)
' {}"""


def test_a_socket_under_home_cache_is_unreachable(who, ws):
    home = who.directory("rivulet-home-")
    cache = home / ".cache" / "git" / "credential"
    cache.mkdir(parents=True)
    for d in (home / ".cache", home / ".cache" / "git", cache):
        d.chmod(0o755)
    server = _listen(cache / "socket")
    try:
        result = who.drive({"workspace": str(ws), "command": _CONNECT.format(cache / "socket")}, home=home)
    finally:
        server.close()
        shutil.rmtree(home)
    if not sandboxed_or_honest(who, result):
        return
    assert "unreachable" in result["output"] and "ghp_secret" not in result["output"], result["output"]


def test_a_docker_socket_in_run_is_unreachable(who, ws):
    base = Path("/run") if os.geteuid() == 0 else Path(os.environ.get("XDG_RUNTIME_DIR", "/nonexistent"))
    if not os.access(base, os.W_OK):
        pytest.skip("needs root, or a writable $XDG_RUNTIME_DIR under /run")
    run = base / f"rivulet-sbx-{secrets.token_hex(4)}"
    run.mkdir(mode=0o755)
    server = _listen(run / "docker.sock")
    try:
        result = who.drive({"workspace": str(ws), "command": _CONNECT.format(run / "docker.sock")},
                           env={"DOCKER_HOST": f"unix://{run}/docker.sock"})
    finally:
        server.close()
        shutil.rmtree(run)
    if not sandboxed_or_honest(who, result):
        return
    assert "unreachable" in result["output"] and "ghp_secret" not in result["output"], result["output"]


def test_the_workspace_and_system_stay_usable(who, ws):
    # The belt must not break ordinary work: threads (clone3 falls back to clone), git, a
    # file written, a private /tmp.
    result = who.drive({"workspace": str(ws), "command":
                        "python3 -c 'import threading; t = threading.Thread(target=print, args=(\"thread-ok\",)); "
                        "t.start(); t.join()' && git init -q repo && echo git-ok && echo hi > f && cat f && "
                        "echo t > /tmp/t && echo tmp-ok"})
    if not sandboxed_or_honest(who, result):
        return
    for mark in ("thread-ok", "git-ok", "hi", "tmp-ok"):
        assert mark in result["output"], result["output"]


def test_the_home_is_hidden_but_its_toolchains_are_not(who, ws):
    home = who.directory("rivulet-home-")
    try:
        (home / ".ssh").mkdir(mode=0o700)
        (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
        (home / ".pyenv" / "bin").mkdir(parents=True)
        tool = home / ".pyenv" / "bin" / "mytool"
        tool.write_text("#!/bin/sh\necho toolchain-ok\n")
        tool.chmod(0o755)
        (home / ".cargo").mkdir()
        (home / ".cargo" / "credentials.toml").write_text("token = 'cargo-secret'\n")
        for path in [home, *home.rglob("*")]:
            who.give(path)
        for d in (home / ".pyenv", home / ".pyenv" / "bin", home / ".cargo"):
            d.chmod(0o755)
        result = who.drive({"workspace": str(ws), "command": f"cat {home}/.ssh/id_rsa; mytool; "
                            f"cat {home}/.cargo/credentials.toml; ls -A {home}; echo end"},
                           home=home, env={"PATH": f"{home}/.pyenv/bin:/usr/bin:/bin"})
    finally:
        shutil.rmtree(home)
    if not sandboxed_or_honest(who, result):
        return
    out = result["output"]
    assert "PRIVATE KEY" not in out and "\n.ssh\n" not in out, out  # not even listed
    assert "toolchain-ok" in out and "cargo-secret" not in out, out


def test_without_user_namespaces_it_says_so_and_every_command_asks(tmp_path):
    # The honest path, for real: rivulet itself runs where no user namespace can be made
    # (inside a bwrap with --disable-userns), so its sandbox cannot hold. It must say so
    # and ask before each command under `auto`, never run one "sandboxed" without one.
    import json
    import subprocess
    import sys

    from as_user import DRIVER

    ws = tmp_path / "ws"
    ws.mkdir()
    job = {"workspace": str(ws), "command": "touch ran", "policy": "auto"}
    done = subprocess.run(["bwrap", "--unshare-user", "--disable-userns", "--dev-bind", "/", "/", "--",
                           sys.executable, str(DRIVER)], input=json.dumps(job), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert not result["sandboxed"] and "cannot create a sandbox" in result["probe"]
    assert len(result["asked"]) == 1 and not result["asked"][0]["sandboxed"]
    assert "did not run" in result["output"] and not (ws / "ran").exists()
    assert len(result["notices"]) == 1 and result["notices"][0].startswith("No sandbox:")


_X86_64 = {"ptrace": 101, "mount": 165, "umount2": 166, "unshare": 272, "perf_event_open": 298, "setns": 308,
           "process_vm_readv": 310, "bpf": 321, "userfaultfd": 323, "add_key": 248, "request_key": 249,
           "keyctl": 250, "io_uring_setup": 425, "open_by_handle_at": 304, "kexec_load": 246}


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the syscall numbers below are x86-64's")
def test_the_filter_denies_each_call_with_eperm(who, ws):
    # Each call with harmless arguments: without the filter most fail otherwise (EFAULT,
    # EINVAL, ENOSYS...) or succeed; with it, each is EPERM before the kernel looks.
    probe = "python3 - <<'EOF'\nimport ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n" + "".join(
        f"print('{name}', libc.syscall({nr}, 0, 0, 0, 0, 0), ctypes.get_errno())\n" for name, nr in _X86_64.items()
    ) + "EOF"
    result = who.drive({"workspace": str(ws), "command": probe})
    if not sandboxed_or_honest(who, result):
        return
    for name in _X86_64:
        assert f"{name} -1 1\n" in result["output"], result["output"]

"""The seccomp filter bwrap loads into every sandboxed command (`bwrap --seccomp FD`).

A denylist, the usual belt over the sandbox's dropped capabilities: a command cannot
read or write another process's memory (ptrace, process_vm_*), mount or unmount
anything (so the sandbox's own `/proc` stays on top), reach the kernel keyring, push
keys into a terminal (TIOCSTI, TIOCLINUX), make a new user namespace (where it would
get its capabilities back), nor use the kernel's riskier surfaces (bpf, perf events,
userfaultfd, io_uring, whose operations seccomp cannot see). Everything else is allowed:
compilers, test runners and package managers work as before.

Built with libseccomp (through `pyseccomp`, a ctypes binding to the C library that
every systemd distribution ships), which knows each architecture's syscall numbers
and the compat ABIs (i386 and x32 on x86-64, arm on arm64): a filter written by hand
would have to, and a missed ABI is a way round it.
"""

from __future__ import annotations

import errno
import os
import tempfile
import threading
from pathlib import Path

# Denied with EPERM, as a missing capability would be.
DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "mount", "umount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr",
    "unshare", "setns",
    "keyctl", "add_key", "request_key",
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "open_by_handle_at",
    "name_to_handle_at", "swapon", "swapoff", "reboot", "acct", "quotactl", "syslog", "iopl", "ioperm",
    "lookup_dcookie", "vhangup", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
)
TIOCSTI, TIOCLINUX = 0x5412, 0x541C  # push a byte into a terminal's input; the console's
CLONE_NEWUSER = 0x10000000

_lock = threading.Lock()
_path: Path | None = None


def available() -> str:
    """"" when the filter can be built here, else why not (one line)."""
    try:
        import pyseccomp  # noqa: F401
    except (ImportError, RuntimeError, OSError) as exc:
        return f"libseccomp cannot be loaded ({exc}; Debian/Ubuntu: apt install libseccomp2)"
    return ""


def build(out: int) -> None:
    """Write the filter, as the BPF program bwrap reads, to file descriptor `out`."""
    import pyseccomp as sc

    filt = sc.SyscallFilter(sc.ALLOW)
    native = sc.system_arch()
    compat = {sc.Arch.X86_64: (sc.Arch.X86, sc.Arch.X32), sc.Arch.AARCH64: (sc.Arch.ARM,)}
    for arch in compat.get(native, ()):
        try:
            filt.add_arch(arch)
        except OSError:  # this libseccomp does not know it: its syscalls then fail (bad arch)
            pass
    deny = sc.ERRNO(errno.EPERM)
    for name in DENIED:
        try:
            filt.add_rule(deny, name)
        except (OSError, ValueError):  # not a syscall on this architecture
            pass
    for request in (TIOCSTI, TIOCLINUX):  # the request is an int: compare its low 32 bits only
        filt.add_rule(deny, "ioctl", sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF, request))
    filt.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))
    try:
        # clone3 passes its flags in memory, out of the filter's sight: ENOSYS makes libc
        # fall back to clone, whose flags it can check.
        filt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    except (OSError, ValueError):  # a libseccomp older than clone3 (then the kernel's is refused too)
        pass
    filt.export_bpf(os.fdopen(out, "wb", closefd=False))


def program_path() -> Path:
    """A file holding the filter, written once per process in a directory only rivulet's
    user can enter (re-written if something removed it, such as a /tmp cleaner)."""
    global _path
    with _lock:
        if _path is not None and _path.is_file():
            return _path
        folder = Path(tempfile.mkdtemp(prefix="rivulet-seccomp-"))
        path = folder / "filter.bpf"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            build(fd)
        finally:
            os.close(fd)
        _path = path
        import atexit
        import shutil

        atexit.register(shutil.rmtree, folder, True)
        return path

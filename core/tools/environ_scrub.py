"""Blank secret values in this process's own start-up environment block.

`/proc/<pid>/environ` shows the environment a process was started with, read from its
memory: removing a key from `os.environ` does not change it, and any process of the
same user (a command the model wrote, when there is no sandbox) can read it from
`/proc/$PPID/environ`. The kernel says where that block is (`env_start`/`env_end` in
`/proc/self/stat`); we check that what lies there is exactly what `/proc/self/environ`
shows, then overwrite each secret value in place. Linux only; elsewhere a no-op.
"""

from __future__ import annotations

# The variables that hold keys: never in a command's environment (core/tools/shell.py),
# and blanked in our own start-up block.
SECRET_ENV = ("OPENAI_API_KEY", "RIVULET_API_KEY", "OPENAI_ADMIN_KEY", "AZURE_OPENAI_API_KEY", "OPENROUTER_API_KEY",
              "VLLM_API_KEY")


def scrub_own_environ(values: list[str] | tuple[str, ...]) -> int:
    """Overwrite every occurrence of these values in the block; how many were found."""
    wanted = [v.encode() for v in values if v and len(v) >= 8]
    if not wanted:
        return 0
    import ctypes  # only with a secret to blank (a run against a local server has none)

    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[47]), int(fields[48])  # fields 50 and 51 of proc(5)
        with open("/proc/self/environ", "rb") as f:
            shown = f.read()
    except (OSError, IndexError, ValueError):
        return 0
    if not 0 < start < end or end - start != len(shown) or ctypes.string_at(start, end - start) != shown:
        return 0  # not the block we think it is: touch nothing
    found = 0
    for value in wanted:
        pos = shown.find(value)
        while pos >= 0:
            ctypes.memset(start + pos, ord("*"), len(value))
            found += 1
            pos = shown.find(value, pos + len(value))
    return found

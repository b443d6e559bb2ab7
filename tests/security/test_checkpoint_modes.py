"""Issue 36: the checkpoint store and the workspace's turn lock are private to the user
who runs rivulet, whatever the umask: every folder 0700, every file 0600 (objects hold
the workspace's files; the lock names the holder's pid and session). As root and as an
unprivileged user, since the modes are the user's own to get right."""

from __future__ import annotations

import shutil

import pytest
from as_user import user
from test_checkpoint_repository import _dirs, _drive


@pytest.fixture(params=["root", "nobody"])
def who(request):
    return user(request.param)


@pytest.mark.parametrize("loose_lock", [False, True])
def test_the_store_and_the_turn_lock_are_0700_and_0600_under_a_zero_umask(who, loose_lock):
    top, ws, data = _dirs(who)
    try:
        result = _drive(who, {"workspace": str(ws), "data": str(data), "umask": 0, "loose_lock": loose_lock,
                              "command": "printf 'x\\n' > made.txt && printf 'y\\n' > other.txt"})
        assert result["error"] is None and result["undone"] == result["before"]
        modes = result["modes"]
        assert {"turn.lock", "lock", "state.json", "turns", "objects"} <= modes.keys()
        assert any(name.startswith("turns/") for name in modes) and any(name.startswith("objects/") for name in modes)
        wrong = {name: f"{kind} {mode:o}" for name, (kind, mode, _) in modes.items()
                 if mode != (0o700 if kind == "dir" else 0o600)}
        assert wrong == {}, f"not private as {who.name}: {wrong}"
        assert {owner for _, _, owner in modes.values()} == {who.uid}
    finally:
        shutil.rmtree(top, ignore_errors=True)

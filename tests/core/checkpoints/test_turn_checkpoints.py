"""Issue 26: a checkpoint per turn through the real agent loop (patches, shell commands,
both), and /undo and /redo putting the files back and forward."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from helpers.calls import PATCH, Scripted, agent, answer, custom_call, custom_call_events, fn_call, fn_call_response
from helpers.checkpoint_cases import state
from helpers.streams import body, completed, created

from rivulet.core.checkpoints import restore
from rivulet.core.checkpoints.turns import TurnCheckpoints
from rivulet.core.tools.approval import Decision


def _shell(command: str, n: int = 1) -> bytes:
    return fn_call_response(f"r{n}", fn_call(f"fc_{n}", f"call_{n}", "shell", {
        "command": command, "workdir": None, "timeout_ms": None, "justification": None}))


def _patch_turn(text: str = PATCH) -> bytes:
    call = custom_call("ct_1", "call_p", "apply_patch", text)
    return body([created(), *custom_call_events("ct_1", "call_p", "apply_patch", text), completed([call])])


def _agent(tmp_path: Path, *bodies: bytes):
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    conv, _ = agent(ws, *bodies, policy="auto", approver=Scripted(*[Decision.YES] * 20))
    notes: list[str] = []
    cps = TurnCheckpoints(ws, "S1", root=tmp_path / "data", notice=notes.append)
    conv.tools.checkpoints = cps
    return conv, cps, ws, notes


def _undo(cps: TurnCheckpoints, direction: str = "undo", overwrite: bool = False) -> restore.Plan:
    store = cps.store
    cps.wait()
    with store.locked():
        chosen = restore.undoable(store, "S1") if direction == "undo" else restore.redoable(store, "S1")
        p = restore.plan(store, chosen, direction)
        restore.apply(store, p, overwrite=overwrite)
    return p


async def test_a_patch_turn_is_undone_and_redone(tmp_path):
    conv, cps, ws, _ = _agent(tmp_path, _patch_turn(), answer("r2", "done"))
    (ws / "notes.md").write_text("old\n")
    before = state(ws)
    await conv.run_turn("patch it")
    after = state(ws)
    assert after != before and (ws / "hello.txt").read_text() == "hello\n"
    cp = cps.wait()
    assert cp is not None and cp.turn == 1
    assert {c.path: c.what() for c in cp.changes} == {"hello.txt": "created", "notes.md": "modified"}
    p = _undo(cps)
    assert "-new\n+old" in restore.diff_text(cps.store, p) or "+old" in restore.diff_text(cps.store, p)
    assert state(ws) == before
    _undo(cps, "redo")
    assert state(ws) == after


async def test_a_shell_turn_that_creates_modifies_deletes_chmods_and_symlinks(tmp_path):
    command = ("mkdir -p new/deep && printf 'n\\n' > new/deep/n.txt && printf 'changed\\n' > keep.txt && "
               "rm gone.txt && chmod 755 run.sh && ln -s keep.txt link && ln -sfn /etc/hostname old_link && "
               "rm -r olddir")
    conv, cps, ws, _ = _agent(tmp_path, _shell(command), answer("r2", "done"))
    (ws / "keep.txt").write_text("original\n")
    (ws / "gone.txt").write_text("bye\n")
    (ws / "run.sh").write_text("echo\n")
    (ws / "run.sh").chmod(0o644)
    os.symlink("keep.txt", ws / "old_link")
    (ws / "olddir").mkdir()
    (ws / "olddir" / "x").write_bytes(b"x")
    before = state(ws)
    await conv.run_turn("do it")
    after = state(ws)
    assert after["run.sh"][1] == 0o755 and after["link"] == ("link", "keep.txt") and "gone.txt" not in after
    whats = {c.path: c.what() for c in cps.wait().changes}
    assert whats["gone.txt"] == "deleted" and whats["run.sh"] == "mode 644 -> 755"
    assert whats["new/deep/n.txt"] == "created" and whats["link"] == "created" and whats["olddir"] == "deleted"
    assert cps.last.commands == [command + "  (outside the sandbox)"]  # sandbox = off in these tests
    _undo(cps)
    assert state(ws) == before  # every kind of change back
    _undo(cps, "redo")
    assert state(ws) == after


async def test_a_turn_mixing_a_patch_and_a_command(tmp_path):
    conv, cps, ws, _ = _agent(tmp_path, _patch_turn(), _shell("printf 'more\\n' >> hello.txt && rm notes.md", 2),
                              answer("r3", "done"))
    (ws / "notes.md").write_text("old\n")
    before = state(ws)
    await conv.run_turn("patch and run")
    assert (ws / "hello.txt").read_text() == "hello\nmore\n" and not (ws / "notes.md").exists()
    cps.wait()
    assert len(cps.store.checkpoints()) == 1  # one checkpoint for the whole turn
    _undo(cps)
    assert state(ws) == before


async def test_undo_redo_chains_walk_turn_by_turn(tmp_path):
    conv, cps, ws, _ = _agent(tmp_path, _shell("echo 1 > a"), answer("r2", "ok"), _shell("echo 2 > a", 3),
                              answer("r4", "ok"), _shell("echo 3 > a && echo b > b", 5), answer("r6", "ok"))
    states = [state(ws)]
    for n in range(3):
        await conv.run_turn(f"turn {n}")
        states.append(state(ws))
    for n in (2, 1, 0):
        _undo(cps)
        assert state(ws) == states[n]
    assert restore.undoable(cps.store, "S1") == []
    _undo(cps, "redo")
    _undo(cps, "redo")
    assert state(ws) == states[2]
    # A new turn after an undo: what was undone can no longer be redone (the workspace went another way).
    _undo(cps)
    assert state(ws) == states[1]
    conv2, cps2, _, _ = _agent(tmp_path, _shell("echo other > c", 7), answer("r8", "ok"))
    await conv2.run_turn("another way")
    cps2.wait()
    assert restore.redoable(cps2.store, "S1") == []
    assert [cp.status for cp in cps2.store.checkpoints()] == ["applied", "dropped", "dropped", "applied"]


async def test_a_turn_without_tools_takes_no_checkpoint_and_walks_nothing(tmp_path):
    conv, cps, _ws, _ = _agent(tmp_path, answer("r1", "hi"))
    await conv.run_turn("hello")
    assert cps.wait() is None and cps.store.checkpoints() == [] and not (cps.store.dir / "state.json").exists()


async def test_the_store_lives_outside_the_workspace_and_is_private(tmp_path):
    conv, cps, ws, _ = _agent(tmp_path, _shell("echo x > x"), answer("r2", "ok"))
    await conv.run_turn("go")
    cps.wait()
    assert not cps.store.dir.resolve().is_relative_to(ws.resolve())
    assert sorted(p.name for p in ws.iterdir()) == ["x"]  # nothing of rivulet's in the workspace
    assert stat.S_IMODE(cps.store.dir.stat().st_mode) == 0o700


async def test_warm_takes_the_first_walk_before_any_tool(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    for n in range(5):
        (ws / f"f{n}").write_text(f"{n}\n")
    cps = TurnCheckpoints(ws, "S1", root=tmp_path / "data")
    cps.warm()
    cps.wait()
    assert len(cps.store.objects.all()) == 5  # every file kept: the first tool's walk reads none of them again
    await cps.before_tool("echo")
    (ws / "f0").write_text("changed\n")
    cps.end_turn(1)
    assert [c.path for c in cps.wait().changes] == ["f0"]


def test_checkpoints_false_takes_none(tmp_path):
    from helpers.mock_api import settings

    from rivulet.core.checkpoints.actions import for_run, limits_of

    assert for_run(settings(checkpoints=False), tmp_path, "S", print) is None
    made = for_run(settings(checkpoint_keep=7, checkpoint_file_max_mb=0.5), tmp_path, "S", print)
    assert made is not None and made.store.limits == limits_of(settings(checkpoint_keep=7,
                                                                        checkpoint_file_max_mb=0.5))
    assert made.store.limits.keep == 7 and made.store.limits.file_bytes == 512 * 1024

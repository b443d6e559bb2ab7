"""Issue 36, item 2: two rivulets in one workspace. Their turns ran at once (a chat and an
`exec`), each turn's checkpoint took the other's files for its own, and undoing the chat's
turn deleted the two files the exec had made, with no warning. Now an undo leaves a path
another session's turn changed since (listed as a conflict), and a turn lock keeps the
turns of two rivulets apart (one waits, and says so once)."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from helpers.checkpoint_cases import state

from rivulet.core.checkpoints import restore
from rivulet.core.checkpoints.actions import carry_out
from rivulet.core.checkpoints.store import CheckpointStore
from rivulet.core.checkpoints.turn_lock import RESTORING, RUNNING, TurnLock
from rivulet.core.checkpoints.turns import TurnCheckpoints


def _undo(store: CheckpointStore, session: str) -> tuple[restore.Plan, restore.Result]:
    with store.locked():
        p = restore.plan(store, restore.undoable(store, session), "undo")
        return p, restore.apply(store, p)


def test_undoing_a_turn_leaves_what_another_sessions_turn_beside_it_made(tmp_path):
    """The reported fault, with two sessions' checkpoints taken at once (as two rivulets
    without a turn lock, or an older rivulet beside this one, take them)."""
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    (ws / "notes.md").write_text("old\n")
    chat = TurnCheckpoints(ws, "CHAT", root=data)
    exe = TurnCheckpoints(ws, "EXEC", root=data)
    asyncio.run(chat.before_tool("edit notes"))
    (ws / "notes.md").write_text("new\n")  # the chat's tool
    asyncio.run(exe.before_tool("make two files"))
    (ws / "made1.txt").write_text("1\n")  # the exec's tool
    (ws / "made2.txt").write_text("2\n")
    chat.end_turn(1)
    chat.wait()
    exe.end_turn(1)
    exe.wait()
    assert {c.path for c in chat.last.changes} == {"notes.md", "made1.txt", "made2.txt"}  # the overlap
    p, result = _undo(chat.store, "CHAT")
    assert (ws / "made1.txt").read_text() == "1\n" and (ws / "made2.txt").read_text() == "2\n"  # were deleted
    assert (ws / "notes.md").read_text() == "old\n"  # the chat's own change is undone
    assert set(p.conflicts) == {"made1.txt", "made2.txt"}
    assert p.conflicts["made1.txt"] == "changed by another session's turn since (session EXEC, turn 1)"
    assert sorted(result.left) == [
        "made1.txt: changed by another session's turn since (session EXEC, turn 1), left as it is",
        "made2.txt: changed by another session's turn since (session EXEC, turn 1), left as it is"]


def test_a_later_turn_of_another_session_is_a_conflict_even_when_it_left_the_content_as_it_was(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    first = TurnCheckpoints(ws, "A", root=data)
    asyncio.run(first.before_tool())
    (ws / "shared.txt").write_text("a\n")
    first.end_turn(1)
    first.wait()
    other = TurnCheckpoints(ws, "B", root=data)  # its turn rewrites the file, then writes it back
    asyncio.run(other.before_tool())
    (ws / "shared.txt").write_text("b\n")
    other.end_turn(1)
    other.wait()
    (ws / "shared.txt").write_text("a\n")  # as A's turn left it: the content check alone saw nothing
    p, _ = _undo(first.store, "A")
    assert list(p.conflicts) == ["shared.txt"] and (ws / "shared.txt").read_text() == "a\n"
    # An undone turn of the other session is no conflict (what it changed is put back).
    with other.store.locked():
        restore.apply(other.store, restore.plan(other.store, restore.undoable(other.store, "B"), "undo"),
                      overwrite=True)
    with first.store.locked():
        p = restore.plan(first.store, restore.undoable(first.store, "A"), "undo")
    assert p.conflicts == {}


def test_a_conflict_that_came_while_the_plan_was_shown_is_left_even_with_overwrite(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    mine = TurnCheckpoints(ws, "MINE", root=data)
    asyncio.run(mine.before_tool())
    (ws / "a.txt").write_text("mine\n")
    (ws / "b.txt").write_text("mine\n")
    mine.end_turn(1)
    mine.wait()
    store = CheckpointStore(ws, data)
    with store.locked():
        shown = restore.plan(store, restore.undoable(store, "MINE"), "undo")
    assert shown.conflicts == {}
    other = TurnCheckpoints(ws, "OTHER", root=data)  # runs while the question is open
    asyncio.run(other.before_tool())
    (ws / "b.txt").write_text("theirs\n")
    other.end_turn(1)
    other.wait()
    result = carry_out(store, shown, overwrite=True)
    assert not (ws / "a.txt").exists() and (ws / "b.txt").read_text() == "theirs\n"
    assert result.left == ["b.txt: changed by another session's turn since (session OTHER, turn 1), left as it is"]


def _holder(path: Path) -> dict:
    return json.loads(path.read_text())


class Counting(TurnLock):
    """Counts its tries, so a test waits for the condition "it tried again", not for a time."""

    tries = 0

    def try_hold(self, doing: str = RUNNING):
        self.tries += 1
        return super().try_hold(doing)


async def _tried(lock: Counting, times: int) -> None:
    async with asyncio.timeout(30):
        while lock.tries < times:
            await asyncio.sleep(0.01)


async def test_a_second_turn_lock_waits_for_the_first_and_says_who_holds_it_once(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    first = TurnLock(ws, "S-FIRST", root=data)
    said: list[str] = []
    second = Counting(ws, lambda: "S-SECOND", root=data, notice=said.append)
    await first.hold()
    assert _holder(first.path) == {"pid": os.getpid(), "session": "S-FIRST", "doing": "running a tool"}
    waiting = asyncio.ensure_future(second.hold())
    await _tried(second, 4)  # it tries again and again: still one line
    assert not waiting.done() and not second.held
    assert said == [f"Waiting: another rivulet (pid {os.getpid()}, session S-FIRST) is running a tool in this "
                    "workspace; this run goes on when it is done"]
    first.release()
    await asyncio.wait_for(waiting, 10)
    assert second.held and _holder(second.path)["session"] == "S-SECOND"
    second.release()


async def test_a_cancelled_wait_takes_nothing(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    first, second = TurnLock(ws, "A", root=data), Counting(ws, "B", root=data)
    await first.hold()
    waiting = asyncio.ensure_future(second.hold())
    await _tried(second, 2)
    waiting.cancel()  # Esc
    await asyncio.gather(waiting, return_exceptions=True)
    first.release()
    assert not second.held
    assert first.try_hold() is None  # free: nobody took it behind the cancelled wait
    first.release()


def test_the_lock_is_keyed_by_the_real_path_kept_outside_the_workspace_and_private(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    os.symlink(ws, tmp_path / "link")
    first = TurnLock(ws, "A", root=data)
    through_link = TurnLock(tmp_path / "link", "B", root=data)
    assert first.try_hold() is None
    holder = through_link.try_hold(RESTORING)
    assert holder is not None and holder.session == "A"  # the same workspace, reached by a link
    assert first.path == through_link.path and not first.path.resolve().is_relative_to(ws.resolve())
    assert list(ws.iterdir()) == [], "nothing of rivulet's in the workspace"
    assert stat.S_IMODE(first.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(first.path.parent.stat().st_mode) == 0o700
    first.release()


HOLD_AND_DIE = """
import os, sys, asyncio
from pathlib import Path
from rivulet.core.checkpoints.turn_lock import TurnLock
lock = TurnLock(Path(sys.argv[1]), "DEAD", root=Path(sys.argv[2]))
asyncio.run(lock.hold())
print("held", flush=True)
sys.stdin.read()
"""


def test_a_holder_killed_by_sigkill_holds_nothing(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", HOLD_AND_DIE, str(ws), str(data)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    mine = TurnLock(ws, "ALIVE", root=data)
    holder = mine.try_hold()
    assert holder is not None and holder.pid == proc.pid and holder.session == "DEAD"
    proc.kill()
    proc.wait(timeout=30)
    proc.stdin.close()
    proc.stdout.close()
    assert mine.try_hold() is None  # the kernel let it go with the process
    mine.release()


async def test_a_turn_holds_the_lock_from_its_walk_before_until_its_checkpoint_is_written(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    lock = TurnLock(ws, "S1", root=data)
    cps = TurnCheckpoints(ws, "S1", root=data, lock=lock)
    other = TurnLock(ws, "S2", root=data)
    await cps.before_tool("echo x > x")
    assert lock.held and other.try_hold() is not None
    (ws / "x").write_text("x\n")
    cps.end_turn(1)
    await asyncio.to_thread(cps.wait)
    assert not lock.held and [c.path for c in cps.last.changes] == ["x"]
    assert other.try_hold() is None
    other.release()
    # A turn that runs no tool that may change files takes no lock at all.
    cps.end_turn(2)
    assert not lock.held and state(ws)["x"][2] == b"x\n"


async def test_a_turn_without_tools_does_not_let_go_of_the_lock_the_last_turns_walk_after_holds(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    lock = TurnLock(ws, "S1", root=data)
    cps = TurnCheckpoints(ws, "S1", root=data, lock=lock)
    await cps.before_tool("echo x > x")
    (ws / "x").write_text("x\n")
    store_lock = os.open(cps.store.dir / "lock", os.O_RDWR)
    fcntl.flock(store_lock, fcntl.LOCK_EX)  # the walk after waits for the store: it is under way
    try:
        cps.end_turn(1)
        cps.end_turn(2)  # the next turn only answered
        holder = TurnLock(ws, "S2", root=data).try_hold()
        assert holder is not None and holder.session == "S1", "let go while turn 1's checkpoint was being written"
    finally:
        os.close(store_lock)
    await asyncio.to_thread(cps.wait)
    assert [c.path for c in cps.last.changes] == ["x"] and not lock.held


async def test_with_checkpoints_off_a_tool_still_waits_for_another_rivulet_in_the_workspace(tmp_path):
    from helpers.calls import answer, fn_call, fn_call_response
    from helpers.mock_api import serving, settings

    from rivulet.core.engine import Engine
    from rivulet.core.tools.router import ToolSettings
    from rivulet.core.turn.bus import Notice

    ws = tmp_path / "ws"
    ws.mkdir()
    call = fn_call("fc_1", "call_1", "shell", {"command": "echo x > x", "workdir": None, "timeout_ms": 5000})
    engine = Engine(settings(approval="never-ask", workspace=str(ws), save_sessions=False, checkpoints=False),
                    transport=serving(fn_call_response("r1", call), answer("r2", "done")),
                    tool_settings=ToolSettings(workspace=ws))
    tools = engine.agent_tools
    assert tools.checkpoints is None and tools.turn_lock is not None  # the lock does not need checkpoints
    said: list[str] = []
    engine.bus.subscribe(lambda e: said.append(e.text), Notice)
    other = TurnLock(ws, "OTHER")  # (the same store root: the tests' RIVULET_CHECKPOINTS_DIR)
    assert other.try_hold() is None
    turn = asyncio.ensure_future(engine.submit("make x"))
    async with asyncio.timeout(30):
        while not said:
            await asyncio.sleep(0.01)
    assert "session OTHER) is running a tool in this workspace" in said[0] and not (ws / "x").exists()
    other.release()
    await asyncio.wait_for(turn, 30)
    assert (ws / "x").read_text() == "x\n" and not tools.turn_lock.held
    await engine.aclose()


async def test_a_lock_that_cannot_be_made_is_said_and_the_tool_goes_on(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    data.write_text("a file where rivulet's data folder should be")
    said: list[str] = []
    lock = TurnLock(ws, "S1", root=data, notice=said.append)
    await lock.hold()  # no exception: the turn's tool still runs
    assert not lock.held and said == ["The workspace's lock cannot be taken (Not a directory): this run does not "
                                      "wait for another rivulet in it"]

"""What puts a test in a tier (tests/conftest.py applies it at collection): the peers it
needs besides Python, and whether its module runs the chat app under Textual's Pilot."""

from __future__ import annotations

# A fixture that starts a peer -> the peer's marker; a folder whose every test needs one.
PEER_FIXTURES = {"aimock": "aimock", "gptoss": "gptoss", "tmux": "tmux"}
PEER_FOLDERS = {"terminal": "tmux"}
PEERS = ("aimock", "gptoss", "tmux", "bwrap")
# What a module calls to run the app: Pilot, or a snapshot (which runs it under Pilot).
PILOT_CALLS = ("run_test(", "snap_compare")
# Fixtures started once per module (a server, a built wheel): defined in a test module (seen
# in its source), or in tests/helpers/ (named here).
MODULE_FIXTURE = 'scope="module"'
SHARED_HELPER_FIXTURES = ("aimock",)


def runs_the_app(source: str) -> bool:
    """A test module that runs the whole app (a second or more a test): the `pilot` tier."""
    return any(call in source for call in PILOT_CALLS)


def shares_a_fixture(source: str, fixtures: tuple[str, ...] | list[str]) -> bool:
    """A test that uses a fixture started once for its module: under xdist (scripts/test runs
    two workers) its module stays on one worker, or each worker would start the fixture again."""
    return MODULE_FIXTURE in source or any(name in fixtures for name in SHARED_HELPER_FIXTURES)

"""aimock (npm @copilotkit/aimock, installed by scripts/setup): a real Responses server
written by others, answering from fixture files. `aimock` is a module-scoped fixture
serving fixtures/aimock/e2e.json (registered for every test by tests/conftest.py);
`start_aimock` serves another file. `rivulet()` runs the CLI as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.paths import ROOT
from helpers.peers import free_port, start_peer, stop_peer

AIMOCK_CLI = Path(os.environ.get("AIMOCK_CLI", ROOT / ".ci/aimock/node_modules/@copilotkit/aimock/dist/cli.js"))
KEY = "sk-e2e-secret-key-abcdef123456"


def start_aimock(fixture_file: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    """aimock on a free port serving `fixture_file`: (process, base URL with /v1)."""
    assert AIMOCK_CLI.exists(), f"aimock is not installed at {AIMOCK_CLI}: run scripts/setup"
    port = free_port()
    proc = start_peer(["node", str(AIMOCK_CLI), "-p", str(port), "-h", "127.0.0.1", "-f", str(fixture_file), *extra],
                      f"http://127.0.0.1:{port}/health", timeout=30)
    return proc, f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="module")
def aimock():
    proc, url = start_aimock(ROOT / "fixtures/aimock/e2e.json", "-c", "8", "--validate-on-load")
    yield url
    stop_peer(proc)


def rivulet(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    # No probing of the test's server by itself (its model list, its capabilities): as in
    # tests/conftest.py, no request a test did not ask for; a test about them turns it on.
    full_env.update({"RIVULET_CONFIG": os.devnull, "RIVULET_MAX_RETRIES": "1", "RIVULET_PROBE_SERVERS": "false",
                     "RIVULET_SESSIONS_DIR": os.environ.get("RIVULET_SESSIONS_DIR", "")})
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "rivulet.app", *args], capture_output=True, text=True,
                          env=full_env, timeout=120)


def events(proc: subprocess.CompletedProcess) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines()]



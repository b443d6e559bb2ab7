"""The config file is read only when it is a regular file under 1 MiB (issue 23.5):
/dev/zero, a FIFO with no writer, a directory or a 20 MB file is one clear line and exit
status 2, at once. Each runs rivulet as a real process, its address space capped at
1 GiB (today's main read /dev/zero until memory ran out, and waited on a FIFO forever)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from rivulet.core.config_sources import CONFIG_MAX_BYTES, read_config_file
from rivulet.core.errors import ConfigError


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _run(config: Path | str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    env["RIVULET_CONFIG"] = str(config)
    try:
        return subprocess.run([sys.executable, "-m", "rivulet.app", *args], capture_output=True, text=True,
                              env=env, timeout=60, preexec_fn=_limit_memory, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"rivulet hung on RIVULET_CONFIG={config}")


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "config.fifo"
    os.mkfifo(path)
    return path


def _big(tmp_path: Path) -> Path:
    path = tmp_path / "big.toml"
    with path.open("w") as f:  # a valid TOML file of 20 MB: only its size is wrong
        for n in range(20 * 1024 * 1024 // 64):
            f.write(f"# comment line {n:08d} ...................................\n")
    return path


@pytest.mark.parametrize("make, says", [
    (lambda tmp: Path("/dev/zero"), "is not a regular file (it is a device)"),
    (_fifo, "is not a regular file (it is a FIFO)"),
    (lambda tmp: tmp, "is not a regular file (it is a directory)"),
    (_big, "is 19,660,800 bytes, more than the 1,048,576 a config file may be"),
], ids=["dev-zero", "fifo", "directory", "20MB"])
@pytest.mark.parametrize("command", [["exec", "hi"], []], ids=["exec", "chat"])
def test_a_config_that_is_not_a_small_regular_file_is_one_line_and_exit_2(tmp_path, make, says, command):
    config = make(tmp_path)
    proc = _run(config, *command, "--base-url", "http://127.0.0.1:9/v1")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr == f"rivulet: error: config file {config} {says}\n"


def test_dev_null_is_an_empty_config(tmp_path):
    assert read_config_file(Path(os.devnull)) == {}


def test_a_file_at_the_cap_is_read_and_one_byte_more_is_refused(tmp_path):
    path = tmp_path / "config.toml"
    line = b'model = "m"\n'
    path.write_bytes(line + b"#" * (CONFIG_MAX_BYTES - len(line) - 1) + b"\n")
    assert read_config_file(path) == {"model": "m"}
    with path.open("ab") as f:
        f.write(b"\n")
    with pytest.raises(ConfigError, match="more than the 1,048,576"):
        read_config_file(path)

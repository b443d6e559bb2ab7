"""The prompts you sent, kept per workspace across sessions: Up in the composer
recalls them after a restart too. One JSON string per line in
`<user data dir>/rivulet/prompts/<workspace hash>.jsonl`; only the newest are kept."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

from platformdirs import user_data_dir

log = logging.getLogger(__name__)
KEEP = 500


def history_file(workspace: Path, directory: Path | None = None) -> Path:
    folder = directory or Path(user_data_dir("rivulet")) / "prompts"
    digest = hashlib.sha256(str(workspace).encode()).hexdigest()[:16]
    return folder / f"{digest}.jsonl"


class PromptHistory:
    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> list[str]:
        """The newest KEEP prompts, oldest first; an unreadable line is skipped."""
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        except OSError as exc:
            log.warning("cannot read prompt history %s: %s", self.path, exc)
            return []
        prompts = []
        for line in lines[-KEEP:]:
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, str):
                prompts.append(value)
        return prompts

    def append(self, prompt: str) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, (json.dumps(prompt) + "\n").encode("utf-8"))
            finally:
                os.close(fd)
            if self.path.stat().st_size > KEEP * 4096:  # now and then, drop the oldest
                kept = self.load()
                self.path.write_text("".join(json.dumps(p) + "\n" for p in kept), encoding="utf-8")
        except OSError as exc:  # history is a convenience: never fail a turn over it
            log.warning("cannot write prompt history %s: %s", self.path, exc)

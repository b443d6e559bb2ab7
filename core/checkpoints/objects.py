"""Content-addressed copies of files: one file per distinct content, named by its sha256.

A file is read once, hashed and written beside the others through a temporary name and
a rename, so a kill mid-copy leaves no half object under a real name. The same content
in many files or many turns is kept once. Objects are private to the user (0600 in a
0700 directory): they hold the workspace's files.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path

CHUNK = 1024 * 1024


class StoreWriteError(OSError):
    """The store could not be written (its disk is full, say): not a fault of the file
    being kept, and no other file would fare better."""


def _store_error(exc: OSError) -> StoreWriteError:
    return StoreWriteError(exc.errno, exc.strerror or str(exc), exc.filename)


class Objects:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, digest: str) -> str:
        return os.path.join(self.root, digest[:2], digest[2:])

    def has(self, digest: str) -> bool:
        return os.path.isfile(self.path(digest))

    def sync(self, digests: set[str]) -> None:
        """Make these objects durable (a checkpoint about to name them). Objects are not
        fsynced one by one as they are written: a first walk writes thousands."""
        for digest in digests:
            try:
                fd = os.open(self.path(digest), os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def put_file(self, path: str | Path, limit: int) -> tuple[str, int] | None:
        """Keep the content of the file at `path` (never through a link): its digest and
        how many new bytes were stored (0: already kept). None: it is larger than
        `limit`, or it changed kind under us."""
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(path, flags)
        try:
            st = os.fstat(fd)
            if st.st_mode & 61440 != 32768 or st.st_size > limit:
                return None
            return self._store(lambda: os.read(fd, CHUNK), limit)
        finally:
            os.close(fd)

    def _store(self, reader: Callable[[], bytes], limit: int) -> tuple[str, int] | None:
        """`reader` returns the next chunk, b"" at the end. What fails on the store's side
        is a StoreWriteError; a reader's own OSError is raised as it is."""
        tmp = self.root / f".tmp-{secrets.token_hex(8)}"
        try:
            if not os.path.isdir(self.root):
                self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise _store_error(exc) from None
        h = hashlib.sha256()
        size = 0
        try:
            while True:
                chunk = reader()
                if not chunk:
                    break
                size += len(chunk)
                if size > limit:  # it grew while being read
                    os.close(out)
                    out = -1
                    os.unlink(tmp)
                    return None
                h.update(chunk)
                view = memoryview(chunk)
                try:
                    while view:
                        view = view[os.write(out, view):]
                except OSError as exc:
                    raise _store_error(exc) from None
        except BaseException:
            if out >= 0:
                os.close(out)
            tmp.unlink(missing_ok=True)
            raise
        digest = h.hexdigest()
        final = self.path(digest)
        os.close(out)
        if os.path.isfile(final):
            tmp.unlink(missing_ok=True)
            return digest, 0
        try:
            try:
                os.replace(tmp, final)
            except FileNotFoundError:
                os.mkdir(os.path.dirname(final), 0o700)
                os.replace(tmp, final)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise _store_error(exc) from None
        return digest, size

    def read(self, digest: str) -> bytes:
        with open(self.path(digest), "rb") as fh:
            return fh.read()

    def size(self, digest: str) -> int:
        try:
            return os.stat(self.path(digest)).st_size
        except FileNotFoundError:
            return 0

    def all(self) -> list[str]:
        if not self.root.is_dir():
            return []
        out = []
        for sub in self.root.iterdir():
            if sub.is_dir() and len(sub.name) == 2:
                out += [sub.name + p.name for p in sub.iterdir() if not p.name.startswith(".")]
        return out

    def remove(self, digest: str) -> None:
        try:
            os.unlink(self.path(digest))
        except FileNotFoundError:
            pass

    def sweep_temps(self) -> None:
        """Temporary files a killed copy left behind."""
        if self.root.is_dir():
            for p in self.root.glob(".tmp-*"):
                p.unlink(missing_ok=True)

"""Take the `uv` binary out of a uv wheel that scripts/setup downloaded into DIR, as DIR/uv.

The wheel is pip's download from the package index (checked against the index's hashes);
its one program lies under `uv-<version>.data/scripts/`. Nothing is installed.
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path


def main(folder: str) -> None:
    where = Path(folder)
    wheel = next(where.glob("uv-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".data/scripts/uv"))
        target = where / "uv"
        target.write_bytes(archive.read(name))
    target.chmod(0o755)


if __name__ == "__main__":
    main(sys.argv[1])

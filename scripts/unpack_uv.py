"""Take the `uv` program out of the uv wheel that scripts/setup downloaded into FOLDER and
keep it at TARGET (the user's cache, for the next first run).

The wheel is pip's download from the package index, checked against the index's hashes;
its one program lies under `uv-<version>.data/scripts/`. Nothing is installed. TARGET
appears whole or not at all (written beside it, then renamed).
"""

from __future__ import annotations

import os
import sys
import zipfile
from pathlib import Path


def main(folder: str, target: str) -> None:
    wheel = next(Path(folder).glob("uv-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".data/scripts/uv"))
        data = archive.read(name)
    final = Path(target)
    final.parent.mkdir(parents=True, exist_ok=True)
    partial = final.with_name(f".{final.name}.{os.getpid()}")
    partial.write_bytes(data)
    partial.chmod(0o755)
    partial.replace(final)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

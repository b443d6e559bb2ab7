"""Where the checkout and its recorded server captures are."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
REAL = ROOT / "fixtures" / "real"

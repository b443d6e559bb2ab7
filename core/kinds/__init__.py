"""Item kinds: what rivulet does with each type of committed Responses item (kind.py),
and the registry every front end asks (registry.py)."""

from .kind import ItemKind
from .registry import KINDS, UNKNOWN, commit_problem, kind_of, register, unregister

__all__ = ["KINDS", "UNKNOWN", "ItemKind", "commit_problem", "kind_of", "register", "unregister"]

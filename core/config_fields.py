"""The pieces `Settings` is declared with, and the check that validates the usual input
without pydantic.

Importing pydantic cost about half of a tiny `exec` turn's CPU (~0.3 s of imports on this
machine, its plugin loader pulling in importlib.metadata). Almost every run gives values
that are already of the right type (defaults, TOML, flags), so `check_fast` accepts only
input pydantic surely accepts unchanged, converted the same way (an int for a float, the
strings "true"/"false" from the environment). Anything else, right or wrong, goes to
pydantic (config_pydantic.py, imported only then): its lax conversions and every one of
its error messages stay exactly what they were. tests/core/test_config_fast_check.py
keeps the two in agreement.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

import msgspec

_NO_DEFAULT: Any = object()


class AliasChoices:
    """Other names a setting is read under (its environment variables). A value: equal
    and hashed by its names. (A plain class: a dataclass costs ~1 ms at import.)"""

    __slots__ = ("choices",)

    def __init__(self, *choices: str) -> None:
        self.choices: tuple[str, ...] = choices

    def __eq__(self, other: object) -> bool:
        return type(other) is AliasChoices and other.choices == self.choices

    def __hash__(self) -> int:
        return hash(self.choices)

    def __repr__(self) -> str:
        return f"AliasChoices(choices={self.choices!r})"


class FieldSpec(msgspec.Struct, frozen=True, dict=True):
    """One setting: its default (or factory), its constraints, its aliases. `annotation`
    is filled in once the class exists (`dataclasses.replace`)."""

    default: Any = None
    default_factory: Callable[[], Any] | None = None
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    pattern: str | None = None
    validation_alias: AliasChoices | None = None
    annotation: Any = None

    def initial(self) -> Any:
        return self.default_factory() if self.default_factory is not None else self.default


def Field(default: Any = None, *, default_factory: Callable[[], Any] | None = None,
          ge: float | None = None, gt: float | None = None, le: float | None = None, pattern: str | None = None,
          validation_alias: AliasChoices | None = None) -> Any:
    """A setting with constraints, written as pydantic's `Field` was (the class reads it)."""
    return FieldSpec(default, default_factory, ge, gt, le, pattern, validation_alias)


class SecretStr:
    """The API key: shown as stars in every repr, str and log line (as pydantic's was)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "SecretStr('**********')" if self._value else "SecretStr('')"

    def __str__(self) -> str:
        return "**********" if self._value else ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SecretStr) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


class Unsure(Exception):
    """The fast check cannot vouch for a value: pydantic decides."""


Check = Callable[[Any], Any]
_INT_TEXT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
_FLOAT_TEXT = re.compile(r"-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?")
_BOOL_TEXT = {"true": True, "false": False}


def _check_str(v: Any) -> Any:
    if type(v) is not str:
        raise Unsure
    return v


def _check_bool(v: Any) -> Any:
    if type(v) is bool:
        return v
    if type(v) is str and v in _BOOL_TEXT:  # an environment variable
        return _BOOL_TEXT[v]
    raise Unsure


def _check_int(v: Any) -> Any:
    if type(v) is int:
        return v
    if type(v) is str and _INT_TEXT.fullmatch(v):
        return int(v)
    raise Unsure


def _check_float(v: Any) -> Any:
    if type(v) is float and math.isfinite(v):
        return v
    if type(v) is int:
        return float(v)
    if type(v) is str and _FLOAT_TEXT.fullmatch(v):
        return float(v)
    raise Unsure


def _check_any(v: Any) -> Any:
    return v


def _check_secret(v: Any) -> Any:
    if type(v) is str:
        return SecretStr(v)
    if type(v) is SecretStr:
        return v
    raise Unsure


def _literal(values: tuple[Any, ...]) -> Check:
    allowed = frozenset(values)

    def check(v: Any) -> Any:
        if type(v) is not str or v not in allowed:
            raise Unsure
        return v
    return check


def _optional(inner: Check) -> Check:
    def check(v: Any) -> Any:
        return None if v is None else inner(v)
    return check


def _dict(key: Check, value: Check) -> Check:
    def check(v: Any) -> Any:
        if type(v) is not dict:
            raise Unsure
        return {key(k): value(x) for k, x in v.items()}
    return check


def _list(item: Check) -> Check:
    def check(v: Any) -> Any:
        if type(v) is not list:
            raise Unsure
        return [item(x) for x in v]
    return check


_SIMPLE: dict[Any, Check] = {str: _check_str, bool: _check_bool, int: _check_int, float: _check_float,
                             Any: _check_any, SecretStr: _check_secret}


def checker(annotation: Any) -> Check:
    """The fast check of one annotation (the forms `Settings` uses); raises TypeError for
    another form, so a new kind of setting cannot pass unchecked."""
    simple = _SIMPLE.get(annotation)
    if simple is not None:
        return simple
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal and all(type(a) is str for a in args):
        return _literal(args)
    if origin in (Union, UnionType) and len(args) == 2 and NoneType in args:
        return _optional(checker(next(a for a in args if a is not NoneType)))
    if origin is dict:
        return _dict(checker(args[0]), checker(args[1]))
    if origin is list:
        return _list(checker(args[0]))
    raise TypeError(f"no fast check for {annotation!r}")


def constrained(check: Check, spec: FieldSpec) -> Check:
    """`check`, then the field's bounds and pattern (a value outside them: pydantic words it)."""
    if spec.ge is None and spec.gt is None and spec.le is None and spec.pattern is None:
        return check
    ge, gt, le = spec.ge, spec.gt, spec.le
    # Anchors stripped and the whole string matched: never looser than pydantic's regex.
    pattern = re.compile(spec.pattern.removeprefix("^").removesuffix("$")) if spec.pattern else None

    def bounded(v: Any) -> Any:
        v = check(v)
        if v is None:
            return v
        if (ge is not None and not v >= ge) or (gt is not None and not v > gt) or (le is not None and not v <= le):
            raise Unsure
        if pattern is not None and not pattern.fullmatch(v):
            raise Unsure
        return v
    return bounded

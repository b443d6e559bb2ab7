"""The settings validated by pydantic: the slow path, imported only when the fast check
(config_fields.py) cannot vouch for a value. pydantic converts what its lax mode allows
(" 5 " for an int, "yes" for a bool) and words every error, as it always did.

The model is built from `Settings`' own fields, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import pydantic

from rivulet.core.config_fields import FieldSpec, SecretStr


def _annotation(annotation: Any) -> Any:
    # Our SecretStr stands where pydantic's did; every other annotation is pydantic's own.
    if annotation == (SecretStr | None):
        return pydantic.SecretStr | None
    return annotation


@cache
def _model(fields: tuple[tuple[str, FieldSpec], ...],
           validators: tuple[tuple[str, Callable[[Any], Any]], ...]) -> type[pydantic.BaseModel]:
    definitions: dict[str, Any] = {}
    for name, spec in fields:
        info = pydantic.Field(spec.default, ge=spec.ge, gt=spec.gt, le=spec.le, pattern=spec.pattern) \
            if spec.default_factory is None else \
            pydantic.Field(default_factory=spec.default_factory, ge=spec.ge, gt=spec.gt, le=spec.le,
                           pattern=spec.pattern)
        definitions[name] = (_annotation(spec.annotation), info)
    checks = {f"_check_{name}": pydantic.field_validator(name)(_method(fn)) for name, fn in validators}
    model: type[pydantic.BaseModel] = pydantic.create_model(
        "Settings", __config__=pydantic.ConfigDict(extra="ignore"), __validators__=checks, **definitions)
    return model


def _method(fn: Callable[[Any], Any]) -> Any:
    def check(cls: Any, value: Any) -> Any:  # field_validator makes it a classmethod
        return fn(value)
    return check


def validate(values: dict[str, Any], fields: dict[str, FieldSpec],
             validators: dict[str, Callable[[Any], Any]]) -> dict[str, Any]:
    """The given values converted as pydantic converts them; pydantic's ValidationError
    (a ValueError) for the first bad one."""
    model = _model(tuple(fields.items()), tuple(validators.items()))
    known = {k: v for k, v in values.items() if k in fields}
    checked = model(**known)
    out = {name: getattr(checked, name) for name in known}
    key = out.get("api_key")
    if isinstance(key, pydantic.SecretStr):
        out["api_key"] = SecretStr(key.get_secret_value())
    return out

"""Structured output (`rivulet exec --output-schema FILE`, issue 40): a JSON Schema file
read and checked before any request, sent as the request's `text.format`, and the answer
checked against it when it comes.

The checking is the `jsonschema` library's (the maintained implementation of every draft;
a home-made validator would miss half of the keywords), imported here only, so a run
without a schema never pays its ~60 ms. What a check says is one line, with where: the
JSON path of the part of the answer (or of the schema) that is wrong."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from rivulet.core.errors import RivuletError

MAX_SCHEMA_BYTES = 1 << 20
_NAME = re.compile(r"[^A-Za-z0-9_-]")  # the API's `name`: letters, digits, _ and -, at most 64


class SchemaFileError(RivuletError):
    """The schema file cannot be used: unreadable, not JSON, not an object, not a JSON Schema."""

    kind = "bad_schema"


class OutputSchema:
    """A checked schema and the name it is sent under."""

    def __init__(self, schema: dict[str, Any], name: str) -> None:
        self.schema, self.name = schema, name

    @classmethod
    def load(cls, path: Path) -> OutputSchema:
        """Read and check `path`; SchemaFileError (one line) if it cannot be used."""
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_SCHEMA_BYTES + 1)
        except OSError as exc:
            raise SchemaFileError(f"{path}: {exc.strerror or exc}") from None
        if len(data) > MAX_SCHEMA_BYTES:
            raise SchemaFileError(f"{path}: larger than {MAX_SCHEMA_BYTES:,} bytes: not a schema")
        try:
            schema = json.loads(data)
        except ValueError as exc:
            raise SchemaFileError(f"{path} is not JSON: {exc}") from None
        if not isinstance(schema, dict):
            raise SchemaFileError(f"{path}: a JSON Schema is an object, not {type(schema).__name__}")
        from jsonschema.exceptions import SchemaError
        from jsonschema.validators import validator_for

        try:
            validator_for(schema).check_schema(schema)
        except SchemaError as exc:
            raise SchemaFileError(f"{path} is not a JSON Schema: at {exc.json_path}: {_short(exc.message)}") from None
        name = _NAME.sub("_", path.stem)[:64] or "output"
        return cls(schema, name)

    def text_format(self) -> dict[str, Any]:
        """The request's `text.format` (strict: the server keeps the answer to the schema)."""
        return {"type": "json_schema", "name": self.name, "schema": self.schema, "strict": True}

    def problem(self, answer: str) -> str | None:
        """Why `answer` is not what the schema asks for (one line, with where), or None."""
        try:
            value = json.loads(answer)
        except ValueError as exc:
            return f"the answer is not JSON: {exc}"
        from jsonschema.exceptions import best_match
        from jsonschema.validators import validator_for

        error = best_match(validator_for(self.schema)(self.schema).iter_errors(value))
        if error is None:
            return None
        return f"the answer does not match the schema at {error.json_path}: {_short(error.message)}"


def _short(message: str) -> str:
    """A message on one line and of a line's length (it may quote a long part of the answer)."""
    flat = " ".join(message.split())
    return flat if len(flat) <= 200 else flat[:199] + "…"

"""URLs of the server's endpoints below `base_url`, keeping its query (Azure puts
`?api-version=...` there), so `/models` lands on the path, not inside the query; the
`query` setting's parameters are added to it."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit


def endpoint(base_url: str, path: str, query: Mapping[str, str] | None = None) -> str:
    parts = urlsplit(base_url)
    joined = parts.path.rstrip("/") + "/" + path.lstrip("/")
    params = parts.query
    if query:
        merged = dict(parse_qsl(parts.query, keep_blank_values=True))
        merged.update(query)
        params = urlencode(merged)
    return urlunsplit((parts.scheme, parts.netloc, joined, params, ""))

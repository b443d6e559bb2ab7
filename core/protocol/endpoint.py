"""URLs of the server's endpoints below `base_url`, keeping its query (Azure puts
`?api-version=...` there), so `/models` lands on the path, not inside the query."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def endpoint(base_url: str, path: str) -> str:
    parts = urlsplit(base_url)
    joined = parts.path.rstrip("/") + "/" + path.lstrip("/")
    return urlunsplit((parts.scheme, parts.netloc, joined, parts.query, ""))

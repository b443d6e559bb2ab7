"""The server's address, taken apart once: `Settings.endpoint` is a `ServerEndpoint`.

Whatever rivulet asks of the base URL is answered here, from one parse: its host (OpenAI's
own API has the WebSocket, the grammar patch tool and server compaction), whether it is
this machine (the key may go over plain http only there) or a private network (a local
server is probed unasked), the URL of an endpoint below it (keeping Azure's
`?api-version=` and adding the `query` setting's parameters), its WebSocket form, and the
form that may be shown or logged: no userinfo and no query, either may carry a credential.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from functools import lru_cache
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec


class ServerEndpoint(msgspec.Struct, frozen=True):
    scheme: str  # lower case
    netloc: str  # as written, userinfo included: requests go where the user said
    host: str  # lower case, no trailing dot; an IPv6 address without its brackets
    port: int | None
    path: str  # the prefix the endpoints go below, without a trailing "/"
    query: str  # as written (Azure's api-version)

    @staticmethod
    def parse(url: str) -> ServerEndpoint:
        """Any URL, taken apart (the same URL twice is parsed once). A ValueError, whose
        message shows no credential, when it cannot be: a port that is no number, a bad
        IPv6 address."""
        return _parse(url)

    @staticmethod
    def of_base_url(url: str) -> ServerEndpoint:
        """The `base_url` setting: an http(s) URL with a host, or a one-line ValueError."""
        try:
            endpoint = _parse(url)
        except ValueError as exc:
            raise ValueError(f"base_url must be an http(s) URL, got {_shown(url)!r} ({exc})") from None
        if endpoint.scheme not in ("http", "https") or not endpoint.host:
            raise ValueError(f"base_url must be an http(s) URL, got {endpoint.safe!r}")
        return endpoint

    def __repr__(self) -> str:  # the netloc may hold a password: never in a log line or a traceback
        return f"ServerEndpoint({self.safe!r})"

    @property
    def safe(self) -> str:
        """The form that may be shown or logged."""
        return self.display()

    def display(self, path: str = "") -> str:
        """The safe form of the endpoint `path` below this one."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        if self.port is not None:
            host = f"{host}:{self.port}"
        return urlunsplit((self.scheme, host, self._below(path), "", ""))

    def url(self, path: str, query: Mapping[str, str] | None = None) -> str:
        """The URL of the endpoint `path` below this one, with `query` added to its own."""
        return urlunsplit((self.scheme, self.netloc, self._below(path), self._query(query), ""))

    def ws_url(self, path: str, query: Mapping[str, str] | None = None) -> str:
        """`url`, as a WebSocket URL (https -> wss, http -> ws)."""
        scheme = {"https": "wss", "http": "ws"}.get(self.scheme, self.scheme)
        return urlunsplit((scheme, self.netloc, self._below(path), self._query(query), ""))

    @property
    def is_loopback(self) -> bool:
        """This machine, by name (`localhost`) or by a loopback address. A host name is not
        looked up: `127.example.com` is not loopback."""
        if self.host == "localhost":
            return True
        address = _address(self.host)
        return address is not None and address.is_loopback

    @property
    def is_local(self) -> bool:
        """This machine or a private network by its address (loopback, RFC 1918,
        link-local, IPv6 unique-local), or a `localhost` name."""
        if self.host == "localhost" or self.host.endswith(".localhost"):
            return True
        address = _address(self.host)
        return address is not None and (address.is_loopback or address.is_private or address.is_link_local)

    def _below(self, path: str) -> str:
        return f"{self.path}/{path.lstrip('/')}" if path else self.path

    def _query(self, query: Mapping[str, str] | None) -> str:
        if not query:
            return self.query
        merged = dict(parse_qsl(self.query, keep_blank_values=True))
        merged.update(query)
        return urlencode(merged)


def safe_url(url: str) -> str:
    """Any URL without userinfo or query (either may carry credentials), to show or log."""
    try:
        return _parse(url).safe
    except ValueError:
        return "<invalid url>"


@lru_cache(maxsize=32)
def _parse(url: str) -> ServerEndpoint:
    parts = urlsplit(url)  # a ValueError for a bad IPv6 address
    try:
        port = parts.port
    except ValueError:
        raise ValueError("its port is not a number from 0 to 65535") from None
    host = (parts.hostname or "").rstrip(".")
    return ServerEndpoint(parts.scheme.lower(), parts.netloc, host, port, parts.path.rstrip("/"), parts.query)


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _shown(url: str) -> str:
    """A URL that does not parse, without what may be a credential: scheme, host and port
    as written, and the path."""
    scheme, _, rest = url.partition("://")
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    path = rest[end:].split("?", 1)[0].split("#", 1)[0]
    return f"{scheme}://{rest[:end].rpartition('@')[2]}{path}"

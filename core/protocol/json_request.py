"""One JSON request to the server beside the stream (`GET /models`, `POST
/responses/compact`): the auth headers, a timeout, and every failure as one line that
names the endpoint (never the key)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from rivulet.core.config import Settings
from rivulet.core.errors import LimitExceeded, MalformedEventError, RivuletError, error_from_body, one_line
from rivulet.core.protocol.byte_caps import ACCEPT_ENCODING, ERROR_BODY_MAX, message_max_bytes, read_capped, read_within
from rivulet.core.protocol.http_client import new_client


class JsonRequestError(RivuletError):
    kind = "request_error"
    status: int | None = None  # the HTTP status, when the server answered


async def request_json(settings: Settings, method: str, path: str, *, what: str, body: Any = None,
                       client: httpx.AsyncClient | None = None, timeout: float = 20.0) -> Any:
    """`method {base_url}/{path}` and its parsed JSON. `what` says what was asked
    ("its models"), for the error lines. Raises JsonRequestError."""
    url, where = settings.endpoint.url(path, settings.query), settings.endpoint.display(path)
    own = client is None
    client = client or new_client(httpx.Timeout(timeout, connect=settings.connect_timeout))
    headers = {**settings.auth_headers(), "Accept": "application/json", "Accept-Encoding": ACCEPT_ENCODING}
    try:
        # Streamed and capped: neither a gzip bomb nor an endless body is read whole.
        async with client.stream(method, url, json=body, headers=headers) as response:
            if response.status_code >= 400:
                content, _ = await read_capped(response, ERROR_BODY_MAX)
            else:
                content = await read_within(response, message_max_bytes(settings), f"the answer of {where}")
    except (LimitExceeded, MalformedEventError) as exc:  # too large, or an encoding byte_caps refuses
        raise JsonRequestError(exc.message) from None
    except httpx.TimeoutException as exc:
        raise JsonRequestError(f"timed out asking {where} for {what}: {type(exc).__name__}") from None
    except httpx.TransportError as exc:
        raise JsonRequestError(f"cannot ask {where} for {what}: {exc or type(exc).__name__}") from None
    finally:
        if own:
            await client.aclose()
    if response.status_code >= 400:
        error = JsonRequestError(f"{where}: HTTP {response.status_code}: "
                                 f"{error_from_body(response.status_code, content).message}")
        error.status = response.status_code
        raise error
    try:
        return json.loads(content)
    except RecursionError:  # a depth bomb ("[[[[…") under the size cap
        raise JsonRequestError(f"{where} answered with JSON nested too deeply to read") from None
    except ValueError:
        raise JsonRequestError(f"{where} did not answer with JSON: "
                               f"{one_line(content.decode('utf-8', 'replace'))!r}") from None

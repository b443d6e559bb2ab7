"""The base URL is taken apart once (core/server_endpoint.py): every question asked of
it (which host, this machine or not, an endpoint's URL, the form that may be shown) is
answered by the one `ServerEndpoint` of the settings, so two modules never disagree."""

from __future__ import annotations

import ast

import httpx
import pytest
from helpers.paths import ROOT

from rivulet.core import capabilities as caps
from rivulet.core.config import Settings, effective_patch_tool, load_settings
from rivulet.core.errors import ConfigError
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.protocol.transports import wants_websocket
from rivulet.core.turn.compaction import uses_server

pytestmark = pytest.mark.usefixtures("isolated_config")


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RIVULET_BASE_URL", "RIVULET_PROVIDER"):
        monkeypatch.delenv(var, raising=False)


def test_a_base_url_whose_port_is_no_number_is_a_one_line_error_naming_no_credential():
    with pytest.raises(ConfigError) as caught:
        load_settings(base_url="http://user:hunter2@h.test:80a/v1?key=sk-zz")
    message = str(caught.value)
    assert message.startswith("bad --base-url: base_url must be an http(s) URL, got 'http://h.test:80a/v1'")
    assert "\n" not in message and "hunter2" not in message and "sk-zz" not in message


@pytest.mark.parametrize(("url", "refused"), [
    ("http://127.0.0.1:8080/v1", False),
    ("http://localhost:8080/v1", False),
    ("http://[::1]:8080/v1", False),
    ("https://api.example.com/v1", False),
    ("http://127.attacker.example/v1", True),  # a name that begins like an address is a name
    ("http://10.0.0.5:8000/v1", True),  # a private network is not this machine
])
def test_the_key_goes_over_plain_http_only_to_this_machine(url, refused):
    problem = Settings(base_url=url, api_key="sk-x").insecure_key_problem()
    assert (problem is not None) is refused


def test_the_shown_form_keeps_an_ipv6_address_whole_and_drops_credentials():
    settings = Settings(base_url="http://user:hunter2@[::1]:8080/v1?key=sk-zz")
    assert settings.endpoint.safe == "http://[::1]:8080/v1"
    assert settings.endpoint.display("models") == "http://[::1]:8080/v1/models"
    assert "hunter2" not in repr(settings.endpoint) and "sk-zz" not in repr(settings.endpoint)


def test_every_question_about_the_host_gets_the_same_answer_however_it_is_spelled():
    """OpenAI's API in capitals and with the root's trailing dot is still OpenAI's API, for
    the patch tool, the transport, compaction and the capability probe alike."""
    for url in ("https://api.openai.com/v1", "https://API.OpenAI.com./v1"):
        settings = Settings(base_url=url)
        assert effective_patch_tool(settings) == "custom"
        assert wants_websocket(settings) and uses_server(settings) and not caps.wants_probe(settings)


def test_local_servers_are_named_by_their_address_never_looked_up():
    local = ["http://127.0.0.1:8080/v1", "http://localhost:1234/v1", "http://box.localhost/v1",
             "http://192.168.1.9:11434/v1", "http://[fd00::1]:8000/v1", "http://[::1]/v1"]
    remote = ["https://api.openai.com/v1", "http://127.attacker.example/v1", "http://8.8.8.8/v1"]
    assert all(Settings(base_url=u).endpoint.is_local for u in local)
    assert not any(Settings(base_url=u).endpoint.is_local for u in remote)
    assert caps.is_local_server(Settings(base_url="http://192.168.1.9:11434/v1"))


def test_an_endpoint_keeps_the_base_urls_query_and_adds_the_settings_own():
    endpoint = Settings(base_url="https://h.test/openai/?x=1").endpoint
    assert endpoint.url("responses", {"api-version": "v9"}) == "https://h.test/openai/responses?x=1&api-version=v9"
    assert endpoint.ws_url("responses") == "wss://h.test/openai/responses?x=1"
    assert Settings(base_url="http://127.0.0.1:8000/v1/").endpoint.ws_url("responses") \
        == "ws://127.0.0.1:8000/v1/responses"



async def test_a_background_responses_id_goes_in_the_path_not_after_azures_query():
    """Resuming, fetching and cancelling a background response name it in the path:
    after `?api-version=` it would be part of the query, and a 404."""
    settings = Settings(base_url="https://r.openai.azure.com/openai", query={"api-version": "v1"})
    async with httpx.AsyncClient() as client:
        transport = SseTransport(settings, client)
        assert transport.response_url("resp_1") == "https://r.openai.azure.com/openai/responses/resp_1?api-version=v1"


# Modules that parse URLs that are not the base URL: the sources an answer cites, `@file:` references,
# an ACP resource link's file:// URI.
OTHER_URLS = {"core/hosted_items.py", "app/attach/refs.py", "app/acp/prompt_blocks.py"}


def test_the_base_url_is_taken_apart_in_one_module():
    parsers = set()
    for folder in ("core", "app", "widgets"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module == "urllib.parse" and \
                        {a.name for a in node.names} & {"urlsplit", "urlparse", "urlunsplit", "urlunparse"}:
                    parsers.add(path.relative_to(ROOT).as_posix())
    assert parsers - OTHER_URLS == {"core/server_endpoint.py"}

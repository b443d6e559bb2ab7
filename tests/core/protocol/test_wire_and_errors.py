"""Wire parsing of bad input, and the retryable/fatal error taxonomy."""

from __future__ import annotations

import logging

import pytest
from helpers.streams import decode_event, ev

from rivulet.core import errors
from rivulet.core.protocol.events import Completed, Failure
from rivulet.core.protocol.wire import UnknownWire, as_sent, extra_fields, parse_wire


def test_unknown_event_type_is_logged_at_debug_and_ignored(caplog):
    caplog.set_level(logging.DEBUG, logger="rivulet.core.protocol.wire")
    payload = ev("response.brand_new_thing.delta", item_id="x", delta="?")
    assert isinstance(parse_wire(payload), UnknownWire)
    assert decode_event(payload) is None
    assert any("response.brand_new_thing.delta" in r.getMessage() and r.levelno == logging.DEBUG
               for r in caplog.records)


@pytest.mark.parametrize("data, fragment", [
    ("{not json", "not JSON"),
    ('"just a string"', "without a string 'type'"),
    ('{"no_type": 1}', "without a string 'type'"),
    (ev("response.output_text.delta", item_id="m"), "delta"),  # known type missing its delta
    (ev("response.output_item.added", item="not an object"), "item"),
])
def test_malformed_payloads_raise_a_clear_error(data, fragment):
    with pytest.raises(errors.MalformedEventError, match=fragment):
        parse_wire(data)


def test_wire_fields_are_kept_as_sent():
    payload = ev("response.output_text.delta", item_id="m", delta="x", obfuscation="abc", future_field=[1])
    wire = parse_wire(payload)
    assert extra_fields(wire) == {"obfuscation": "abc", "future_field": [1]}
    assert as_sent(wire) == {"type": "response.output_text.delta", "item_id": "m", "delta": "x",
                             "obfuscation": "abc", "future_field": [1]}


def test_a_payload_cannot_set_what_the_event_keeps_as_sent():
    # The wire event keeps its payload under a field name; a server that sends that name
    # changes nothing: the payload kept is the one received, and the field round-trips.
    payload = ev("response.output_text.delta", item_id="m", delta="x", __rivulet_raw__={"forged": True})
    wire = parse_wire(payload)
    assert wire.raw == payload
    assert as_sent(wire) == {"type": "response.output_text.delta", "item_id": "m", "delta": "x",
                             "__rivulet_raw__": {"forged": True}}


def test_a_wrong_type_in_a_needed_field_names_the_field_in_one_line():
    with pytest.raises(errors.MalformedEventError) as info:
        parse_wire(ev("response.output_item.done", output_index=0, item=[1, 2]))
    assert info.value.message.startswith("response.output_item.done: bad field 'item'")
    assert "\n" not in info.value.message


@pytest.mark.parametrize("payload, cls, retryable", [
    (ev("error", code="context_length_exceeded", message="too long"), errors.ContextLengthExceeded, False),
    (ev("error", error={"type": "insufficient_quota", "code": "insufficient_quota", "message": "q"}),
     errors.QuotaExceeded, False),
    (ev("error", code="invalid_prompt", message="bad"), errors.InvalidRequest, False),
    (ev("error", code="server_error", message="boom"), errors.ServerError, True),
    (ev("error", code="rate_limit_exceeded", message="Rate limit reached. Please try again in 1.5s."),
     errors.RateLimited, True),
    (ev("error", code="rate_limit_exceeded", message="Rate limit reached."), errors.RateLimited, False),
    (ev("error", status=429, error={"code": "rate_limit_exceeded", "message": "slow down"}), errors.RateLimited,
     False),
    (ev("response.failed", response={"error": {"code": "server_error", "message": "x"}}), errors.ServerError, True),
    (ev("response.failed", response={"error": {"code": "context_length_exceeded", "message": "x"}}),
     errors.ContextLengthExceeded, False),
    (ev("response.failed", response={"error": None}), errors.ResponseFailed, False),
    # llama.cpp's bare error frame: no `type`, the HTTP status in `code`.
    ('{"error":{"code":500,"message":"The model produced output that does not match","type":"server_error"}}',
     errors.ServerError, True),
    ('{"error":{"code":400,"message":"bad input"}}', errors.InvalidRequest, False),
    ('{"error":"plain text error"}', errors.ResponseFailed, False),
    # Fields of the wrong type never hide the error.
    (ev("error", code=500, message=["not", "a", "string"], status="500"), errors.ServerError, True),
])
def test_failures_are_typed_and_classified(payload, cls, retryable):
    mapped = decode_event(payload)
    assert isinstance(mapped, Failure)
    assert type(mapped.error) is cls
    assert mapped.error.retryable is retryable
    assert mapped.error.kind != "malformed_event" and "\n" not in mapped.error.message


def test_incomplete_is_a_final_answer_not_a_failure():
    mapped = decode_event(ev("response.incomplete", response={
        "id": "resp_1", "incomplete_details": {"reason": "content_filter"}, "usage": "junk", "output": []}))
    assert isinstance(mapped, Completed)
    assert mapped.incomplete == "content_filter" and mapped.usage is None


def test_a_display_only_field_of_the_wrong_type_is_treated_as_missing():
    mapped = decode_event(ev("response.output_text.delta", item_id="m", delta="x", output_index="zero",
                             content_index={"a": 1}, sequence_number=[1]))
    assert (mapped.delta, mapped.item_id, mapped.output_index, mapped.index) == ("x", "m", None, None)


@pytest.mark.parametrize("payload, field", [
    (ev("response.output_text.delta", item_id="m", delta=5), "delta"),
    (ev("response.output_text.delta", item_id=7, delta="x"), "item_id"),
    (ev("response.output_item.added", output_index=0, item="not an object"), "item"),
    (ev("response.completed", response=[1, 2]), "response"),
])
def test_a_needed_field_of_the_wrong_type_is_one_malformed_event_line(payload, field):
    with pytest.raises(errors.MalformedEventError, match=field) as info:
        decode_event(payload)
    assert "\n" not in info.value.message


@pytest.mark.parametrize("body, line", [
    (b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center>"
     b"<hr><center>nginx</center></body></html>", "502 Bad Gateway"),
    (b"<!DOCTYPE html>\n<html><head><style>p{}</style></head>\n<body>\n\n<p>Upstream &amp; co. died</p></body></html>",
     "Upstream & co. died"),
    (b"\n\n  first line\nsecond line", "first line"),
    (b"x" * 5000, "x" * 199 + "\u2026"),
])
def test_an_error_body_becomes_one_short_line_and_the_whole_body_is_kept(body, line):
    error = errors.error_from_body(500, body)
    assert error.message == line
    assert error.body == body.decode()


@pytest.mark.parametrize("message, seconds", [
    ("Please try again in 1.898s.", 1.898),
    ("Please try again in 20ms.", 0.02),
    ("Please try again in 2m3s.", 123.0),
    ("no delay here", None),
])
def test_retry_delay_is_parsed_from_the_message(message, seconds):
    got = errors.parse_retry_after(message)
    assert got == pytest.approx(seconds) if seconds is not None else got is None


@pytest.mark.parametrize("status, body, cls, retryable", [
    (400, '{"error":{"message":"bad param","type":"invalid_request_error","code":null}}', errors.InvalidRequest, False),
    (400, '{"error":{"message":"Your input exceeds the context window","code":"context_length_exceeded"}}',
     errors.ContextLengthExceeded, False),
    (401, '{"error":{"message":"Incorrect API key provided: sk-abcdef123456789","code":"invalid_api_key"}}',
     errors.AuthenticationError, False),
    (422, '{"detail":[{"loc":["body","input"],"msg":"field required"}]}', errors.InvalidRequest, False),
    (429, '{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}}',
     errors.QuotaExceeded, False),
    (500, "Internal Server Error", errors.ServerError, True),
    (503, "", errors.ServerError, True),
])
def test_http_error_bodies_map_to_the_same_types(status, body, cls, retryable):
    err = errors.error_from_body(status, body.encode())
    assert type(err) is cls and err.retryable is retryable and err.status == status
    assert "sk-abcdef" not in err.message


def test_429_with_retry_after_header_is_retryable():
    err = errors.error_from_body(429, b'{"error":{"message":"slow","code":"rate_limit_exceeded"}}', "3")
    assert err.retryable and err.retry_after == 3.0


def test_keys_are_redacted_from_every_error_message():
    err = errors.StreamError("failed with Bearer sk-proj-abcdefghijklmnop and sk-live_1234567890")
    assert "abcdefghijklmnop" not in str(err) and "1234567890" not in err.to_json()["message"]

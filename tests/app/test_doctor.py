"""`rivulet doctor` as a user runs it: a real process against real servers."""

from __future__ import annotations

import json

from helpers.aimock import rivulet
from helpers.local_server import LocalServer, Reply, Request


def test_doctor_against_aimock_reports_what_it_supports(aimock):
    proc = rivulet("doctor", "--base-url", aimock, "--json", "--timeout", "30")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    results = {p["name"]: p["ok"] for p in report["probes"]}
    assert results["plain text"] and results["function call (tool_choice required)"]
    assert results["reasoning"] and results["Responses WebSocket"]
    # aimock cannot make a custom tool call, and answers a chained request without the
    # earlier turn (it ignores previous_response_id): both are reported as such.
    assert results["custom (freeform) tool"] is False
    assert report["recommended"]["patch_tool"] == "function"
    assert report["recommended"]["transport"] == "ws"
    assert report["recommended"]["ws_incremental"] is False
    assert report["deviations"] == [] and report["can_chat"]


def test_doctor_text_report_is_readable(aimock):
    proc = rivulet("doctor", "--base-url", aimock, "--timeout", "30")
    assert proc.returncode == 0
    assert "ok   plain text" in proc.stdout and "Recommended settings" in proc.stdout
    assert "\x1b" not in proc.stdout


def _html_errors(request: Request) -> Reply | None:
    """Every POST a 502 page of nginx's; a GET (the WebSocket probe) is not served."""
    if request.method != "POST":
        return None
    page = b"<html><head><title>502 Bad Gateway</title></head><body>" + b"<p>nginx</p>" * 500 + b"</body></html>"
    return Reply(502, {"content-type": "text/html"}, page)


def test_doctor_exits_non_zero_only_when_the_server_cannot_chat():
    with LocalServer(_html_errors, protocol="HTTP/1.0") as server:  # (as http.server's default answered)
        proc = rivulet("doctor", "--base-url", server.base_url, "--timeout", "20", env={"RIVULET_MAX_RETRIES": "0"})
    assert proc.returncode == 1
    assert "FAIL plain text" in proc.stdout
    # The HTML page is one line: its title.
    assert "server_error (HTTP 502): 502 Bad Gateway" in proc.stdout
    assert "nginx" not in proc.stdout and "Traceback" not in proc.stderr

"""`rivulet doctor` as a user runs it: a real process against real servers."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from helpers.aimock import rivulet


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


class _HtmlErrors(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        page = b"<html><head><title>502 Bad Gateway</title></head><body>" + b"<p>nginx</p>" * 500 + b"</body></html>"
        self.send_response(502)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *args):
        pass


def test_doctor_exits_non_zero_only_when_the_server_cannot_chat():
    server = HTTPServer(("127.0.0.1", 0), _HtmlErrors)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        proc = rivulet("doctor", "--base-url", f"http://127.0.0.1:{server.server_port}/v1", "--timeout", "20",
                       env={"RIVULET_MAX_RETRIES": "0"})
    finally:
        server.shutdown()
    assert proc.returncode == 1
    assert "FAIL plain text" in proc.stdout
    # The HTML page is one line: its title.
    assert "server_error (HTTP 502): 502 Bad Gateway" in proc.stdout
    assert "nginx" not in proc.stdout and "Traceback" not in proc.stderr

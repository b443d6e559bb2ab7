"""The embedded demo: a real HTTP server on 127.0.0.1 speaking Responses SSE.

With no API key and no base URL, rivulet talks to this, so a new user sees every
pane work offline within seconds: a reasoning summary, a Markdown answer with a code
block, a function call followed by a second response, a patch, and two subagents at
once. The answers are scripted (app/demo_texts.py; this is not a model) and the UI
labels the session as a demo.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rivulet.app import DEMO_MODEL
from rivulet.app.demo_texts import (
    ANSWER,
    DELEGATE_REASONING,
    DEMO_PATCH,
    DEMO_TASKS,
    PATCH_REASONING,
    REASONING,
    TOOL_REASONING,
)
from rivulet.core.turn.attachments import prompt_text


def _words(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


ACCEPT_WAIT = 0.5  # seconds an accept() may wait before serve_forever looks again

class _Script:
    """Builds one response's events, with realistic ids and sequence numbers."""

    def __init__(self) -> None:
        self.rid = f"resp_demo_{uuid.uuid4().hex[:24]}"
        self.seq = 0
        self.output: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []

    def emit(self, type_: str, **fields: Any) -> None:
        self.events.append({"type": type_, "sequence_number": self.seq, **fields})
        self.seq += 1

    def start(self) -> None:
        resp = {"id": self.rid, "object": "response", "status": "in_progress", "model": DEMO_MODEL, "output": []}
        self.emit("response.created", response=resp)
        self.emit("response.in_progress", response=resp)

    def reasoning(self, summary: str) -> None:
        idx, iid = len(self.output), f"rs_demo_{uuid.uuid4().hex[:24]}"
        self.emit("response.output_item.added", output_index=idx, item={"id": iid, "type": "reasoning", "summary": []})
        self.emit("response.reasoning_summary_part.added", item_id=iid, output_index=idx, summary_index=0,
                  part={"type": "summary_text", "text": ""})
        for w in _words(summary):
            self.emit("response.reasoning_summary_text.delta", item_id=iid, output_index=idx, summary_index=0,
                      delta=w)
        self.emit("response.reasoning_summary_text.done", item_id=iid, output_index=idx, summary_index=0,
                  text=summary)
        item = {"id": iid, "type": "reasoning", "summary": [{"type": "summary_text", "text": summary}],
                "encrypted_content": f"demo-{iid}"}
        self.emit("response.output_item.done", output_index=idx, item=item)
        self.output.append(item)

    def message(self, text: str) -> None:
        idx, iid = len(self.output), f"msg_demo_{uuid.uuid4().hex[:24]}"
        self.emit("response.output_item.added", output_index=idx,
                  item={"id": iid, "type": "message", "status": "in_progress", "role": "assistant", "content": []})
        self.emit("response.content_part.added", item_id=iid, output_index=idx, content_index=0,
                  part={"type": "output_text", "text": "", "annotations": []})
        for w in _words(text):
            self.emit("response.output_text.delta", item_id=iid, output_index=idx, content_index=0, delta=w)
        self.emit("response.output_text.done", item_id=iid, output_index=idx, content_index=0, text=text)
        item = {"id": iid, "type": "message", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}
        self.emit("response.output_item.done", output_index=idx, item=item)
        self.output.append(item)

    def call(self, name: str, arguments: str) -> None:
        self._tool_call("function_call", "fc", name, "arguments", "function_call_arguments", arguments, 3)

    def custom_call(self, name: str, text: str) -> None:
        self._tool_call("custom_tool_call", "ctc", name, "input", "custom_tool_call_input", text, 6)

    def _tool_call(self, kind: str, prefix: str, name: str, field: str, event: str, text: str, step: int) -> None:
        idx, iid = len(self.output), f"{prefix}_demo_{uuid.uuid4().hex[:24]}"
        base = {"id": iid, "type": kind, "call_id": f"call_demo_{uuid.uuid4().hex[:16]}", "name": name}
        self.emit("response.output_item.added", output_index=idx, item={**base, field: "", "status": "in_progress"})
        for i in range(0, len(text), step):
            self.emit(f"response.{event}.delta", item_id=iid, output_index=idx, delta=text[i:i + step])
        self.emit(f"response.{event}.done", item_id=iid, output_index=idx, **{field: text})
        item = {**base, field: text, "status": "completed"}
        self.emit("response.output_item.done", output_index=idx, item=item)
        self.output.append(item)

    def finish(self, input_tokens: int) -> None:
        out_tokens = sum(len(e.get("delta", "")) for e in self.events) // 4 + 1
        self.emit("response.completed", response={
            "id": self.rid, "object": "response", "status": "completed", "model": DEMO_MODEL, "output": self.output,
            "usage": {"input_tokens": input_tokens, "output_tokens": out_tokens,
                      "total_tokens": input_tokens + out_tokens}})


def script_for(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The demo's answer to one request."""
    inputs = request.get("input") or []
    if isinstance(inputs, str):
        inputs = [{"type": "message", "role": "user", "content": inputs}]
    last = inputs[-1] if inputs else {}
    s = _Script()
    s.start()
    input_tokens = len(json.dumps(inputs)) // 4
    task = _text(inputs[0]) if inputs and isinstance(inputs[0], dict) else ""
    if task in DEMO_TASKS and last.get("type") != "function_call_output":  # a demo subagent's turn
        s.reasoning(f"**Working on it**\n\n{task.removeprefix('Demo task: ')}")
        s.message(DEMO_TASKS[task])
    elif last.get("type") == "function_call_output" and _called(inputs, last) == "spawn_agent":
        answers = [str(i.get("output")) for i in inputs if i.get("type") == "function_call_output"][-2:]
        s.message("Both subagents answered, each from its own task alone, at the same time:\n\n"
                  + "\n".join(f"- {a}" for a in answers)
                  + "\n\nEach one's pane under its call shows what it did; click it to open its items.")
    elif last.get("type") == "function_call_output":
        s.message(f"The `current_time` tool answered:\n\n```json\n{last.get('output')}\n```\n\n"
                  "That was a function call: the model asked, rivulet ran the tool, sent the output back, "
                  "and this second response finished the turn.")
    elif last.get("type") == "custom_tool_call_output" and _called(inputs, last) != "apply_patch":
        s.message(f"`{_called(inputs, last)}` answered:\n\n```\n{last.get('output')}\n```")
    elif last.get("type") == "custom_tool_call_output":
        s.message(f"`apply_patch` answered:\n\n```\n{last.get('output')}\n```\n\n"
                  # Commands, not keys: plain mode has no ctrl+t or ctrl+o, and both front ends have these.
                  "In the chat, **/diff** shows everything this turn changed and **/undo** puts it back "
                  "(from a shell: `rivulet undo`).")
    elif _text(last).startswith("Compact this conversation"):  # /compact's summary request
        turns = sum(1 for i in inputs if i.get("type") == "message" and i.get("role") == "user") - 1
        s.message(f"The user tried rivulet's demo over {turns} earlier message(s): scripted answers, "
                  "no model. Nothing is pending.")
    else:
        # What the user typed: an attached file's text (its `<file path=…>` wrapper says "file")
        # is not a request for the patch script.
        prompt = prompt_text(last).strip()
        offered = {t.get("name"): t.get("type") for t in request.get("tools") or [] if isinstance(t, dict)}
        asked = re.search(r"\bcall the (\S+) tool\b", prompt, re.I)  # as `rivulet doctor` asks
        custom = asked.group(1) if asked and offered.get(asked.group(1)) == "custom" else None
        if re.search(r"\b(file|patch|edit)\b", prompt, re.I) and "apply_patch" in offered:
            s.reasoning(PATCH_REASONING)
            s.custom_call("apply_patch", DEMO_PATCH)
        elif re.search(r"\b(delegate|subagents?)\b", prompt, re.I) and "spawn_agent" in offered:
            s.reasoning(DELEGATE_REASONING)
            for (task, _), name in zip(DEMO_TASKS.items(), ("events", "undo"), strict=True):
                s.call("spawn_agent", json.dumps({"task": task, "name": name}))
        elif re.search(r"\b(time|clock|tool)\b", prompt, re.I) and "current_time" in offered:
            s.reasoning(TOOL_REASONING)
            s.call("current_time", "{}")
        elif custom:  # "Call the echo tool with the input: hello": a freeform call to it
            s.custom_call(custom, prompt.split("input:", 1)[-1].strip())
        else:
            s.reasoning(REASONING)
            s.message(ANSWER.format(prompt=prompt[:200].replace("\n", " ")))
    s.finish(input_tokens)
    return s.events


def _called(inputs: list[Any], output: dict[str, Any]) -> str:
    """The name of the call an output answers (the request carries the call before it)."""
    for item in inputs:
        if isinstance(item, dict) and item.get("call_id") == output.get("call_id") and item.get("name"):
            return str(item["name"])
    return "the tool"


def _text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "".join(str(p.get("text", "")) for p in content or [] if isinstance(p, dict))


# What `GET /v1/models` lists (for /model), with windows as llama.cpp reports them.
DEMO_MODELS = [{"id": DEMO_MODEL, "object": "model", "owned_by": "rivulet", "meta": {"n_ctx": 32_768}},
               {"id": f"{DEMO_MODEL}-mini", "object": "model", "owned_by": "rivulet", "meta": {"n_ctx": 8_192}}]


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self._json(200, {"object": "list", "data": DEMO_MODELS})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}", "code": "not_found"}})

    def do_POST(self) -> None:
        if self.path.rstrip("/") not in ("/v1/responses", "/responses"):
            self._json(404, {"error": {"message": f"no route {self.path}", "code": "not_found"}})
            return
        try:
            length = int(self.headers.get("content-length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._json(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            return
        events = script_for(request)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-store")
        self.send_header("connection", "close")
        self.end_headers()
        try:
            for ev in events:
                chunk = f"event: {ev['type']}\ndata: {json.dumps(ev)}\n\n".encode()
                self.wfile.write(chunk)
                self.wfile.flush()
                if self.server.delay:
                    time.sleep(self.server.delay)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away (an interrupt): nothing to clean up
        self.close_connection = True

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    delay = 0.0

    def server_activate(self) -> None:
        super().server_activate()
        # accept() may find nothing after select() said a connection was waiting (a client
        # that was gone first, as the chat quitting mid-connect): a blocking accept would
        # then keep serve_forever, and so shutdown() at quit, waiting for ever.
        self.socket.settimeout(ACCEPT_WAIT)


class DemoServer:
    """Serves the demo on 127.0.0.1 (a free port) in a background thread."""

    def __init__(self, delay: float = 0.02, port: int = 0) -> None:
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.delay = delay
        self._thread = threading.Thread(target=self._server.serve_forever, name="rivulet-demo", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def start(self) -> DemoServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

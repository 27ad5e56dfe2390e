"""The HTTP side of the fake: one thread per request, keep-alive, OpenAI's response headers.

The handler asks the fake for what to answer through :class:`Service`, the part of
:class:`~diptych.testing.fake_openai.server.FakeOpenAIServer` it calls, so that this module
does not import the server that starts it.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from diptych.testing.fake_openai.faults import (
    BAD_SUCCESSES,
    Fault,
    SlidingWindow,
    fault_reply,
    spoil,
)
from diptych.testing.fake_openai.wire import CHAT_PATH, IMAGES_PATH, RecordedRequest, Reply


class Service(Protocol):
    """What the handler needs of the fake: its settings, its faults and its answers."""

    latency: float
    rate_limit_per_min: int | None
    rate_window: float
    _stopping: threading.Event
    _window: SlidingWindow

    def _record(
        self, method: str, path: str, headers: dict[str, str], body: Any
    ) -> RecordedRequest: ...

    def _check_key(self, headers: dict[str, str]) -> None: ...

    def _take_fault(self, path: str, prompt: str | None) -> Fault | None: ...

    def _images(self, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]: ...

    def _chat(self, body: dict[str, Any]) -> dict[str, Any]: ...

    def _models(self, path: str) -> dict[str, Any]: ...

    def _file(self, path: str) -> bytes: ...

    def _serve_file(self, png: bytes) -> str: ...


class HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # Idle keep-alive connections park a handler thread on a read; closing the server must
    # not wait for clients to hang up.
    block_on_close = False
    # socketserver's default backlog is 5: a burst of concurrent connections beyond it has
    # its SYNs dropped and retransmitted a second later, which reads as server latency.
    request_queue_size = 128
    fake: Service


class Handler(BaseHTTPRequestHandler):
    server: HTTPServer
    # Keep-alive, as the SDK's connection pool expects; every answer sends Content-Length.
    protocol_version = "HTTP/1.1"

    @property
    def fake(self) -> Service:
        return self.server.fake

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        path = self.path.split("?", 1)[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        record = self.fake._record("GET", path, headers, None)
        try:
            if path.startswith("/files/"):
                self._send(record, 200, self.fake._file(path), "image/png")
                return
            self.fake._check_key(headers)
            if path == "/v1/models" or path.startswith("/v1/models/"):
                self._send_json(record, 200, self.fake._models(path))
                return
            raise Reply(404, f"Invalid URL (GET {path})")
        except Reply as reply:
            self._send_json(record, reply.status, reply.body, reply.headers)

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        fake = self.fake
        path = self.path.split("?", 1)[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        raw = self.rfile.read(int(headers.get("content-length") or 0))
        try:
            body: Any = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            body = None
        record = fake._record("POST", path, headers, body)
        try:
            if fake.latency and fake._stopping.wait(fake.latency):
                self.close_connection = True
                return
            fake._check_key(headers)
            if not isinstance(body, dict):
                raise Reply(400, "We could not parse the JSON body of your request.")
            fault = fake._take_fault(path, record.prompt)
            if fault is not None and fault.kind in ("timeout", "dropped"):
                # Longer than the client waits: it gives up; then the connection is dropped
                # ("dropped": at once, unanswered).
                fake._stopping.wait(fault.hold if fault.kind == "timeout" else 0)
                self.close_connection = True
                return
            if fault is not None and fault.kind == "truncated":
                self._send_truncated()
                return
            if fault is not None and fault.kind not in BAD_SUCCESSES:
                raise fault_reply(fault)
            model = str(body.get("model") or "")
            fake._window.admit(fake.rate_limit_per_min, fake.rate_window, model)
            if path == IMAGES_PATH:
                answer = fake._images(body, headers)
            elif path == CHAT_PATH:
                answer = fake._chat(body)
            else:
                raise Reply(404, f"Invalid URL (POST {path})")
            if fault is not None:
                # Served, and on a real service billed, but of no use to the client.
                answer = spoil(fault.kind, answer, fake._serve_file)
            self._send_json(record, 200, answer)
        except Reply as reply:
            self._send_json(record, reply.status, reply.body, reply.headers)

    def _send_json(
        self,
        record: RecordedRequest,
        status: int,
        body: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> None:
        self._send(record, status, json.dumps(body).encode(), "application/json", headers)

    def _send(
        self,
        record: RecordedRequest,
        status: int,
        payload: bytes,
        content_type: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        elapsed_ms = int((time.monotonic() - record.received_at) * 1000)
        record.status = status
        record.answered_at = time.monotonic()
        try:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(payload)))
            self.send_header("x-request-id", f"req_{uuid.uuid4().hex}")
            self.send_header("openai-processing-ms", str(elapsed_ms))
            self.send_header("openai-version", "2020-10-01")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (its timeout) before the answer: nothing to tell it.
            self.close_connection = True

    def _send_truncated(self) -> None:
        """A 200 whose body stops half-way and whose connection then closes: the client reads
        fewer bytes than Content-Length promised. Recorded as unanswered (nothing delivered)."""
        payload = json.dumps({"data": [{"b64_json": "A" * 256}]}).encode()
        try:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload[: len(payload) // 2])
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass  # tests read the counters, not a log on stderr

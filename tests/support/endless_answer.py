"""A loopback HTTP server whose every answer is a 200 whose body never ends: a little more
JSON text every few milliseconds, so that no single read ever waits long enough to time out.

So that a client that fails to bound the whole answer fails its test rather than hanging the
suite, the server cuts each answer off, unfinished, after :data:`GIVE_UP` seconds."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: Far beyond any timeout the tests give: a client still reading then has no bound of its own.
GIVE_UP = 20.0


@dataclass
class EndlessAnswers:
    base_url: str
    #: The path of each request received, in order: how many times the service was paid.
    paths: list[str] = field(default_factory=list)


@contextmanager
def endless_answers() -> Iterator[EndlessAnswers]:
    stop = threading.Event()
    served: list[str] = []

    class Endless(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            self.rfile.read(int(self.headers.get("content-length") or 0))
            served.append(self.path)
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            try:
                self.wfile.write(b'{"created": 1, "data": [{"b64_json": "')
                give_up = time.monotonic() + GIVE_UP
                while not stop.is_set() and time.monotonic() < give_up:
                    self.wfile.write(b"a" * 64)
                    self.wfile.flush()
                    time.sleep(0.02)
            except OSError:
                pass  # the client gave up and closed the connection
            self.close_connection = True

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Endless)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield EndlessAnswers(f"http://127.0.0.1:{server.server_address[1]}/v1", served)
    finally:
        stop.set()
        server.shutdown()
        server.server_close()

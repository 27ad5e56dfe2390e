"""A loopback HTTP server that answers each request with the next scripted response, and
OpenAI's bodies as its API sends them: the error paths of the openai-compatible plugin."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from diptych.core.capabilities import Message
from diptych.plugins.models.openai_compat import OpenAICompatible

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["he", "she", "they"]}},
    "required": ["answer"],
}


@dataclass
class Scripted:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    #: When set, the answer waits until this is set (or 30 s pass): a server that is too slow.
    hold: threading.Event | None = None


class FakeOpenAI:
    """A loopback HTTP server that answers each request with the next scripted response."""

    def __init__(self) -> None:
        self.script: list[Scripted] = []
        self.requests: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("content-length", 0))
                fake.requests.append(
                    {
                        "path": self.path,
                        "authorization": self.headers.get("authorization"),
                        "json": json.loads(self.rfile.read(length) or b"{}"),
                    }
                )
                answer = fake.script.pop(0)
                if answer.hold is not None:
                    answer.hold.wait(30)
                payload = json.dumps(answer.body).encode()
                try:
                    self.send_response(answer.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (the timeout test)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def openai_error(message: str, type_: str, code: str | None) -> dict[str, Any]:
    """OpenAI's error body, as its API sends it."""
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def chat_answer(content: str | None, refusal: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test-2024-01-01",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": "stop",
            }
        ],
    }


def model_for(fake: FakeOpenAI, **params: Any) -> OpenAICompatible:
    return OpenAICompatible(
        OpenAICompatible.Params(base_url=fake.base_url, model="gpt-test", **params)
    )


ASK = [Message(role="user", content="hi")]


def completion_answer(logprobs: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "text_completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [{"index": 0, "text": "", "finish_reason": "length", "logprobs": logprobs}],
    }

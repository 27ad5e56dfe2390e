"""The fake server itself: lifecycle, settings, fault rules and what it recorded."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

from diptych.testing.fake_openai.chat import ChatRequest, chat_completion, default_chat_reply
from diptych.testing.fake_openai.faults import Fault, FaultKind, RetryAfterForm, SlidingWindow
from diptych.testing.fake_openai.handler import Handler, HTTPServer
from diptych.testing.fake_openai.images import Painter, dalle3_revise, generate_images, render_png
from diptych.testing.fake_openai.wire import RecordedRequest, Reply, prompt_of

#: Models /v1/models lists unless told otherwise.
DEFAULT_MODELS = ("dall-e-3", "dall-e-2", "gpt-image-1", "gpt-4o", "gpt-4o-mini")


class FakeOpenAIServer:
    """A loopback OpenAI-compatible HTTP server for tests; see its package's docstring."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        rate_limit_per_min: int | None = None,
        rate_window: float = 60.0,
        revise: Callable[[str], str] | None = dalle3_revise,
        chat_reply: Callable[[ChatRequest], str] = default_chat_reply,
        image_size: tuple[int, int] | None = None,
        painter: Painter = render_png,
        api_key: str | None = None,
        models: tuple[str, ...] = DEFAULT_MODELS,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.latency = latency
        self.rate_limit_per_min = rate_limit_per_min
        self.rate_window = rate_window
        self.revise = revise
        self.chat_reply = chat_reply
        self.image_size = image_size
        self.painter = painter
        self.api_key = api_key
        self.models = models
        self.faults: list[Fault] = []
        #: Faults fired by :meth:`inject_randomly`, by kind.
        self.random_faults: Counter[str] = Counter()
        self._random: tuple[float, tuple[FaultKind, ...], random.Random, float] | None = None
        self._random_seen = 0
        self._random_phase = 0.0
        self.requests: list[RecordedRequest] = []
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._window = SlidingWindow()
        self._files: dict[str, bytes] = {}  # images served for response_format=url
        self._stopping = threading.Event()
        self._server: HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ----------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        if self._server is not None:
            return self
        self._stopping.clear()
        server = HTTPServer((self._host, self._port), Handler)
        server.fake = self
        self._server = server
        # A short poll interval: stop() waits for the serving loop to notice, once per test.
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.05,), name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        # Wakes handlers holding a connection ("timeout" faults) or sleeping (latency).
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fake server is not running; use it as a context manager")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``, the server's root."""
        return f"http://{self._host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The API root to give a client: ``http://127.0.0.1:PORT/v1``."""
        return f"{self.url}/v1"

    # --- faults -------------------------------------------------------------------------

    def inject(
        self,
        kind: FaultKind,
        *,
        times: int | None = 1,
        prompt_contains: str | None = None,
        path: str | None = None,
        retry_after: float | None = None,
        retry_after_form: RetryAfterForm = "seconds",
        hold: float = 30.0,
        status: int = 500,
        message: str | None = None,
    ) -> Fault:
        """Answer the next ``times`` matching requests (None: all) with a fault; see Fault."""
        fault = Fault(
            kind,
            times=times,
            prompt_contains=prompt_contains,
            path=path,
            retry_after=retry_after,
            retry_after_form=retry_after_form,
            hold=hold,
            status=status,
            message=message,
        )
        with self._lock:
            self.faults.append(fault)
        return fault

    def inject_randomly(
        self,
        rate: float,
        kinds: tuple[FaultKind, ...] = ("rate_limit", "server_error", "timeout", "dropped"),
        *,
        seed: int = 0,
        hold: float = 1.0,
    ) -> None:
        """Answer a ``rate`` share of POST requests, evenly spread (after the rules of
        :meth:`inject`), with a fault of one of ``kinds``, drawn from a generator seeded with
        ``seed``; a "timeout" holds the connection ``hold`` seconds. ``rate=0`` stops it."""
        with self._lock:
            self._random = (rate, kinds, random.Random(seed), hold) if rate > 0 else None
            self._random_seen = 0
            self._random_phase = random.Random(seed).random()

    def refuse(self, containing: str) -> Fault:
        """Refuse every prompt containing ``containing`` with a content-policy 400."""
        return self.inject("content_policy", times=None, prompt_contains=containing)

    def clear_faults(self) -> None:
        with self._lock:
            self.faults.clear()

    # --- counters -----------------------------------------------------------------------

    @property
    def total_requests(self) -> int:
        with self._lock:
            return len(self.requests)

    @property
    def requests_by_path(self) -> Counter[str]:
        with self._lock:
            return Counter(r.path for r in self.requests)

    @property
    def requests_by_prompt(self) -> Counter[str]:
        with self._lock:
            return Counter(r.prompt for r in self.requests if r.prompt is not None)

    def count(
        self, *, path: str | None = None, prompt: str | None = None, status: int | None = None
    ) -> int:
        """Requests received that match every criterion given (all of them when none is)."""
        with self._lock:
            return sum(
                1
                for r in self.requests
                if (path is None or r.path == path)
                and (prompt is None or r.prompt == prompt)
                and (status is None or r.status == status)
            )

    def reset(self) -> None:
        """Forget every recorded request, fault and rate-limit window."""
        with self._lock:
            self.requests.clear()
            self.faults.clear()
            self._files.clear()
            self.random_faults.clear()
            self._random = None
        self._window.clear()

    # --- request handling (called from handler threads) ---------------------------------

    def _record(
        self, method: str, path: str, headers: dict[str, str], body: Any
    ) -> RecordedRequest:
        record = RecordedRequest(
            method=method,
            path=path,
            headers=headers,
            body=body,
            prompt=prompt_of(path, body),
            received_at=time.monotonic(),
        )
        with self._lock:
            self.requests.append(record)
        return record

    def _check_key(self, headers: dict[str, str]) -> None:
        if self.api_key is None:
            return
        given = headers.get("authorization", "").removeprefix("Bearer ").strip()
        if given == self.api_key:
            return
        # OpenAI quotes the rejected key, masked, in its message.
        masked = f"{given[:8]}{'*' * max(0, len(given) - 12)}{given[-4:]}" if given else ""
        raise Reply(
            401,
            f"Incorrect API key provided: {masked}. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            code="invalid_api_key",
        )

    def _take_fault(self, path: str, prompt: str | None) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.matches(path, prompt):
                    fault.fired += 1
                    return fault
            if self._random is not None:
                rate, kinds, rng, hold = self._random
                # Evenly spread, so that exactly ``rate`` of any stretch of requests fail;
                # which kind, and where in each stretch, is drawn from the seeded generator.
                seen, self._random_seen = self._random_seen, self._random_seen + 1
                if int((seen + 1) * rate + self._random_phase) > int(
                    seen * rate + self._random_phase
                ):
                    kind = rng.choice(kinds)
                    self.random_faults[kind] += 1
                    return Fault(kind, retry_after=0.1 if kind == "rate_limit" else None, hold=hold)
        return None

    # --- the endpoints (called from handler threads; a subclass may change an answer) ------

    def _images(self, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        return generate_images(
            body,
            headers,
            revise=self.revise,
            image_size=self.image_size,
            serve_file=self._serve_file,
            paint=self.painter,
        )

    def _chat(self, body: dict[str, Any]) -> dict[str, Any]:
        return chat_completion(body, self.chat_reply)

    def _models(self, path: str) -> dict[str, Any]:
        def entry(name: str) -> dict[str, Any]:
            return {"id": name, "object": "model", "created": 1698785189, "owned_by": "system"}

        if path == "/v1/models":
            return {"object": "list", "data": [entry(m) for m in self.models]}
        name = path.removeprefix("/v1/models/")
        if name not in self.models:
            raise Reply(
                404, f"The model '{name}' does not exist", code="model_not_found", param="model"
            )
        return entry(name)

    def _serve_file(self, png: bytes) -> str:
        """Keep an image for ``response_format=url``; the URL it is served at."""
        name = f"img-{uuid.uuid4().hex}.png"
        with self._lock:
            self._files[name] = png
        return f"{self.url}/files/{name}"

    def _file(self, path: str) -> bytes:
        with self._lock:
            data = self._files.get(path.removeprefix("/files/"))
        if data is None:
            raise Reply(404, "No such file.")
        return data

"""A loopback fake of the OpenAI API, for testing plugins that talk to OpenAI-compatible services.

:class:`FakeOpenAIServer` speaks the real wire format of the three endpoints an audit uses, so
a plugin is tested through the official ``openai`` SDK (or any HTTP client) exactly as it runs
against the service, with no network and no cost:

* ``POST /v1/images/generations`` -- ``model``, ``prompt``, ``n``, ``size``, ``quality``,
  ``style``, ``response_format`` (``b64_json`` | ``url``), validated per model as OpenAI does
  (dall-e-3: n=1, three sizes, standard|hd, vivid|natural; gpt-image-1: low|medium|high|auto,
  always base64, no ``response_format``; dall-e-2: square sizes). The images are small real
  PNGs (Pillow), the same for the same prompt, seed and index, of the requested size unless
  ``image_size`` forces one. dall-e-3 answers with a ``revised_prompt`` (see ``revise``);
  gpt-image-1 answers with a ``usage`` block.
* ``POST /v1/chat/completions`` -- text and image content parts
  (``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}``, decoded and
  checked to be an image), answered in the ``chat.completion`` shape by ``chat_reply``.
* ``GET /v1/models`` (and ``/v1/models/{id}``).

Every answer carries an ``x-request-id`` header, as OpenAI's do. Errors use OpenAI's body,
``{"error": {"message", "type", "param", "code"}}``.

Use it as a context manager; it binds 127.0.0.1 on a free port and serves each request in its
own thread, so concurrent clients really run concurrently::

    from diptych.testing import FakeOpenAIServer

    def test_my_plugin():
        with FakeOpenAIServer(latency=0.01, image_size=(32, 32)) as fake:
            fake.inject("rate_limit", retry_after=1)           # the next request gets a 429
            fake.inject("content_policy", times=None, prompt_contains="forbidden")
            model = MyPlugin(MyPlugin.Params(base_url=fake.base_url))
            ...
            assert fake.count(path="/v1/images/generations", prompt="a nurse") == 2
            assert fake.count(status=429) == 1

What can be set (each also as an attribute, changeable while the server runs):

``latency``
    Seconds every request takes before it is answered.
``rate_limit_per_min`` / ``rate_window``
    At most this many POST requests in any sliding window of ``rate_window`` seconds (a
    minute unless a test shortens it); the next one gets a 429 with ``Retry-After`` (whole
    seconds until the oldest request leaves the window) and OpenAI's ``rate_limit_exceeded``
    body. Only requests the limiter lets through count against it.
faults (:meth:`inject`, :meth:`refuse`)
    Rules tried in the order added, before the rate limiter. Each has a ``kind`` --
    ``"rate_limit"`` (429 with ``Retry-After``), ``"server_error"`` (500, or ``status``),
    ``"timeout"`` (hold the connection ``hold`` seconds, longer than the client waits, then
    drop it unanswered; ``hold=0`` is a dropped connection), ``"content_policy"`` (OpenAI's
    400 ``content_policy_violation``) -- and applies to the next ``times`` matching requests
    (``None``: all of them), matching on ``prompt_contains`` and ``path`` when given.
``revise``
    ``prompt -> revised prompt`` for dall-e-3. The default, :func:`dalle3_revise`, rewrites
    deterministically and sometimes adds words -- including people's descriptors, which
    DALL-E 3's rewriter is documented to add and which an audit must be able to see.
``chat_reply``
    ``ChatRequest -> str``: the assistant's text. The default names what it was shown.
``api_key``
    When set, a request without ``Authorization: Bearer <api_key>`` gets OpenAI's 401, whose
    message quotes the wrong key masked the way OpenAI masks it.

What it records: ``requests`` (one :class:`RecordedRequest` per request: method, path,
headers, parsed body, prompt, answered status, times), ``total_requests``,
``requests_by_path``, ``requests_by_prompt`` and :meth:`count`. A request's *prompt* is the
image prompt, or the text parts of a chat request's messages joined by newlines.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import json
import math
import threading
import time
import uuid
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = [
    "CONTENT_POLICY_MESSAGE",
    "ChatRequest",
    "FakeOpenAIServer",
    "Fault",
    "RecordedRequest",
    "dalle3_revise",
]

#: OpenAI's words when its safety system rejects an image prompt.
CONTENT_POLICY_MESSAGE = (
    "Your request was rejected as a result of our safety system. Your prompt may contain "
    "text that is not allowed by our safety system."
)

FaultKind = Literal["rate_limit", "server_error", "timeout", "content_policy"]

IMAGES_PATH = "/v1/images/generations"
CHAT_PATH = "/v1/chat/completions"

#: Models /v1/models lists unless told otherwise.
DEFAULT_MODELS = ("dall-e-3", "dall-e-2", "gpt-image-1", "gpt-4o", "gpt-4o-mini")


@dataclass(frozen=True)
class _ImageModel:
    sizes: tuple[str, ...]
    qualities: tuple[str, ...]
    default_size: str
    default_quality: str
    max_n: int
    styles: tuple[str, ...] = ()


#: What OpenAI's image endpoint accepts per model. Any other model name is served like a
#: lenient compatible service: any WxH size, any quality, no revised prompt.
IMAGE_MODELS: dict[str, _ImageModel] = {
    "dall-e-3": _ImageModel(
        sizes=("1024x1024", "1792x1024", "1024x1792"),
        qualities=("standard", "hd"),
        default_size="1024x1024",
        default_quality="standard",
        max_n=1,
        styles=("vivid", "natural"),
    ),
    "gpt-image-1": _ImageModel(
        sizes=("1024x1024", "1536x1024", "1024x1536", "auto"),
        qualities=("low", "medium", "high", "auto"),
        default_size="auto",
        default_quality="auto",
        max_n=10,
    ),
    "dall-e-2": _ImageModel(
        sizes=("256x256", "512x512", "1024x1024"),
        qualities=("standard",),
        default_size="1024x1024",
        default_quality="standard",
        max_n=10,
    ),
}

#: gpt-image-1's output tokens per image by quality and size, as OpenAI documents them; the
#: fake reports them in ``usage`` so that token-based cost code sees realistic numbers.
GPT_IMAGE_OUTPUT_TOKENS: dict[str, dict[str, int]] = {
    "low": {"1024x1024": 272, "1024x1536": 408, "1536x1024": 400},
    "medium": {"1024x1024": 1056, "1024x1536": 1584, "1536x1024": 1568},
    "high": {"1024x1024": 4160, "1024x1536": 6240, "1536x1024": 6208},
}


def _unit(*parts: object) -> float:
    """A deterministic number in [0, 1) from the parts, the same in every process."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def dalle3_revise(prompt: str) -> str:
    """DALL-E-3-like prompt rewriting: deterministic per prompt, sometimes adding words.

    About a quarter of prompts come back unchanged; the rest gain a style phrase, and some
    gain descriptors of the people shown, as DALL-E 3's rewriter was documented to add (the
    reason an auditor must see ``revised_prompt``).
    """
    text = prompt.strip()
    if not text:
        return prompt
    u = _unit("revise", text)
    body = text.rstrip(".")
    if u < 0.25:
        return prompt
    if u < 0.5:
        return f"{body}, photographed in soft natural light, highly detailed and realistic."
    if u < 0.75:
        return f"{body}. The scene is rendered in a realistic style with fine detail."
    return f"{body}, showing people of diverse genders and descents, in a realistic style."


@dataclass
class Fault:
    """A rule that answers matching requests with an error instead of serving them."""

    kind: FaultKind
    #: How many matching requests it answers; None: every one, until removed.
    times: int | None = 1
    prompt_contains: str | None = None
    #: Only requests to this path (e.g. "/v1/images/generations"); None: any POST.
    path: str | None = None
    #: Seconds for the Retry-After header (rate_limit always sends one; default 1).
    retry_after: float | None = None
    #: Seconds a "timeout" holds the connection before dropping it unanswered.
    hold: float = 30.0
    #: HTTP status of a "server_error".
    status: int = 500
    #: Replaces the error message of the body.
    message: str | None = None
    #: Requests it has answered so far.
    fired: int = 0

    def matches(self, path: str, prompt: str | None) -> bool:
        if self.times is not None and self.fired >= self.times:
            return False
        if self.path is not None and self.path != path:
            return False
        if self.prompt_contains is not None:
            return prompt is not None and self.prompt_contains in prompt
        return True


@dataclass
class RecordedRequest:
    """One request as the fake received it, and what it answered."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    prompt: str | None
    received_at: float  # time.monotonic()
    status: int | None = None  # None: not answered (held or dropped)
    answered_at: float | None = None


@dataclass
class ChatRequest:
    """What ``chat_reply`` is given: the request and the images in it, decoded."""

    model: str
    messages: list[dict[str, Any]]
    texts: list[str]
    images: list[Any]  # PIL images, in the order they appear
    image_urls: list[str]  # http(s) image URLs, which the fake does not fetch
    body: dict[str, Any]


def default_chat_reply(request: ChatRequest) -> str:
    """Names what the model was shown: deterministic, and easy to assert on."""
    last = request.texts[-1] if request.texts else ""
    if not request.images:
        return f"You said: {last}"
    sizes = ", ".join(f"{im.width}x{im.height}" for im in request.images)
    return f"I see {len(request.images)} image(s) ({sizes}). You said: {last}"


class _Reply(Exception):
    """Raised inside a handler to answer at once with an error."""

    def __init__(
        self,
        status: int,
        message: str,
        type_: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"error": {"message": message, "type": type_, "param": param, "code": code}}
        self.headers = headers or {}


def _invalid(param: str, value: Any, allowed: tuple[str, ...]) -> _Reply:
    listed = ", ".join(f"'{a}'" for a in allowed)
    return _Reply(
        400,
        f"Invalid value: '{value}'. Supported values are: {listed}.",
        code="invalid_value",
        param=param,
    )


def _render_png(prompt: str, seed: Any, index: int, size: tuple[int, int]) -> bytes:
    """A real PNG of ``size``: a colour field with a few shapes, all chosen by the inputs."""
    from PIL import Image, ImageDraw

    width, height = size
    r = [_unit(prompt, seed, index, i) for i in range(16)]
    image = Image.new("RGB", size, tuple(int(255 * v) for v in r[:3]))
    draw = ImageDraw.Draw(image)
    for k in range(3):
        x0, y0 = int(r[3 + k] * width * 0.6), int(r[6 + k] * height * 0.6)
        x1, y1 = x0 + max(1, width // 3), y0 + max(1, height // 3)
        colour = tuple(int(255 * _unit(prompt, seed, index, k, c)) for c in range(3))
        (draw.ellipse if k % 2 else draw.rectangle)((x0, y0, x1, y1), fill=colour)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _parse_size(size: str) -> tuple[int, int] | None:
    width, sep, height = size.partition("x")
    if not sep or not width.isdigit() or not height.isdigit():
        return None
    w, h = int(width), int(height)
    return (w, h) if 0 < w <= 4096 and 0 < h <= 4096 else None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Idle keep-alive connections park a handler thread on a read; closing the server must
    # not wait for clients to hang up.
    block_on_close = False
    # socketserver's default backlog is 5: a burst of concurrent connections beyond it has
    # its SYNs dropped and retransmitted a second later, which reads as server latency.
    request_queue_size = 128
    fake: FakeOpenAIServer


class FakeOpenAIServer:
    """A loopback OpenAI-compatible HTTP server for tests; see the module docstring."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        rate_limit_per_min: int | None = None,
        rate_window: float = 60.0,
        revise: Callable[[str], str] | None = dalle3_revise,
        chat_reply: Callable[[ChatRequest], str] = default_chat_reply,
        image_size: tuple[int, int] | None = None,
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
        self.api_key = api_key
        self.models = models
        self.faults: list[Fault] = []
        self.requests: list[RecordedRequest] = []
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._admitted: deque[float] = deque()  # start times of rate-limited requests
        self._files: dict[str, bytes] = {}  # images served for response_format=url
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ----------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        if self._server is not None:
            return self
        self._stopping.clear()
        server = _Server((self._host, self._port), _Handler)
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
            hold=hold,
            status=status,
            message=message,
        )
        with self._lock:
            self.faults.append(fault)
        return fault

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
            self._admitted.clear()
            self._files.clear()

    # --- request handling (called from handler threads) ---------------------------------

    def _record(
        self, method: str, path: str, headers: dict[str, str], body: Any
    ) -> RecordedRequest:
        record = RecordedRequest(
            method=method,
            path=path,
            headers=headers,
            body=body,
            prompt=_prompt_of(path, body),
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
        raise _Reply(
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
        return None

    def _fault_reply(self, fault: Fault) -> _Reply:
        if fault.kind == "rate_limit":
            wait = fault.retry_after if fault.retry_after is not None else 1.0
            return _Reply(
                429,
                fault.message or f"Rate limit reached. Please try again in {wait:g}s.",
                type_="requests",
                code="rate_limit_exceeded",
                headers={"retry-after": _header_seconds(wait)},
            )
        if fault.kind == "content_policy":
            return _Reply(
                400, fault.message or CONTENT_POLICY_MESSAGE, code="content_policy_violation"
            )
        headers = {}
        if fault.retry_after is not None:
            headers["retry-after"] = _header_seconds(fault.retry_after)
        return _Reply(
            fault.status,
            fault.message or "The server had an error while processing your request. Sorry!",
            type_="server_error",
            headers=headers,
        )

    def _rate_limit(self, model: str) -> None:
        limit = self.rate_limit_per_min
        if limit is None:
            return
        with self._lock:
            now = time.monotonic()
            while self._admitted and self._admitted[0] <= now - self.rate_window:
                self._admitted.popleft()
            if len(self._admitted) < limit:
                self._admitted.append(now)
                return
            wait = self._admitted[0] + self.rate_window - now
        seconds = max(1, math.ceil(wait))
        raise _Reply(
            429,
            f"Rate limit reached for {model or 'requests'} in organization org-fake on "
            f"requests per min (RPM): Limit {limit}, Used {limit}, Requested 1. Please try "
            f"again in {seconds}s. Visit https://platform.openai.com/account/rate-limits to "
            "learn more.",
            type_="requests",
            code="rate_limit_exceeded",
            headers={
                "retry-after": str(seconds),
                "x-ratelimit-limit-requests": str(limit),
                "x-ratelimit-remaining-requests": "0",
                "x-ratelimit-reset-requests": f"{seconds}s",
            },
        )

    def _images(self, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        model = str(body.get("model") or "dall-e-2")  # OpenAI's default when none is named
        prompt = body.get("prompt")
        if not isinstance(prompt, str) or not prompt:
            raise _Reply(
                400,
                "Missing required parameter: 'prompt'.",
                code="missing_required_parameter",
                param="prompt",
            )
        spec = IMAGE_MODELS.get(model)
        n = body.get("n") if body.get("n") is not None else 1
        if not isinstance(n, int) or n < 1 or n > (spec.max_n if spec else 10):
            if model == "dall-e-3":
                raise _Reply(400, "You must provide n=1 for this model.", param="n")
            raise _Reply(400, f"Invalid 'n': {n}; it must be from 1 to 10.", param="n")
        size = body.get("size") or (spec.default_size if spec else "1024x1024")
        if spec is not None and size not in spec.sizes:
            raise _invalid("size", size, spec.sizes)
        dims = _parse_size("1024x1024" if size == "auto" else str(size))
        if dims is None:
            raise _invalid("size", size, ("WIDTHxHEIGHT",))
        quality = body.get("quality") or (spec.default_quality if spec else None)
        if spec is not None and quality not in spec.qualities:
            raise _invalid("quality", quality, spec.qualities)
        style = body.get("style")
        if spec is not None and style is not None and style not in spec.styles:
            if not spec.styles:
                raise _Reply(
                    400,
                    "Unknown parameter: 'style'.",
                    "invalid_request_error",
                    "unknown_parameter",
                    "style",
                )
            raise _invalid("style", style, spec.styles)
        response_format = body.get("response_format")
        if model == "gpt-image-1":
            if response_format is not None:
                # gpt-image-1 always answers in base64 and rejects the parameter outright.
                raise _Reply(
                    400,
                    "Unknown parameter: 'response_format'.",
                    code="unknown_parameter",
                    param="response_format",
                )
            response_format = "b64_json"
        response_format = response_format or "url"
        if response_format not in ("url", "b64_json"):
            raise _invalid("response_format", response_format, ("url", "b64_json"))
        seed = body.get("seed", headers.get("x-fake-seed"))
        pixels = self.image_size or dims
        revised = self.revise(prompt) if model == "dall-e-3" and self.revise else None
        data: list[dict[str, Any]] = []
        for index in range(n):
            png = _render_png(prompt, seed, index, pixels)
            item: dict[str, Any] = {}
            if response_format == "b64_json":
                item["b64_json"] = base64.b64encode(png).decode("ascii")
            else:
                name = f"img-{uuid.uuid4().hex}.png"
                with self._lock:
                    self._files[name] = png
                item["url"] = f"{self.url}/files/{name}"
            if revised is not None:
                item["revised_prompt"] = revised
            data.append(item)
        answer: dict[str, Any] = {"created": int(time.time()), "data": data}
        if model == "gpt-image-1":
            resolved_size = "1024x1024" if size == "auto" else str(size)
            resolved_quality = "medium" if quality == "auto" else str(quality)
            text_tokens = max(1, round(len(prompt.split()) * 1.3))
            output = GPT_IMAGE_OUTPUT_TOKENS[resolved_quality][resolved_size] * n
            answer.update(
                background="opaque",
                output_format="png",
                quality=resolved_quality,
                size=resolved_size,
                usage={
                    "input_tokens": text_tokens,
                    "input_tokens_details": {"image_tokens": 0, "text_tokens": text_tokens},
                    "output_tokens": output,
                    "total_tokens": text_tokens + output,
                },
            )
        return answer

    def _chat(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise _Reply(
                400,
                "Missing required parameter: 'messages'.",
                code="missing_required_parameter",
                param="messages",
            )
        texts: list[str] = []
        images: list[Any] = []
        urls: list[str] = []
        for i, message in enumerate(messages):
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                texts.append(content)
                continue
            for j, part in enumerate(content or []):
                kind = part.get("type") if isinstance(part, dict) else None
                if kind == "text":
                    texts.append(str(part.get("text", "")))
                elif kind == "image_url":
                    url = str((part.get("image_url") or {}).get("url", ""))
                    if url.startswith("data:"):
                        images.append(_decode_data_url(url, f"messages[{i}].content[{j}]"))
                    else:
                        urls.append(url)
                else:
                    raise _invalid(f"messages[{i}].content[{j}].type", kind, ("text", "image_url"))
        model = str(body.get("model") or "")
        request = ChatRequest(model, messages, texts, images, urls, body)
        text = self.chat_reply(request)
        words = text.split()
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        finish = "stop"
        if isinstance(limit, int) and len(words) > limit:
            # A word stands in for a token: enough to exercise "finish_reason": "length".
            text, finish = " ".join(words[:limit]), "length"
        prompt_tokens = sum(len(t.split()) for t in texts) + 85 * len(images)
        completion_tokens = len(text.split())
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": "fp_fake",
            "choices": [
                {
                    "index": index,
                    "message": {
                        "role": "assistant",
                        "content": text,
                        "refusal": None,
                        "annotations": [],
                    },
                    "logprobs": None,
                    "finish_reason": finish,
                }
                for index in range(int(body.get("n") or 1))
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _models(self, path: str) -> dict[str, Any]:
        def entry(name: str) -> dict[str, Any]:
            return {"id": name, "object": "model", "created": 1698785189, "owned_by": "system"}

        if path == "/v1/models":
            return {"object": "list", "data": [entry(m) for m in self.models]}
        name = path.removeprefix("/v1/models/")
        if name not in self.models:
            raise _Reply(
                404, f"The model '{name}' does not exist", code="model_not_found", param="model"
            )
        return entry(name)

    def _file(self, path: str) -> bytes:
        with self._lock:
            data = self._files.get(path.removeprefix("/files/"))
        if data is None:
            raise _Reply(404, "No such file.")
        return data


def _header_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


def _prompt_of(path: str, body: Any) -> str | None:
    if not isinstance(body, dict):
        return None
    if path == IMAGES_PATH:
        prompt = body.get("prompt")
        return prompt if isinstance(prompt, str) else None
    if path == CHAT_PATH and isinstance(body.get("messages"), list):
        texts: list[str] = []
        for message in body["messages"]:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                texts.append(content)
            elif isinstance(content, list):
                texts.extend(
                    str(p.get("text", ""))
                    for p in content
                    if isinstance(p, dict) and p.get("type") == "text"
                )
        return "\n".join(texts)
    return None


def _decode_data_url(url: str, where: str) -> Any:
    from PIL import Image, UnidentifiedImageError

    header, _, payload = url.partition(",")
    bad = _Reply(
        400,
        "You uploaded an unsupported image. Please make sure your image is valid.",
        code="invalid_image_format",
        param=where,
    )
    if not header.endswith(";base64"):
        raise bad
    try:
        image = Image.open(io.BytesIO(base64.b64decode(payload, validate=True)))
        image.load()
    except (binascii.Error, UnidentifiedImageError, OSError) as error:
        raise bad from error
    return image


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    # Keep-alive, as the SDK's connection pool expects; every answer sends Content-Length.
    protocol_version = "HTTP/1.1"

    @property
    def fake(self) -> FakeOpenAIServer:
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
            raise _Reply(404, f"Invalid URL (GET {path})")
        except _Reply as reply:
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
                raise _Reply(400, "We could not parse the JSON body of your request.")
            fault = fake._take_fault(path, record.prompt)
            if fault is not None and fault.kind == "timeout":
                # Longer than the client waits: it gives up; then the connection is dropped.
                fake._stopping.wait(fault.hold)
                self.close_connection = True
                return
            if fault is not None:
                raise fake._fault_reply(fault)
            fake._rate_limit(str(body.get("model") or ""))
            if path == IMAGES_PATH:
                answer = fake._images(body, headers)
            elif path == CHAT_PATH:
                answer = fake._chat(body)
            else:
                raise _Reply(404, f"Invalid URL (POST {path})")
            self._send_json(record, 200, answer)
        except _Reply as reply:
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

    def log_message(self, format: str, *args: Any) -> None:
        pass  # tests read the counters, not a log on stderr

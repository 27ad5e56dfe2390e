"""Errors on purpose: fault rules (rate limit, server error, timeout, content policy, answers
that cannot be used) and the sliding-window rate limiter, each answered with the body and
headers OpenAI sends."""

from __future__ import annotations

import base64
import email.utils
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from diptych.testing.fake_openai.wire import Reply, header_seconds

#: OpenAI's words when its safety system rejects an image prompt.
CONTENT_POLICY_MESSAGE = (
    "Your request was rejected as a result of our safety system. Your prompt may contain "
    "text that is not allowed by our safety system."
)

FaultKind = Literal[
    "rate_limit",
    "server_error",
    "timeout",
    "content_policy",
    "dropped",
    "truncated",
    "unreadable_image",
    "empty_data",
    "url_instead",
]

#: Faults answered with a 200 in the endpoint's own shape that cannot be used: the request is
#: served (and, on a real service, billed), then its answer spoiled. ``unreadable_image``: each
#: image's base64 holds the first half of its PNG; ``empty_data``: no image (``data: []``) or
#: no choice (``choices: []``, usage kept); ``url_instead``: a URL where ``b64_json`` was asked.
BAD_SUCCESSES: frozenset[str] = frozenset({"unreadable_image", "empty_data", "url_instead"})

#: How a fault writes its Retry-After: seconds (``retry-after: 30``), an HTTP date
#: (``retry-after: Wed, 21 Oct 2025 07:28:00 GMT``) or milliseconds (``retry-after-ms``,
#: OpenAI's own header, beside the seconds).
RetryAfterForm = Literal["seconds", "http-date", "ms"]


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
    #: How the Retry-After is written (see :data:`RetryAfterForm`).
    retry_after_form: RetryAfterForm = "seconds"
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


def retry_after_headers(seconds: float, form: RetryAfterForm) -> dict[str, str]:
    """The headers that ask a client to wait ``seconds``, written in ``form``."""
    if form == "http-date":
        # HTTP dates have whole seconds: round up, so that the wait is never shorter.
        return {
            "retry-after": email.utils.formatdate(time.time() + math.ceil(seconds), usegmt=True)
        }
    headers = {"retry-after": header_seconds(math.ceil(seconds) if form == "ms" else seconds)}
    if form == "ms":
        headers["retry-after-ms"] = str(round(seconds * 1000))
    return headers


def fault_reply(fault: Fault) -> Reply:
    """The error a fired fault answers with (every kind but "timeout", which answers nothing,
    and the bad successes, answered by :func:`spoil`)."""
    if fault.kind == "rate_limit":
        wait = fault.retry_after if fault.retry_after is not None else 1.0
        return Reply(
            429,
            fault.message or f"Rate limit reached. Please try again in {wait:g}s.",
            type_="requests",
            code="rate_limit_exceeded",
            headers=retry_after_headers(wait, fault.retry_after_form),
        )
    if fault.kind == "content_policy":
        return Reply(400, fault.message or CONTENT_POLICY_MESSAGE, code="content_policy_violation")
    headers = {}
    if fault.retry_after is not None:
        headers = retry_after_headers(fault.retry_after, fault.retry_after_form)
    return Reply(
        fault.status,
        fault.message or "The server had an error while processing your request. Sorry!",
        type_="server_error",
        headers=headers,
    )


def spoil(kind: str, answer: dict[str, Any], serve_file: Callable[[bytes], str]) -> dict[str, Any]:
    """A served 200 ``answer`` (images or chat) made unusable as the bad success ``kind`` says;
    everything else about it (``created``, ``usage``, ``revised_prompt``) is kept."""
    spoilt = dict(answer)
    if "choices" in answer:  # a chat completion: only "no choices" applies
        spoilt["choices"] = []
        return spoilt
    if kind == "empty_data":
        spoilt["data"] = []
        return spoilt
    items = []
    for item in answer.get("data", []):
        item = dict(item)
        if "b64_json" in item:  # an answer by URL was asked for one: left as it is
            png = base64.b64decode(item.pop("b64_json"))
            if kind == "unreadable_image":
                # A PNG cut off half-way: its header reads, its pixels do not.
                item["b64_json"] = base64.b64encode(png[: len(png) // 2]).decode("ascii")
            else:
                item["url"] = serve_file(png)
        items.append(item)
    spoilt["data"] = items
    return spoilt


class SlidingWindow:
    """At most ``limit`` requests in any window of ``window`` seconds; thread-safe.

    Only requests it lets through count against it, as with OpenAI's requests-per-minute limit.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._admitted: deque[float] = deque()  # start times of the requests let through

    def admit(self, limit: int | None, window: float, model: str) -> None:
        """Let one request through, or raise OpenAI's 429 with the seconds to wait."""
        if limit is None:
            return
        with self._lock:
            now = time.monotonic()
            while self._admitted and self._admitted[0] <= now - window:
                self._admitted.popleft()
            if len(self._admitted) < limit:
                self._admitted.append(now)
                return
            wait = self._admitted[0] + window - now
        seconds = max(1, math.ceil(wait))
        raise Reply(
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

    def clear(self) -> None:
        with self._lock:
            self._admitted.clear()

"""What the plugins built on the official ``openai`` SDK share.

* :func:`call_service` runs one SDK request within a bound on its whole answer, and
  :func:`translate_error` maps an SDK error to the diptych error that tells the engine what
  to do (retry, store as refused, give up), with :func:`parse_retry_after` reading how long
  the service asked us to wait.
* :func:`public_endpoint` names a service without the credentials a URL may carry;
  :func:`without_credentials` is the URL itself without them (what is stored) and
  :func:`effective_base_url` the service actually called (``base_url``, else
  ``$OPENAI_BASE_URL``, else OpenAI's).
* :class:`ClientPerLoop` keeps one ``AsyncOpenAI`` client per event loop.
* :func:`redact` keeps API keys out of every message we store or show.
* :class:`PricesRead` is where and when a model's prices in a shipped price table were read.

Nothing here imports ``openai``: the SDK module is passed in by the plugin that imported it,
so that importing a plugin (for ``diptych plugins``) never needs the SDK.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import os
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import date
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from diptych.core.errors import (
    ModelCallError,
    ModelLoadError,
    ParameterError,
    PermanentModelError,
    RefusalError,
    TransientModelError,
)

#: Sent when no key is configured: local servers want no key, but the SDK insists on one.
#: A real service then answers 401, whose message names where the key is read from.
PLACEHOLDER_API_KEY = "not-needed"

#: Error codes services use for a request declined on content grounds (OpenAI's images and
#: moderation, Azure OpenAI's content filter).
REFUSAL_CODES = frozenset({"content_policy_violation", "content_filter", "moderation_blocked"})
_REFUSAL_PHRASES = ("content policy", "content_policy", "safety system", "content management")

#: OpenAI-style secret keys (sk-..., sk-proj-...), whole or masked with asterisks. OpenAI's
#: 401 message quotes the rejected key with its first and last characters visible.
_KEY_PATTERN = re.compile(r"\bsk-[A-Za-z0-9_*\-]{3,}")
#: A word with a run of asterisks in it: a key some service masked (OpenAI shows the first 8 and
#: the last 4 characters of any key it rejects, whatever its form).
_MASKED_PATTERN = re.compile(r"[^\s*.,;:'\"]*\*{3,}[^\s*.,;:'\"]*")
#: The user info of a URL written in a message (``scheme://user:password@host``).
_USERINFO_PATTERN = re.compile(r"(?<=://)[^/@\s]+@")
#: Query parameters whose name says they carry a credential (Azure's ``api-key``, a gateway's
#: ``token``, a signed URL's ``sig`` ...).
_SECRET_PARAM = re.compile(
    r"key|token|secret|passw|pwd|auth|sig|credential|session|code", re.IGNORECASE
)
_SECRET_QUERY_PATTERN = re.compile(
    r"(?P<name>[?&][^=&\s]*(?:key|token|secret|passw|pwd|auth|sig|credential|session|code)"
    r"[^=&\s]*=)[^&\s]+",
    re.IGNORECASE,
)


def redact(text: str, secret: str | None = None) -> str:
    """``text`` with every credential it may quote replaced by ``***``: ``secret`` (the key in
    use) whole or in part, anything shaped like an OpenAI key, any masked key, and the user info
    and secret query parameters of URLs."""
    if secret and secret != PLACEHOLDER_API_KEY:
        text = text.replace(secret, "***")
        if len(secret) >= 8:
            # OpenAI's "first 8 ... last 4" quotation of a short key has no asterisks at all.
            text = re.sub(re.escape(secret[:8]) + r"\S*", "***", text)
    text = _KEY_PATTERN.sub("sk-***", text)
    text = _MASKED_PATTERN.sub("***", text)
    text = _USERINFO_PATTERN.sub("***@", text)
    return _SECRET_QUERY_PATTERN.sub(lambda m: m.group("name") + "***", text)


def check_base_url(base_url: str, owner: str) -> None:
    """Refuse, before any request, a ``base_url`` no request could reach."""
    try:
        parts = urlsplit(base_url)
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError as error:
        raise ParameterError(
            f"{owner} parameter 'base_url': not a URL ({error}); give e.g. http://127.0.0.1:8000/v1"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        shown = redact(base_url)
        raise ParameterError(
            f"{owner} parameter 'base_url': {shown!r} is not an http(s) URL with a host; give "
            "e.g. http://127.0.0.1:8000/v1"
        )


def without_credentials(base_url: str) -> str:
    """``base_url`` without user info and without query parameters that carry a credential:
    the form that may be stored, shown and put into keys."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    kept = parse_qsl(parts.query, keep_blank_values=True)
    query = urlencode([(k, v) for k, v in kept if not _SECRET_PARAM.search(k)])
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), query, ""))


#: The API root of OpenAI's own service, as the SDK uses it when nothing else is named.
OPENAI_BASE_URL = "https://api.openai.com/v1"


def effective_base_url(base_url: str | None) -> str:
    """The service a plugin built on the SDK actually calls: ``base_url``, else
    ``$OPENAI_BASE_URL`` (which the SDK reads), else OpenAI's own."""
    return base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL


def public_endpoint(base_url: str) -> str:
    """``host[:port]/path`` of a URL: no scheme, user, password, query or fragment."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return f"{host}{parts.path.rstrip('/')}"


def public_host(base_url: str) -> str:
    """``host[:port]`` of a URL, without credentials."""
    return public_endpoint(base_url).split("/", 1)[0]


class ClientPerLoop:
    """One SDK client per event loop, made on first use by ``make``.

    An AsyncOpenAI client pools connections bound to the event loop that opened them, and
    callers (tests, the CLI) may run several loops one after another: each loop gets its own
    client. ``make`` should hand the SDK a plain httpx client (``DefaultAsyncHttpxClient``):
    the SDK's default one, when garbage-collected unclosed, schedules its own closing on
    whatever loop is running then -- which fails noisily for a previous loop's client.
    """

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = self._make()
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None and self._loop is asyncio.get_running_loop():
            await self._client.close()
        self._client = None
        self._loop = None


_Answer = TypeVar("_Answer")


async def call_service(
    request: Awaitable[_Answer],
    sdk: Any,
    api_key_env: str,
    *,
    timeout: float,
    secret: str | None = None,
    key_hint: str | None = None,
) -> _Answer:
    """The answer to one SDK request, with the SDK's errors translated (see
    :func:`translate_error`) and ``timeout`` bounding the whole answer.

    The SDK's timeout bounds each read, not the whole answer: a server that never stops
    sending would hold the call, and the memory it fills, for ever. Cut off, the request is
    one the service may have carried out (and billed), so it is not sent again unasked.
    """
    try:
        return await asyncio.wait_for(request, timeout)
    except TimeoutError as exc:
        raise TransientModelError(
            f"No whole answer within {timeout:g} s (the service may still have carried the "
            "request out)",
            maybe_charged=True,
        ) from exc
    except sdk.APIError as exc:
        raise translate_error(exc, sdk, api_key_env, secret=secret, key_hint=key_hint) from exc


def translate_error(
    exc: Exception,
    sdk: Any,
    api_key_env: str,
    *,
    secret: str | None = None,
    key_hint: str | None = None,
) -> ModelCallError:
    """The diptych error for an ``openai`` SDK error: what the engine should do about it.

    Rate limits, timeouts, dropped connections, 408/409 and 5xx are transient (retried, with
    the server's ``Retry-After`` honoured); a content-policy refusal is terminal and stored
    as ``refused``; every other 4xx can never succeed as sent. ``secret`` (the key in use) is
    scrubbed from the message, which the engine stores; ``key_hint`` replaces the default
    advice on a rejected key ("Set $API_KEY_ENV.").
    """
    message = redact(_service_message(exc), secret)
    if isinstance(exc, sdk.APITimeoutError):
        return TransientModelError(
            f"No answer in time (the service may still have carried the request out): {message}",
            maybe_charged=True,
        )
    if isinstance(exc, sdk.APIConnectionError):
        return TransientModelError(
            f"Could not reach the server: {message}", maybe_charged=_sent(exc)
        )
    if not isinstance(exc, sdk.APIStatusError):
        return PermanentModelError(f"Unexpected answer from the server: {message}")
    status = exc.status_code
    retry_after = parse_retry_after(exc.response.headers)
    if isinstance(exc, sdk.RateLimitError):
        if exc.code == "insufficient_quota":
            # OpenAI sends exhausted credit as a 429, but waiting does not refill it.
            return PermanentModelError(f"The account's quota is used up: {message}")
        return TransientModelError(f"Rate limited (429): {message}", retry_after=retry_after)
    if status >= 500 or status in (408, 409):
        return TransientModelError(f"Server error ({status}): {message}", retry_after=retry_after)
    if isinstance(exc, sdk.BadRequestError) and _is_refusal(exc, message):
        return RefusalError(message)
    if isinstance(exc, sdk.AuthenticationError):
        hint = key_hint or f"Set ${api_key_env}."
        return PermanentModelError(f"The server rejected the API key (401): {message}. {hint}")
    return PermanentModelError(f"The server rejected the request ({status}): {message}")


def _sent(exc: BaseException) -> bool:
    """Whether a failed connection may have delivered the request: anything but a failure to
    connect at all (refused, unresolved, no free connection)."""
    cause = exc.__cause__ or exc.__context__
    while cause is not None:
        name = type(cause).__name__
        if name in ("ConnectError", "ConnectTimeout", "PoolTimeout", "ConnectionRefusedError"):
            return False
        cause = cause.__cause__ or cause.__context__
    return True


def _service_message(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping) and isinstance(body.get("message"), str):
        return str(body["message"])
    return str(getattr(exc, "message", None) or exc)


def _is_refusal(exc: Any, message: str) -> bool:
    if exc.code in REFUSAL_CODES:
        return True
    lowered = message.lower()
    return any(phrase in lowered for phrase in _REFUSAL_PHRASES)


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())
    return value if math.isfinite(value) and value >= 0 else None


def read_api_key(api_key_file: str | None, api_key_env: str) -> str:
    """The API key: from ``api_key_file`` when given (a setup error if unreadable or empty),
    else from the environment variable ``api_key_env``, else a placeholder for local servers
    that need none."""
    if api_key_file is not None:
        path = Path(api_key_file).expanduser()
        try:
            key = path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ModelLoadError(
                f"cannot read the API key file {path}: {exc.strerror}; check api_key_file"
            ) from exc
        if not key:
            raise ModelLoadError(f"the API key file {path} is empty; check api_key_file")
        return key
    return os.environ.get(api_key_env) or PLACEHOLDER_API_KEY


OPENAI_HOST = "api.openai.com"


class OpenAIServiceMixin:
    """What the plugins for OpenAI's own services share: identity, the key, the client.

    The plugin sets ``p`` (its params: ``model``, ``base_url``, ``api_key_file``,
    ``api_key_env``, ``timeout``), ``_sdk`` (the imported ``openai`` module) and ``_clients``
    (a :class:`ClientPerLoop` over :meth:`_make_client`).
    """

    p: Any
    _sdk: Any
    _clients: ClientPerLoop

    #: The service's URL as given, credentials and all: used to call it, never stored.
    _called_url: str

    def _bind_service(self) -> None:
        """Fix the service this instance calls (``base_url``, else ``$OPENAI_BASE_URL``, else
        OpenAI's) and keep only its credential-free form in the parameters, which are stored
        with every run and put into every trial key. OpenAI's own service is named by leaving
        ``base_url`` empty, so that runs stored before the service was part of the identity
        are still found."""
        url = effective_base_url(self.p.base_url)
        check_base_url(url, f"model '{getattr(self, 'name', 'openai')}'")
        self._called_url = url
        clean = without_credentials(url)
        stored = None if public_endpoint(clean) == public_endpoint(OPENAI_BASE_URL) else clean
        if stored != self.p.base_url:
            self.p = self.p.model_copy(update={"base_url": stored})
            setattr(self, "params", self.p)  # noqa: B010 (the Model's attribute, not the mixin's)

    @property
    def host(self) -> str:
        """The service's ``host[:port]``, never with credentials."""
        return public_host(self.p.base_url) if self.p.base_url else OPENAI_HOST

    @property
    def version(self) -> str:
        # Another service may serve something else under the same model name.
        if self.host == OPENAI_HOST:
            return str(self.p.model)
        return f"{self.p.model}@{self.host}"

    def identity_params(self) -> dict[str, Any]:
        # Trial keys are stored: a password written into base_url must not be.
        identity: dict[str, Any] = super().identity_params()  # type: ignore[misc]
        if self.p.base_url is not None:
            identity["base_url"] = public_endpoint(self.p.base_url)
        return identity

    def _api_key(self) -> str:
        return read_api_key(self.p.api_key_file, self.p.api_key_env)

    def _make_client(self) -> Any:
        # One per event loop (see ClientPerLoop); the key is read when a client is made.
        return self._sdk.AsyncOpenAI(
            base_url=self._called_url,
            api_key=self._api_key(),
            timeout=self.p.timeout,
            max_retries=0,  # the engine retries
            http_client=self._sdk.DefaultAsyncHttpxClient(),
        )

    def load(self) -> None:
        # A missing key file is a setup error: stop the run before any trial, not fail each.
        self._api_key()

    async def aclose(self) -> None:
        await self._clients.aclose()


class PricesRead(BaseModel):
    """A model's entry in a shipped price table: the page its prices were read from, and when
    (each table's entries add the prices themselves)."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(pattern=r"^https://")
    read_on: date

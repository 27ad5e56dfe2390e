"""``openai-compatible``: chat and next-token log-probabilities from any OpenAI-compatible server.

OpenAI itself, vLLM, llama.cpp's servers, LM Studio, Ollama ... anything that speaks
``/v1/chat/completions`` (and, for log-probabilities, the legacy ``/v1/completions`` with
``logprobs``). The official ``openai`` SDK is imported inside ``__init__``. Its own retries
are off: the engine retries, with the backoff and bookkeeping every model shares, from the
errors this module translates into :mod:`diptych.core.errors`.

The API key is read from the environment variable named by ``api_key_env`` when a client
is made; it never enters the parameters, the version, provenance or a message.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import Field

from diptych.core.capabilities import Capability, Message, Model, ModelHints, Sampling
from diptych.core.errors import (
    MissingDependencyError,
    PaidFailureError,
    PermanentModelError,
    RefusalError,
    TransientModelError,
)
from diptych.core.json_input import reply_json_problem
from diptych.core.plugins.hookspecs import hookimpl

# The error mapping and client plumbing are shared with openai-images; the names stay
# importable from here for existing callers.
from diptych.plugins.models._openai_common import (
    PLACEHOLDER_API_KEY,
    REFUSAL_CODES,
    ClientPerLoop,
    call_service,
    check_base_url,
    parse_retry_after,
    translate_error,
    without_credentials,
)
from diptych.plugins.models._openai_common import public_endpoint as _public_endpoint

__all__ = [
    "PLACEHOLDER_API_KEY",
    "REFUSAL_CODES",
    "OpenAICompatible",
    "parse_retry_after",
    "register_models",
    "translate_error",
]

#: How many alternatives per position to try asking for, most first. More alternatives mean
#: more single-token candidates read from the one cheap request (llama-cpp-python's server
#: takes ~0.1 s for it and ~0.8 s for an echo request) and more tokens readable on a server
#: whose echo values are shifted (see next_token_logprobs); the values do not depend on it.
_TOP_K_LADDER = (100, 20, 5)

#: How closely two reports of one next-token distribution must agree (same model, same
#: tokens; only batch shapes differ) for the echo alignment check.
_ALIGN_TOLERANCE = 2e-3


class OpenAICompatible(Model):
    """Any OpenAI-compatible server: chat, JSON-schema output and next-token log-probabilities."""

    name: ClassVar[str] = "openai-compatible"
    capabilities: ClassVar[frozenset[Capability]] = frozenset(
        {Capability.CHAT, Capability.TEXT_LIKELIHOOD}
    )

    #: Pacing, plumbing and how much to ask for: none of it changes a value that comes back.
    operational_params: ClassVar[frozenset[str]] = frozenset(
        {"api_key_env", "timeout", "max_concurrency", "logprobs", "top_logprobs"}
    )

    class Params(Model.Params):
        base_url: str = Field(description="The server's API root, e.g. http://127.0.0.1:8080/v1")
        model: str = Field(default="default", description="The model name the server serves.")
        api_key_env: str = Field(
            default="OPENAI_API_KEY",
            description="Environment variable holding the API key, if any.",
        )
        timeout: float = Field(default=60, gt=0, description="Seconds before a request times out.")
        max_concurrency: int = Field(default=8, ge=1, description="Requests in flight at once.")
        logprobs: bool = Field(
            default=True, description="Whether the server offers /v1/completions log-probabilities."
        )
        top_logprobs: int | None = Field(
            default=None,
            ge=1,
            description="Alternatives per position to ask for; default: as many as the server "
            "allows of 100, 20, 5 (llama-cpp-python's server: any; vLLM: 20; OpenAI: 5).",
        )
        schema_format: Literal["auto", "json_schema", "json_object"] = Field(
            default="auto",
            description="How to ask for JSON-schema output: OpenAI's json_schema, llama.cpp's "
            "json_object with a schema, or auto (the first, falling back to the second).",
        )

    def __init__(self, params: OpenAICompatible.Params | None = None) -> None:
        super().__init__(params)
        assert isinstance(self.params, OpenAICompatible.Params)
        self._params: OpenAICompatible.Params = self.params
        check_base_url(self._params.base_url, f"model '{self.name}'")
        # Called with its credentials, stored (run parameters, keys) without them.
        self._called_url = self._params.base_url
        clean = without_credentials(self._called_url)
        if clean != self._params.base_url:
            self._params = self._params.model_copy(update={"base_url": clean})
            self.params = self._params
        try:
            import openai
        except ImportError as exc:
            raise MissingDependencyError("openai", "openai", "The openai-compatible model") from exc
        self._sdk: Any = openai
        self.hints = ModelHints(max_concurrency=self._params.max_concurrency)
        self._clients = ClientPerLoop(self._make_client)
        # Learnt from the server as we go; see complete() and _echo_logprob().
        self._schema_format = self._params.schema_format
        self._echo_shift: int | None = None
        self._top_k_choices: tuple[int, ...] = (
            (self._params.top_logprobs,) if self._params.top_logprobs is not None else _TOP_K_LADDER
        )
        self._served_model: str | None = None

    # --- identity -------------------------------------------------------------------------

    @property
    def version(self) -> str:
        # The endpoint (never its credentials) and the served model name: what a user can
        # see changes when they point the plugin at another model.
        return f"{_public_endpoint(self._params.base_url)}/{self._params.model}"

    def identity_params(self) -> dict[str, Any]:
        # Trial keys are stored: a password written into base_url must not be.
        identity = super().identity_params()
        identity["base_url"] = _public_endpoint(self._params.base_url)
        return identity

    def provenance(self) -> dict[str, Any]:
        facts: dict[str, Any] = {
            **super().provenance(),
            "backend": "openai-compatible",
            "openai_sdk": getattr(self._sdk, "__version__", "unknown"),
            "served_model_name": self._params.model,
        }
        if self._served_model is not None:
            # What the server says it ran (the `model` of its last response): free to get,
            # and it may name a snapshot or file the served name hides.
            facts["server_reported_model"] = self._served_model
        return facts

    def _make_client(self) -> Any:
        # One per event loop (see ClientPerLoop); the key is read when a client is made.
        return self._sdk.AsyncOpenAI(
            base_url=self._called_url,
            api_key=os.environ.get(self._params.api_key_env) or PLACEHOLDER_API_KEY,
            timeout=self._params.timeout,
            max_retries=0,  # the engine retries; see module docstring
            http_client=self._sdk.DefaultAsyncHttpxClient(),
        )

    async def aclose(self) -> None:
        await self._clients.aclose()

    async def _call(self, make_request: Callable[[Any], Any]) -> Any:
        """Run one SDK request, translating its errors into diptych's."""
        response = await call_service(
            make_request(self._clients.get()),
            self._sdk,
            self._params.api_key_env,
            timeout=self._params.timeout,
            secret=os.environ.get(self._params.api_key_env),
        )
        served = getattr(response, "model", None)
        if isinstance(served, str) and served:
            self._served_model = served
        return response

    # --- chat -----------------------------------------------------------------------------

    async def complete(
        self,
        messages: Sequence[Message],
        sampling: Sampling,
        schema: dict[str, Any] | None = None,
    ) -> str:
        request: dict[str, Any] = {
            "model": self._params.model,
            "messages": [m.model_dump() for m in messages],
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "max_tokens": sampling.max_tokens,
        }
        if sampling.seed is not None:
            request["seed"] = sampling.seed
        if schema is None:
            response = await self._call(lambda c: c.chat.completions.create(**request))
        else:
            response = await self._complete_with_schema(request, schema)
        if not response.choices:
            # A 200 is billed by a paid service: not asked again unless the run allows it.
            raise PaidFailureError("the service answered with no choices")
        choice = response.choices[0]
        refusal = getattr(choice.message, "refusal", None)
        if refusal:
            # Structured outputs: the model declined and said why instead of answering.
            raise RefusalError(str(refusal))
        if choice.finish_reason == "content_filter":
            raise RefusalError("The service's content filter withheld the reply.")
        text: str = choice.message.content or ""
        problem = None if schema is None else reply_json_problem(text, choice.finish_reason)
        if problem is not None:
            raise PermanentModelError(problem)
        return text

    async def _complete_with_schema(self, request: dict[str, Any], schema: dict[str, Any]) -> Any:
        # OpenAI takes {"type": "json_schema", ...}; llama-cpp-python's server only knows
        # {"type": "json_object", "schema": ...} (its request model allows "text" and
        # "json_object" and answers anything else with a validation error, as a 500).
        # "auto" tries OpenAI's form first and remembers the fallback once it was needed.
        if self._schema_format in ("auto", "json_schema"):
            attempt = {
                **request,
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "answer", "schema": schema, "strict": True},
                },
            }
            try:
                return await self._call(lambda c: c.chat.completions.create(**attempt))
            except (PermanentModelError, TransientModelError) as exc:
                cause = exc.__cause__
                if self._schema_format == "json_schema" or not _rejects_json_schema(cause):
                    raise
                self._schema_format = "json_object"
        attempt = {**request, "response_format": {"type": "json_object", "schema": schema}}
        return await self._call(lambda c: c.chat.completions.create(**attempt))

    # --- next-token log-probabilities -----------------------------------------------------

    async def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        """ln P(candidate | prompt) from the server's ``/v1/completions`` log-probabilities.

        1. One request for the prompt with ``max_tokens=1`` and ``logprobs=k`` returns the
           k most likely next tokens with their log-probabilities: a candidate that is one
           of them is read off directly (the usual case for " he" / " she").
        2. Any other candidate is scored with ``echo=True`` on prompt + candidate, which
           returns the log-probability of every prompt token; the candidate's tokens are
           those whose ``text_offset`` lies at or after the end of the prompt. The server
           tokenises the whole text, so the boundary is the model's own.

        ``max_tokens`` is 1 in the echo request, not the 0 OpenAI's docs use: llama-cpp-
        python's server reads 0 as "until the context is full". Its echo values are also
        shifted by one position for models without a BOS token (each token is given the
        log-probability that the *next* position assigns it; SmolLM2 is such a model), so
        the alignment is checked against step 1 -- the distribution after the prompt must
        appear at the first candidate token -- and a shifted server is read from the
        previous position's top alternatives instead, exact where the token is among them.

        The in-process llamacpp model scores a candidate the same way (prompt in one batch,
        candidate tokens in one batch after it), so on one machine the two agree to float32
        rounding. A server re-evaluates only what follows the prefix it cached from the
        previous request, and a prompt it has cached whole gets its last token evaluated
        alone: CPU kernels for a one-token batch round differently, by up to a few
        hundredths of a nat per token, so values depend that much on the server's history.
        """
        if not self._params.logprobs:
            raise PermanentModelError(
                f"{self.version} is configured without log-probabilities (logprobs=false), "
                "so it cannot score candidates; use a server that offers them."
            )
        if not candidates:
            return {}
        # Trailing spaces move to the candidates, as in the llamacpp plugin: tokenisers
        # attach a space to the word after it.
        context = prompt.rstrip(" \t")
        moved = prompt[len(context) :]
        if not context:
            raise PermanentModelError("An empty prompt has no next-token distribution.")
        if any(not c for c in candidates):
            raise PermanentModelError("An empty candidate has no next-token probability.")
        top = await self._top_next(context)
        result: dict[str, float] = {}
        pending: list[str] = []
        for candidate in candidates:
            if moved + candidate in top:
                result[candidate] = top[moved + candidate]
            else:
                pending.append(candidate)
        # One at a time: they are rare, llama-cpp-python's server serialises them anyway,
        # and a failure then leaves no request of this call still running.
        for candidate in pending:
            result[candidate] = await self._echo_logprob(context, moved + candidate, top)
        return {c: result[c] for c in candidates}

    async def _top_next(self, context: str) -> dict[str, float]:
        response = await self._logprob_completion(prompt=context)
        logprobs = response.choices[0].logprobs
        tops = getattr(logprobs, "top_logprobs", None)
        if not tops or not tops[0]:
            raise PermanentModelError(
                f"{self.version} returned no log-probabilities from /v1/completions; it "
                "does not offer them (for llama.cpp's Python server, start it with "
                "--logits_all true). Set logprobs=false to use this server for chat only."
            )
        return {str(k): float(v) for k, v in tops[0].items()}

    async def _logprob_completion(self, **request: Any) -> Any:
        """A one-token /v1/completions request with as many alternatives as the server allows."""
        while True:
            k = self._top_k_choices[0]
            try:
                return await self._one_token_completion(k, request)
            except PermanentModelError as exc:
                # "logprobs must be <= 5" (OpenAI), "... greater than max allowed: 20"
                # (vLLM): step down and remember, for this and every later request.
                if len(self._top_k_choices) == 1 or "logprobs" not in str(exc.__cause__):
                    raise
                if self._top_k_choices[0] == k:
                    self._top_k_choices = self._top_k_choices[1:]
            except TransientModelError as exc:
                # llama-cpp-python's server started with --logits_all false answers a 500
                # ("logprobs is not supported for models created with logits_all=False"):
                # retrying cannot help.
                if "logits_all" not in str(exc.__cause__):
                    raise
                raise PermanentModelError(
                    f"{self.version} keeps no logits for log-probabilities; start "
                    "llama-cpp-python's server with --logits_all true."
                ) from exc

    async def _one_token_completion(self, k: int, request: dict[str, Any]) -> Any:
        body = {
            "model": self._params.model,
            "max_tokens": 1,
            "temperature": 0,
            "logprobs": k,
            **request,
        }
        return await self._call(lambda c: c.completions.create(**body))

    async def _echo_logprob(self, context: str, continuation: str, top: dict[str, float]) -> float:
        full = context + continuation
        response = await self._logprob_completion(prompt=full, echo=True)
        lp = response.choices[0].logprobs
        tokens: list[str] = list(getattr(lp, "tokens", None) or [])
        offsets: list[int] = list(getattr(lp, "text_offset", None) or [])
        token_lps: list[float | None] = list(getattr(lp, "token_logprobs", None) or [])
        tops: list[dict[str, float] | None] = list(getattr(lp, "top_logprobs", None) or [])
        if not (tokens and len(tokens) == len(offsets) == len(token_lps) == len(tops)):
            raise PermanentModelError(
                f"{self.version} does not return prompt log-probabilities (echo=True), "
                f"which scoring the multi-token candidate {continuation!r} needs."
            )
        starts = [i for i, off in enumerate(offsets) if off >= len(context)]
        first = starts[0] if starts else len(tokens)
        if first == 0 or first == len(tokens) or offsets[first] != len(context):
            raise PermanentModelError(
                f"The candidate {continuation!r} merges with the end of the prompt into one "
                "token, so it has no next-token probability; start candidates with a space "
                "or punctuation (e.g. ' he')."
            )
        # The generated token (max_tokens=1) starts at or after the end of the text.
        indices = [i for i in starts if offsets[i] < len(full)]
        shift = self._echo_shift
        if shift is None:
            if _same_distribution(tops[first], top):
                shift = 0
            elif _same_distribution(tops[first - 1], top):
                shift = 1
            else:
                raise PermanentModelError(
                    f"{self.version}'s echoed log-probabilities do not line up with its "
                    "next-token ones, so candidates cannot be scored reliably on it."
                )
            self._echo_shift = shift
        total = 0.0
        for i in indices:
            if shift == 0:
                value = token_lps[i]
            else:
                alternatives = tops[i - 1] or {}
                value = alternatives.get(tokens[i])
                if value is None:
                    raise PermanentModelError(
                        f"{self.version} misaligns echoed log-probabilities (llama-cpp-python's "
                        f"server with a model that has no BOS token) and the token "
                        f"{tokens[i]!r} of {continuation!r} is not among its top "
                        f"{self._top_k_choices[0]} alternatives there; raise top_logprobs or "
                        "use the in-process llamacpp model."
                    )
            if value is None:
                raise PermanentModelError(
                    f"{self.version} gave no log-probability for {tokens[i]!r}."
                )
            total += float(value)
        return total


def _same_distribution(reported: Mapping[str, float] | None, expected: Mapping[str, float]) -> bool:
    """Whether two reports show one next-token distribution, judged by its 5 likeliest tokens.

    Only the head is compared: near the top-k cut-off two evaluations of the same position
    may list different tokens, while neighbouring positions differ grossly at the head.
    """
    if not reported:
        return False
    head = sorted(expected.items(), key=lambda item: item[1], reverse=True)[:5]
    return all(
        key in reported and abs(reported[key] - value) <= _ALIGN_TOLERANCE * (1 + abs(value))
        for key, value in head
    )


def _rejects_json_schema(exc: BaseException | None) -> bool:
    """Whether a failed request was refused for its ``response_format`` type, json_schema.

    Only a message that names "json_schema" counts: OpenAI's complaint about a schema it
    cannot use in strict mode ("Invalid schema for response_format ...") must reach the
    user rather than quietly fall back to unconstrained JSON.
    """
    return "json_schema" in str(getattr(exc, "message", None) or exc or "")


@hookimpl
def register_models(register: Callable[[type[Model]], None]) -> None:
    register(OpenAICompatible)

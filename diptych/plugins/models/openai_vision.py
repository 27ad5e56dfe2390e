"""Model plugin ``openai-vision``: questions about images to GPT-4o-class models.

OpenAI itself, or any service that takes images in OpenAI's chat-completions format (vLLM,
llama.cpp's server with a multimodal projector, LM Studio, Ollama ...): each image is sent
inline as a PNG ``data:`` URL in an ``image_url`` content part, so nothing has to be hosted
and the service sees exactly the pixels stored in the workspace (PNG is lossless).

The sampling settings are the trial's (:class:`~diptych.core.capabilities.Sampling`), sent as
they are; :meth:`OpenAIVision.default_sampling` is the PAIRS paper's
(:func:`diptych.core.data.pairs_sampling`: temperature 0.75, top-p 1, up to 512 tokens), which
probes replicating it pass and every run then records with its trials.

Errors go through :func:`~diptych.plugins.models._openai_common.translate_error`: 429 (with
the service's Retry-After), 5xx, timeouts and dropped connections are transient; a
content-policy 400 is a refusal, and so is a reply whose message carries a ``refusal`` or
that the content filter withheld; any other 4xx is permanent. The SDK's own retries are off:
the engine retries, with the backoff and bookkeeping every model shares.

The API key is read from ``api_key_file`` or the ``api_key_env`` variable when a client is
made; it is never part of the parameters, version, provenance or a message.
"""

from __future__ import annotations

import asyncio
import base64
import io
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt

from diptych.core.capabilities import Capability, Model, ModelHints, Sampling
from diptych.core.data import load_data, pairs_sampling
from diptych.core.errors import (
    MissingDependencyError,
    PaidFailureError,
    PermanentModelError,
    RefusalError,
)
from diptych.core.plugins.hookspecs import hookimpl
from diptych.plugins.models._openai_common import (
    OPENAI_HOST,
    ClientPerLoop,
    OpenAIServiceMixin,
    PricesRead,
    call_service,
)

# --- prices -------------------------------------------------------------------------------


class VisionModelPrices(PricesRead):
    """One model's token prices and image-token rule, as its pages listed them on ``read_on``."""

    #: US dollars per million input and output tokens.
    input: PositiveFloat
    output: PositiveFloat
    #: Tokens of one image at detail "low", and added per 512 px tile at "high".
    image_base: PositiveInt
    image_tile: PositiveInt


class VisionPriceTable(BaseModel):
    """``diptych/prompts/vision_prices.yaml``."""

    model_config = ConfigDict(extra="forbid")

    currency: Literal["USD"]
    unit: Literal["1M tokens"]
    models: dict[str, VisionModelPrices]


def vision_prices() -> VisionPriceTable:
    return load_data("vision_prices.yaml", VisionPriceTable)


def prices_of(model: str) -> VisionModelPrices | None:
    """The table's entry for ``model``, or for the longest name it starts with (a dated
    snapshot such as gpt-4o-2024-08-06 is priced as gpt-4o)."""
    models = vision_prices().models
    if model in models:
        return models[model]
    named = [name for name in models if model.startswith(name + "-")]
    return models[max(named, key=len)] if named else None


#: The most 512 px tiles OpenAI's rule gives one image at detail "high": scaled to fit
#: 2048x2048, then its shortest side to 768 px, a 768x2048 image has 2 x 4 tiles.
MAX_TILES = 8
#: Bytes of text per token assumed before a call (English runs near 4; fewer is the safe side).
BYTES_PER_TOKEN = 3
#: Tokens the chat format adds around one message.
MESSAGE_TOKENS = 8


def estimated_tokens(text: str, images: int, detail: str, prices: VisionModelPrices) -> int:
    """An upper bound of the input tokens of one question about ``images`` images."""
    per_image = prices.image_base + (0 if detail == "low" else prices.image_tile * MAX_TILES)
    return -(-len(text.encode()) // BYTES_PER_TOKEN) + MESSAGE_TOKENS + images * per_image


def cost_of(prices: VisionModelPrices, input_tokens: int, output_tokens: int) -> float:
    return (input_tokens * prices.input + output_tokens * prices.output) / 1e6


#: Image modes PNG stores as they are; any other (CMYK, YCbCr, float) is converted to RGB.
_PNG_MODES = frozenset({"1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16"})


def png_data_url(image: Any) -> str:
    """``data:image/png;base64,...`` of a PIL image: lossless, so the service sees the pixels
    the workspace stores."""
    if not hasattr(image, "save"):
        raise PermanentModelError(
            f"openai-vision was given {type(image).__name__}, not an image (PIL.Image)"
        )
    if image.mode not in _PNG_MODES:
        image = image.convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


class OpenAIVision(OpenAIServiceMixin, Model):
    """GPT-4o-class vision chat on OpenAI or any OpenAI-compatible vision server."""

    name: ClassVar[str] = "openai-vision"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.VISION_CHAT})
    #: Where the key comes from and how calls are paced: none of it changes an answer.
    operational_params: ClassVar[frozenset[str]] = frozenset(
        {"api_key_env", "api_key_file", "timeout", "max_concurrency", "rate_limit_per_min"}
    )

    @classmethod
    def default_sampling(cls) -> Sampling:
        """The sampling a probe should pass when its user names none: how the PAIRS paper
        prompted its vision-language models (its Appendix B, for LLaVA, mPLUG-Owl and
        miniGPT-4)."""
        return pairs_sampling()

    class Params(Model.Params):
        base_url: str | None = Field(
            default=None,
            description="API root of an OpenAI-compatible vision server, e.g. "
            "http://127.0.0.1:8000/v1; default OpenAI's.",
        )
        model: str = Field(default="gpt-4o", description="The model name the service serves.")
        detail: Literal["auto", "low", "high"] = Field(
            default="auto",
            description="How closely OpenAI looks at each image: low (one 512px view), high "
            "(tiles) or auto (the service decides).",
        )
        api_key_env: str = Field(
            default="OPENAI_API_KEY", description="Environment variable holding the API key."
        )
        api_key_file: str | None = Field(
            default=None, description="A file holding the API key (read instead of the variable)."
        )
        timeout: float = Field(default=120, gt=0, description="Seconds before a request times out.")
        max_concurrency: int = Field(default=4, ge=1, description="Requests in flight at once.")
        rate_limit_per_min: float | None = Field(
            default=None, gt=0, description="Most requests per minute (your account's limit)."
        )

    def __init__(self, params: OpenAIVision.Params | None = None) -> None:
        super().__init__(params)
        assert isinstance(self.params, OpenAIVision.Params)
        self.p: OpenAIVision.Params = self.params
        try:
            import openai
        except ImportError as exc:
            raise MissingDependencyError("openai", "openai", "The openai-vision model") from exc
        self._sdk: Any = openai
        self._bind_service()
        self._clients = ClientPerLoop(self._make_client)
        self._last_response: dict[str, Any] = {}
        self.hints = ModelHints(
            max_concurrency=self.p.max_concurrency, rate_limit_per_min=self.p.rate_limit_per_min
        )

    # --- identity (host, version and keys come from OpenAIServiceMixin) -------------------

    def provenance(self) -> dict[str, Any]:
        """The plugin's settings and what the service said about the last answer.

        ``served_model`` (the snapshot behind an alias such as gpt-4o), ``system_fingerprint``
        (OpenAI's backend configuration) and ``request_id`` are set when a response arrives,
        with no await between that and the return of ``ask``; the engine reads provenance as
        soon as ``ask`` returns, so each stored answer carries the facts of its own response.
        """
        return {
            "plugin": self.name,
            "model": self.p.model,
            "version": self.version,
            "service": self.host,
            "detail": self.p.detail,
            "openai_sdk": getattr(self._sdk, "__version__", "unknown"),
            **self._last_response,
        }

    def price(self, capability: Capability, payload: dict[str, Any]) -> float | None:
        """At most what OpenAI charges for one question: its text and images as input tokens
        (images at the most tiles the rule allows, unless detail is low) and ``max_tokens`` as
        output; None for another service or a model the price table lacks."""
        if capability is not Capability.VISION_CHAT or self.host != OPENAI_HOST:
            return None
        prices = prices_of(self.p.model)
        if prices is None:
            return None
        sampling = Sampling.model_validate(payload.get("sampling", {}))
        tokens = estimated_tokens(
            str(payload.get("text", "")), len(payload.get("images", [])), self.p.detail, prices
        )
        return cost_of(prices, tokens, sampling.max_tokens)

    # --- asking ---------------------------------------------------------------------------

    def request(self, urls: Sequence[str], text: str, sampling: Sampling) -> dict[str, Any]:
        """The chat-completions request for one question about images (as data URLs)."""
        content: list[dict[str, Any]] = []
        # Images first, then the question about them, as in LLaVA's chat template.
        for url in urls:
            image_url = {"url": url}
            if self.p.detail != "auto":
                # "auto" is the API's default: left out, for servers that know no "detail".
                image_url["detail"] = self.p.detail
            content.append({"type": "image_url", "image_url": image_url})
        content.append({"type": "text", "text": text})
        request: dict[str, Any] = {
            "model": self.p.model,
            "messages": [{"role": "user", "content": content}],
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "max_tokens": sampling.max_tokens,
        }
        if sampling.seed is not None:
            # Best effort on OpenAI's side (see system_fingerprint in provenance).
            request["seed"] = sampling.seed
        return request

    async def ask(self, images: Sequence[Any], text: str, sampling: Sampling) -> str:
        """The model's answer to ``text`` about ``images``."""
        # PNG-encoding a large image takes tens of milliseconds: not on the event loop,
        # which other requests share.
        urls = await asyncio.to_thread(lambda: [png_data_url(image) for image in images])
        request = self.request(urls, text, sampling)
        client = self._clients.get()
        hint = f"Check the key in {self.p.api_key_file}." if self.p.api_key_file else None
        response = await call_service(
            client.chat.completions.create(**request),
            self._sdk,
            self.p.api_key_env,
            timeout=self.p.timeout,
            secret=client.api_key,
            key_hint=hint,
        )
        # No await from here to the return: see provenance().
        self._last_response = {
            "served_model": getattr(response, "model", None),
            "system_fingerprint": getattr(response, "system_fingerprint", None),
            "request_id": getattr(response, "_request_id", None),
            **self._usage_cost(getattr(response, "usage", None)),
        }
        if not response.choices:
            # A 200 is billed (its usage says for what): a paid failure, not bought again
            # unless the run allows paid retries.
            raise PaidFailureError(
                "the service answered with no choices", cost=self._last_response.get("cost_usd")
            )
        choice = response.choices[0]
        refusal = getattr(choice.message, "refusal", None)
        if refusal:
            # GPT-4o declines some questions about people in images this way, with a reason.
            raise RefusalError(str(refusal))
        if choice.finish_reason == "content_filter":
            raise RefusalError("The service's content filter withheld the reply.")
        return str(choice.message.content or "")

    def _usage_cost(self, usage: Any) -> dict[str, Any]:
        """The tokens the service says it counted and, on OpenAI, what they cost."""
        try:
            used = {
                "input_tokens": int(usage.prompt_tokens),
                "output_tokens": int(usage.completion_tokens),
            }
        except (AttributeError, TypeError, ValueError):
            return {}
        prices = prices_of(self.p.model) if self.host == OPENAI_HOST else None
        if prices is None:
            return {"usage": used}
        cost = cost_of(prices, used["input_tokens"], used["output_tokens"])
        return {"usage": used, "cost_usd": cost}


@hookimpl
def register_models(register: Callable[[type[Model]], None]) -> None:
    register(OpenAIVision)

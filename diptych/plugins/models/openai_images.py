"""Model plugin ``openai-images``: DALL-E 3, gpt-image-1 and DALL-E 2 on the OpenAI API.

Any service with the same ``/v1/images/generations`` API can be named with ``base_url``.
The official ``openai`` SDK is imported when the model is made, with its own retries off:
the engine retries, from the errors :func:`translate_error` (shared with the
``openai-compatible`` plugin) maps SDK errors to -- a content-policy 400 is a refusal, a 429
is transient with the service's Retry-After, 5xx, timeouts and dropped connections are
transient, any other 4xx is permanent.

What an auditor needs from each image is in its provenance: the model, size, quality and
style asked for, the ``revised_prompt`` DALL-E 3 actually drew (it rewrites prompts, and may
add who is in the picture), the service's timestamp and request id, and the fact that these
models take no seed.

The API key is read from ``api_key_file`` or the ``api_key_env`` variable when a client is
made. It is never part of the parameters, version, provenance or a message: errors are
scrubbed of it before the engine stores them.
"""

from __future__ import annotations

import asyncio
import base64
import io
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, model_validator

from diptych.core.capabilities import Capability, GeneratedImage, Model, ModelHints
from diptych.core.data import load_data
from diptych.core.errors import (
    MissingDependencyError,
    PaidFailureError,
    PermanentModelError,
)
from diptych.core.plugins.hookspecs import hookimpl
from diptych.plugins.models._openai_common import (
    OPENAI_HOST,
    ClientPerLoop,
    OpenAIServiceMixin,
    PricesRead,
    call_service,
)

ImageModelName = Literal["dall-e-3", "gpt-image-1", "dall-e-2"]


#: What OpenAI's image endpoint accepts, per model.
SIZES: dict[str, tuple[str, ...]] = {
    "dall-e-3": ("1024x1024", "1792x1024", "1024x1792"),
    "gpt-image-1": ("1024x1024", "1536x1024", "1024x1536", "auto"),
    "dall-e-2": ("256x256", "512x512", "1024x1024"),
}
QUALITIES: dict[str, tuple[str, ...]] = {
    "dall-e-3": ("standard", "hd"),
    "gpt-image-1": ("low", "medium", "high", "auto"),
    "dall-e-2": ("standard",),
}
#: What the service uses when a request names none (recorded in provenance, used for prices).
DEFAULT_SIZE = {"dall-e-3": "1024x1024", "gpt-image-1": "auto", "dall-e-2": "1024x1024"}
DEFAULT_QUALITY = {"dall-e-3": "standard", "gpt-image-1": "auto", "dall-e-2": "standard"}

SEED_NOT_SUPPORTED = "not supported by the service"


def check_size(model: str, size: str) -> None:
    """Raise ValueError unless ``model`` offers ``size``."""
    if size not in SIZES[model]:
        raise ValueError(
            f"size '{size}' is not offered by {model} (choose from {', '.join(SIZES[model])})"
        )


# --- prices -------------------------------------------------------------------------------


class ModelPrices(PricesRead):
    """One model's prices per image, as its pricing page listed them on ``read_on``."""

    #: True where the service bills by tokens and the per-image figures are its estimates.
    approximate: bool = False
    #: quality -> size -> US dollars per image
    per_image: dict[str, dict[str, PositiveFloat]]


class PriceTable(BaseModel):
    """``diptych/prompts/prices.yaml``."""

    model_config = ConfigDict(extra="forbid")

    currency: Literal["USD"]
    unit: Literal["image"]
    models: dict[str, ModelPrices]


def price_table() -> PriceTable:
    return load_data("prices.yaml", PriceTable)


def price_per_image(model: str, quality: str, size: str) -> float | None:
    """US dollars for one image from the price table; None for a combination it lacks."""
    prices = price_table().models.get(model)
    if prices is None:
        return None
    return prices.per_image.get(quality, {}).get(size)


# --- the plugin ---------------------------------------------------------------------------


class OpenAIImages(OpenAIServiceMixin, Model):
    """OpenAI's image models (DALL-E 3, gpt-image-1, DALL-E 2) or a service with their API."""

    name: ClassVar[str] = "openai-images"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.IMAGE_GENERATOR})
    #: Where the key comes from and how calls are paced: none of it changes an image.
    operational_params: ClassVar[frozenset[str]] = frozenset(
        {"api_key_env", "api_key_file", "timeout", "max_concurrency", "rate_limit_per_min"}
    )

    class Params(Model.Params):
        model: ImageModelName = Field(default="dall-e-3", description="The image model.")
        size: str | None = Field(
            default=None,
            description="WIDTHxHEIGHT: dall-e-3 1024x1024|1792x1024|1024x1792; gpt-image-1 "
            "1024x1024|1536x1024|1024x1536|auto; dall-e-2 256x256|512x512|1024x1024. "
            "Default: the service's (1024x1024; auto for gpt-image-1).",
        )
        quality: str | None = Field(
            default=None,
            description="dall-e-3: standard|hd; gpt-image-1: low|medium|high|auto. "
            "Default: the service's.",
        )
        style: Literal["vivid", "natural"] | None = Field(
            default=None, description="dall-e-3 only. Default: the service's (vivid)."
        )
        base_url: str | None = Field(
            default=None,
            description="API root of another service with the same API; default OpenAI's.",
        )
        api_key_env: str = Field(
            default="OPENAI_API_KEY", description="Environment variable holding the API key."
        )
        api_key_file: str | None = Field(
            default=None, description="A file holding the API key (read instead of the variable)."
        )
        timeout: float = Field(
            default=300,
            gt=0,
            allow_inf_nan=False,
            description="Seconds before a request times out. OpenAI documents up to two "
            "minutes for one gpt-image-1 image; a request cut off sooner may still be billed.",
        )
        max_concurrency: int = Field(default=4, ge=1, description="Requests in flight at once.")
        rate_limit_per_min: float | None = Field(
            default=None, gt=0, description="Most requests per minute (your account's limit)."
        )

        @model_validator(mode="after")
        def _offered_by_model(self) -> OpenAIImages.Params:
            # Checked here so that a run never starts with a setting the service will refuse
            # on every single trial.
            if self.size is not None:
                check_size(self.model, self.size)
            if self.quality is not None and self.quality not in QUALITIES[self.model]:
                offered = ", ".join(QUALITIES[self.model])
                raise ValueError(
                    f"quality '{self.quality}' is not offered by {self.model} (choose from "
                    f"{offered})"
                )
            if self.style is not None and self.model != "dall-e-3":
                raise ValueError(f"style is a dall-e-3 setting; {self.model} has none")
            return self

    def __init__(self, params: OpenAIImages.Params | None = None) -> None:
        super().__init__(params)
        assert isinstance(self.params, OpenAIImages.Params)
        self.p: OpenAIImages.Params = self.params
        try:
            import openai
        except ImportError as exc:
            raise MissingDependencyError("openai", "openai", "The openai-images model") from exc
        self._sdk: Any = openai
        self._bind_service()
        self._clients = ClientPerLoop(self._make_client)
        self.hints = ModelHints(
            max_concurrency=self.p.max_concurrency, rate_limit_per_min=self.p.rate_limit_per_min
        )

    # --- identity (host, version and keys come from OpenAIServiceMixin) -------------------

    def provenance(self) -> dict[str, Any]:
        return {
            "plugin": self.name,
            "model": self.p.model,
            "version": self.version,
            "service": self.host,
            "openai_sdk": getattr(self._sdk, "__version__", "unknown"),
        }

    def price(self, capability: Capability, payload: dict[str, Any]) -> float | None:
        """OpenAI's list price of one image; None for another service or an unknown setting."""
        if capability is not Capability.IMAGE_GENERATOR or self.host != OPENAI_HOST:
            # The table is OpenAI's; a compatible service sets its own prices.
            return None
        size = payload.get("size") or self.p.size or DEFAULT_SIZE[self.p.model]
        quality = self.p.quality or DEFAULT_QUALITY[self.p.model]
        return price_per_image(self.p.model, quality, size)

    # --- generation -----------------------------------------------------------------------

    async def generate(
        self, prompt: str, n: int, seed: int | None, size: str | None
    ) -> list[GeneratedImage]:
        """``n`` images for ``prompt``; ``size`` overrides the ``size`` parameter.

        OpenAI's image models take no seed: ``seed`` is recorded as asked for and as not
        supported. dall-e-3 makes one image per request, so ``n`` > 1 is ``n`` requests.
        """
        size = size or self.p.size
        if size is not None:
            try:
                check_size(self.p.model, size)
            except ValueError as exc:
                raise PermanentModelError(str(exc)) from exc
        if self.p.model == "dall-e-3" and n > 1:
            try:
                async with asyncio.TaskGroup() as group:
                    tasks = [group.create_task(self._request(prompt, 1, size)) for _ in range(n)]
            except ExceptionGroup as failures:
                # The engine decides on one outcome per call: the first failure (the rest of
                # the requests were cancelled with it) tells it whether to retry.
                raise failures.exceptions[0]  # noqa: B904 (its own cause is kept)
            batches = [t.result() for t in tasks]
        else:
            batches = [await self._request(prompt, n, size)]
        images: list[GeneratedImage] = []
        for response in batches:
            images.extend(self._images_of(response, size, seed))
        if len(images) != n:
            # A 200 is billed: asking again would pay again (see PaidFailureError).
            raise PaidFailureError(f"asked for {n} image(s), the service returned {len(images)}")
        return images

    async def _request(self, prompt: str, n: int, size: str | None) -> Any:
        request: dict[str, Any] = {"model": self.p.model, "prompt": prompt, "n": n}
        if size is not None:
            request["size"] = size
        if self.p.quality is not None:
            request["quality"] = self.p.quality
        if self.p.style is not None:
            request["style"] = self.p.style
        if self.p.model != "gpt-image-1":
            # The DALL-E default is a URL that expires within the hour; gpt-image-1 always
            # answers in base64 and rejects the parameter.
            request["response_format"] = "b64_json"
        client = self._clients.get()
        hint = f"Check the key in {self.p.api_key_file}." if self.p.api_key_file else None
        return await call_service(
            client.images.generate(**request),
            self._sdk,
            self.p.api_key_env,
            timeout=self.p.timeout,
            secret=client.api_key,
            key_hint=hint,
        )

    def _images_of(self, response: Any, size: str | None, seed: int | None) -> list[GeneratedImage]:
        from PIL import Image

        model = self.p.model
        facts: dict[str, Any] = {
            "model": model,
            # What the service says it made, else what was asked, else its default.
            "size": getattr(response, "size", None) or size or DEFAULT_SIZE[model],
            "quality": getattr(response, "quality", None)
            or self.p.quality
            or DEFAULT_QUALITY[model],
            "style": (self.p.style or "vivid") if model == "dall-e-3" else None,
            "created": response.created,
            "request_id": getattr(response, "_request_id", None),
            "service": self.host,
            "seed": SEED_NOT_SUPPORTED,
            "seed_requested": seed,
        }
        usage = getattr(response, "usage", None)
        if usage is not None:
            facts["usage"] = usage.model_dump(mode="json", exclude_none=True)
        out: list[GeneratedImage] = []
        # Each of these answers came with a 200, so the service billed it: they are paid
        # failures, which the engine does not buy again unless the run allows paid retries.
        for item in response.data or []:
            if not item.b64_json:
                sent = "a URL" if getattr(item, "url", None) else "no image"
                raise PaidFailureError(
                    f"the service answered with {sent} where the base64 image (b64_json) was "
                    "asked for"
                )
            try:
                image = Image.open(io.BytesIO(base64.b64decode(item.b64_json)))
                image.load()
            # ValueError: bad base64 (binascii.Error); SyntaxError: Pillow's "broken PNG".
            except (ValueError, OSError, SyntaxError, Image.DecompressionBombError) as exc:
                raise PaidFailureError(f"the service sent an unreadable image: {exc}") from exc
            provenance = {**facts, "revised_prompt": item.revised_prompt}
            out.append(GeneratedImage(image, provenance))
        return out


@hookimpl
def register_models(register: Callable[[type[Model]], None]) -> None:
    register(OpenAIImages)

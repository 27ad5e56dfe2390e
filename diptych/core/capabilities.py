"""What a model can do: one interface per capability.

A model plugin is a class deriving from :class:`Model` that implements one or more of the
capability protocols below and lists them in ``capabilities``. Methods are ``async``; a model
whose backend is synchronous (llama.cpp, transformers) sets ``hints.blocking = True`` and the
engine runs its calls in a worker thread, one at a time unless ``max_concurrency`` says more.

The core never imports a model SDK: image objects are passed around as ``Any`` here
(``PIL.Image.Image`` in practice) so that importing the core stays cheap.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from diptych.core.labels import Label


class Capability(StrEnum):
    CHAT = "chat"
    TEXT_LIKELIHOOD = "text_likelihood"
    IMAGE_GENERATOR = "image_generator"
    VISION_CHAT = "vision_chat"
    IMAGE_TEXT_ENCODER = "image_text_encoder"
    PERSON_ANNOTATOR = "person_annotator"


#: Capabilities whose answer does not depend on sampling: the same request always gives the
#: same answer, so repeated samples of one request share one stored result.
DETERMINISTIC = frozenset({Capability.TEXT_LIKELIHOOD, Capability.IMAGE_TEXT_ENCODER})


class Sampling(BaseModel):
    """Sampling settings for generative calls; recorded with every trial."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 256
    seed: int | None = None


class Message(BaseModel):
    """One chat message. ``content`` is text, or a list of OpenAI-style content parts."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str | list[dict[str, Any]]


def usable_cpus() -> int:
    """The cores this process may run on: sched_getaffinity respects container CPU limits,
    where os.cpu_count() reports the host's."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class ModelHints(BaseModel):
    """How the engine should pace a model and what it costs."""

    model_config = ConfigDict(extra="forbid")

    max_concurrency: int = Field(default=4, ge=1)
    rate_limit_per_min: float | None = None
    batch_size: int = Field(default=1, ge=1)
    price_per_call: float | None = None
    blocking: bool = False
    #: The model computes on the machine that runs it (weights in this process), rather than
    #: calling a service; a blocking backend is local too. With ``--executor ray`` a local
    #: model without a price runs in Ray actors.
    local: bool = False


@dataclass
class GeneratedImage:
    """An image with where it came from (model, seed, revised prompt ...)."""

    image: Any
    provenance: dict[str, Any] = field(default_factory=dict)


class Model:
    """Base class of every model plugin.

    Class attributes describe the plugin; ``Params`` (a pydantic model with ``extra="forbid"``)
    declares the parameters a user may set with ``--model-param``. The first line of the class
    docstring is the description ``diptych plugins`` shows.
    """

    name: ClassVar[str]
    capabilities: ClassVar[frozenset[Capability]]
    #: Parameters that change how calls are made but never what is answered (concurrency,
    #: timeouts, where a key is read from). They are left out of trial keys, so changing them
    #: does not invalidate stored results.
    operational_params: ClassVar[frozenset[str]] = frozenset()
    #: For a person annotator: the label dimensions its labels are in (``gender``, ``tone``;
    #: :data:`diptych.core.labels.LABEL_DIMENSIONS`). Each :class:`Label` it returns names one
    #: of them (``Label.dimension``); the annotation stage refuses a label in another.
    label_dimensions: ClassVar[frozenset[str]] = frozenset({"gender"})

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")

    def __init__(self, params: BaseModel | None = None) -> None:
        self.params = params if params is not None else self.Params()
        self.hints = ModelHints()

    def identity_params(self) -> dict[str, Any]:
        """The parameters that decide the model's answers: part of every trial key."""
        return self.params.model_dump(mode="json", exclude=set(self.operational_params))

    @property
    def version(self) -> str:
        """A string that changes whenever the model's answers may change (weights, revision)."""
        return "unversioned"

    def price(self, capability: Capability, payload: dict[str, Any]) -> float | None:
        """Estimated price in US dollars of one call with this payload; None when unknown.

        The default is ``hints.price_per_call``; a service whose price depends on the request
        (image size, quality) overrides this. Used by ``--dry-run`` and the ``--max-cost`` guard.
        """
        return self.hints.price_per_call

    @classmethod
    def works_offline(cls) -> bool:
        """Whether the model answers with its default parameters on this machine with no
        network, key or server: its backend and weights are installed. A front end ticks such
        a model for a newcomer; one that says True must not download anything when loaded.
        False by default: a service needs a key and a network, a hub model a download."""
        return False

    def load(self) -> None:
        """Load what is heavy (weights, servers). Called once by the engine before the first
        call, in a worker thread, and only when some trial must actually run — so a run whose
        trials are all cached never pays for it. Raise ModelLoadError on failure."""

    def build(self) -> str | None:
        """The backend build that computes the answers, where it changes their last digits
        (llama.cpp: its version and the CPU features its kernels use); None where it does not
        vary by machine. Stored with every result as ``build``: a run whose results came from
        several builds says so, and resuming on another build warns first."""
        return None

    def provenance(self) -> dict[str, Any]:
        """Facts stored with every result: model id, version, backend versions, device."""
        build = self.build()
        return {"model": self.name, "version": self.version, **({"build": build} if build else {})}

    async def aclose(self) -> None:
        """Release what the model holds (sessions, servers, GPU memory)."""


@runtime_checkable
class Chat(Protocol):
    async def complete(
        self,
        messages: Sequence[Message],
        sampling: Sampling,
        schema: dict[str, Any] | None = None,
    ) -> str:
        """The assistant's reply; under ``schema`` it is JSON that validates against it."""
        ...


@runtime_checkable
class TextLikelihood(Protocol):
    async def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        """Natural-log probability of each candidate continuing ``prompt``.

        A candidate is a short continuation such as ``" he"``; its log-probability is that of its
        whole token sequence. Values are not renormalised over the candidates.
        """
        ...


@dataclass(frozen=True)
class LikelihoodRequest:
    """A next-token log-probability request as a probe planned it (one trial's payload).

    ``segments`` cut ``prompt`` at points its probe's template fixes (their concatenation is
    the prompt); ``siblings`` are the last segments of the prompts that share every other
    segment with it and are evaluated with it, its own among them. A model that reuses work
    between prompts evaluates each segment as its own batch (and the siblings as sequences of
    one batch), so that a value never depends on which prompts it saw before; a model that
    evaluates every prompt whole may ignore both. A model offers this road by a method
    ``next_token_logprobs_batch(requests) -> list[dict[str, float]]``, one answer per request.
    """

    prompt: str
    candidates: tuple[str, ...]
    segments: tuple[str, ...] = ()
    siblings: tuple[str, ...] = ()

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> LikelihoodRequest:
        """The request of a ``text_likelihood`` trial; ValueError when its split is not one."""
        prompt = str(payload["prompt"])
        segments = tuple(str(s) for s in payload.get("segments", ()))
        siblings = tuple(str(s) for s in payload.get("siblings", ()))
        if segments and "".join(segments) != prompt:
            raise ValueError("the segments of a likelihood request do not make up its prompt")
        if siblings and (not segments or segments[-1] not in siblings):
            raise ValueError("a likelihood request's siblings must include its last segment")
        return cls(prompt, tuple(str(c) for c in payload["candidates"]), segments, siblings)


@runtime_checkable
class ImageGenerator(Protocol):
    async def generate(
        self, prompt: str, n: int, seed: int | None, size: str | None
    ) -> list[GeneratedImage]:
        """``n`` images for ``prompt``, each with its provenance."""
        ...


@runtime_checkable
class VisionChat(Protocol):
    async def ask(self, images: Sequence[Any], text: str, sampling: Sampling) -> str:
        """The model's answer to ``text`` about ``images``."""
        ...


@runtime_checkable
class ImageTextEncoder(Protocol):
    async def embed_images(self, images: Sequence[Any]) -> list[list[float]]:
        """One embedding per image, in the model's joint space."""
        ...

    async def embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        """One embedding per text, in the model's joint space."""
        ...


@runtime_checkable
class PersonAnnotator(Protocol):
    async def annotate(self, image: Any, subjects: Sequence[str]) -> list[Label]:
        """A label for the person at each position in ``subjects`` (left / right / single)."""
        ...


PROTOCOLS: dict[Capability, type] = {
    Capability.CHAT: Chat,
    Capability.TEXT_LIKELIHOOD: TextLikelihood,
    Capability.IMAGE_GENERATOR: ImageGenerator,
    Capability.VISION_CHAT: VisionChat,
    Capability.IMAGE_TEXT_ENCODER: ImageTextEncoder,
    Capability.PERSON_ANNOTATOR: PersonAnnotator,
}

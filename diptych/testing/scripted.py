"""Scripted models, one per capability, and the scripted probe.

Scripted models answer from a queue you fill with ``enqueue()`` (then from a deterministic
default), record every call in ``.history``, and can be slowed down or made to fail on purpose.
They are ordinary model plugins: register :mod:`diptych.testing` as a plugin
(``register_plugin`` in :mod:`diptych.core.plugins`, or the ``scripted`` pytest fixture
pattern) and they are available by name (``scripted-chat``, ``scripted-likelihood`` ...)
like any other model.

``ScriptedProbe`` (``scripted``) plans N trials of any capability; the engine's tests and
benchmarks use it.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from diptych.core.capabilities import (
    Capability,
    GeneratedImage,
    Message,
    Model,
    Sampling,
)
from diptych.core.errors import RefusalError, TransientModelError
from diptych.core.labels import CANNOT_IDENTIFY, Label
from diptych.core.plugins.hookspecs import hookimpl
from diptych.core.probe import Probe, ProbeResult, Table
from diptych.core.trials import TrialSpec
from diptych.testing._unit import unit
from diptych.testing.told_gender import Told, told_gender


class ScriptedParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    latency: float = Field(0.0, ge=0, description="seconds each call takes")
    max_concurrency: int = Field(16, ge=1)
    transient_every: int = Field(
        0, ge=0, description="every Nth call fails once with a transient error (0: never)"
    )
    refuse_containing: str | None = Field(
        None, description="refuse any request whose text contains this"
    )
    calls_log: str | None = Field(
        None, description="append one JSON line per call to this file (survives a kill)"
    )
    price_per_call: float | None = Field(None, ge=0, description="USD per call, for cost tests")
    batch_size: int = Field(1, ge=1, description="images per batched call (scripted-images)")
    p_feminine: dict[str, float] | None = Field(
        None,
        description="scripted-likelihood: P(she) of the person a prompt's last sentence names, "
        "by identity (0.5 for any other person); None: a hash of the prompt decides",
    )
    noise: float = Field(
        0.0,
        ge=0,
        le=0.4,
        description="scripted-likelihood with p_feminine: half-width of a uniform shift of "
        "P(she) that each prompt draws from its hash and the model's version",
    )
    default_p_feminine: float = Field(
        0.5,
        gt=0,
        lt=1,
        description="scripted-likelihood with p_feminine: P(she) of a person the model holds "
        "no stereotype about, its default gender (0.3: 70% 'he'); a planted identity's P(she) "
        "moves from it by the planted log-odds",
    )
    interventions: dict[str, float] = Field(
        default_factory=dict,
        description="scripted-likelihood with p_feminine: text a prompt may contain -> factor "
        "on every identity's distance from 0.5 (0: no stereotype left, 1: unchanged)",
    )
    follows_told_gender: bool = Field(
        False,
        description="scripted-likelihood: answer every person with the gender the prompt tells "
        "(P(she) 0.95 or 0.05), read in any of seven languages, names and encodings "
        "(diptych.testing.told_gender), as a model that follows hints does",
    )
    version: str = "1"


#: P(she) of a person whose gender the prompt tells as feminine (masculine: 1 minus it).
TOLD_P_FEMININE = 0.95


class ScriptedModel(Model):
    """Base of the scripted models: queue, history, latency and faults."""

    name: ClassVar[str] = "scripted"
    capabilities: ClassVar[frozenset[Capability]] = frozenset()
    operational_params = frozenset(
        {
            "latency",
            "max_concurrency",
            "transient_every",
            "calls_log",
            "price_per_call",
            "batch_size",
        }
    )
    Params = ScriptedParams  # type: ignore[assignment]

    def __init__(self, params: BaseModel | None = None) -> None:
        super().__init__(params)
        assert isinstance(self.params, ScriptedParams)
        self.p: ScriptedParams = self.params
        self.hints.max_concurrency = self.p.max_concurrency
        self.hints.price_per_call = self.p.price_per_call
        self.hints.batch_size = self.p.batch_size
        # Scripted answers are computed here, like a local backend's: Ray may run them.
        self.hints.local = True
        self._queue: deque[Any] = deque()
        self.history: list[dict[str, Any]] = []
        self.calls = 0

    @property
    def version(self) -> str:
        return self.p.version

    def enqueue(self, *answers: Any) -> None:
        """Answers to give, in order, before falling back to the default. An exception instance
        is raised instead of answered."""
        self._queue.extend(answers)

    async def _call(self, method: str, text: str, default: Callable[[], Any], **args: Any) -> Any:
        self.calls += 1
        self.history.append({"method": method, **args})
        if self.p.calls_log:
            # O_APPEND line writes are atomic enough for a test log and survive SIGKILL.
            with open(self.p.calls_log, "a", encoding="utf-8") as log:
                log.write(json.dumps({"method": method, "text": text, "pid": os.getpid()}) + "\n")
        if self.p.latency:
            await asyncio.sleep(self.p.latency)
        if self.p.transient_every and self.calls % self.p.transient_every == 0:
            raise TransientModelError("scripted transient fault", retry_after=0.0)
        if self.p.refuse_containing and self.p.refuse_containing in text:
            raise RefusalError(f"scripted refusal: request mentions {self.p.refuse_containing!r}")
        if self._queue:
            answer = self._queue.popleft()
            if isinstance(answer, BaseException):
                raise answer
            return answer
        return default()


class ScriptedChat(ScriptedModel):
    """Chat model that answers from a script (default: a fixed reply, or JSON under a schema)."""

    name = "scripted-chat"
    capabilities = frozenset({Capability.CHAT})

    async def complete(
        self,
        messages: Sequence[Message],
        sampling: Sampling,
        schema: dict[str, Any] | None = None,
    ) -> str:
        text = " ".join(m.content if isinstance(m.content, str) else "" for m in messages)

        def default() -> str:
            return json.dumps({}) if schema else "ok"

        answer = await self._call(
            "complete", text, default, messages=list(messages), sampling=sampling, schema=schema
        )
        return str(answer)


class ScriptedLikelihood(ScriptedModel):
    """Log-probabilities from a script, else a deterministic function of prompt and candidate."""

    name = "scripted-likelihood"
    capabilities = frozenset({Capability.TEXT_LIKELIHOOD})

    async def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        def default() -> dict[str, float]:
            if len(candidates) == 2 and (
                self.p.p_feminine is not None or self._told(prompt) is not None
            ):
                p = self.planted_p_feminine(prompt)
                # The first candidate is the masculine one (" he", " she"); 0.8 of the mass.
                return {
                    candidates[0]: math.log(0.8 * (1 - p)),
                    candidates[1]: math.log(0.8 * p),
                }
            return {c: math.log(0.05 + 0.9 * unit(prompt, c)) for c in candidates}

        answer = await self._call(
            "next_token_logprobs", prompt, default, prompt=prompt, candidates=list(candidates)
        )
        return dict(answer)

    def _told(self, prompt: str) -> Told | None:
        if not self.p.follows_told_gender:
            return None
        return told_gender(prompt)

    def planted_p_feminine(self, prompt: str) -> float:
        """P(she) for ``prompt``: with ``follows_told_gender``, the gender the prompt tells
        (:data:`TOLD_P_FEMININE`) where it tells one; else under ``p_feminine``: the planted
        value of the identity the prompt's last sentence names (the person whose pronoun is
        read; the longest name wins), its distance from 0.5 scaled by every intervention the
        prompt contains, its log-odds moved by the model's default gender
        (``default_p_feminine``), plus the prompt's own uniform noise."""
        told = self._told(prompt)
        if told is not None:
            # Told the answer, the model gives it whoever the person is.
            p = TOLD_P_FEMININE if told == "feminine" else 1 - TOLD_P_FEMININE
            shift = self.p.noise * (2 * unit(prompt, "noise", self.p.version) - 1)
            return min(0.99, max(0.01, p + shift))
        planted = self.p.p_feminine or {}
        last = prompt.rpartition(". ")[2].lower()
        named = [i for i in planted if re.search(rf"\b{re.escape(i.lower())}\b", last)]
        base = planted[max(named, key=len)] if named else 0.5
        factor = math.prod(f for text, f in self.p.interventions.items() if text in prompt)
        p = 0.5 + (base - 0.5) * factor
        if self.p.default_p_feminine != 0.5:
            # A default gender adds its log-odds to every person's: what a small language
            # model does when it says "he" of anyone it knows nothing about.
            p = min(1 - 1e-9, max(1e-9, p))
            logit = math.log(p / (1 - p)) + math.log(
                self.p.default_p_feminine / (1 - self.p.default_p_feminine)
            )
            p = 1 / (1 + math.exp(-logit))
        # The version seeds the noise: two versions are two draws of the same target.
        shift = self.p.noise * (2 * unit(prompt, "noise", self.p.version) - 1)
        return min(0.99, max(0.01, p + shift))


class ScriptedImageGenerator(ScriptedModel):
    """Images from a script, else a small solid-colour PNG chosen by the prompt (needs Pillow)."""

    name = "scripted-images"
    capabilities = frozenset({Capability.IMAGE_GENERATOR})

    async def generate(
        self, prompt: str, n: int, seed: int | None, size: str | None
    ) -> list[GeneratedImage]:
        def default() -> list[GeneratedImage]:
            from PIL import Image

            shade = int(255 * unit(prompt, str(seed)))
            return [
                GeneratedImage(Image.new("RGB", (8, 8), (shade, 128, 255 - shade)), {"seed": seed})
                for _ in range(n)
            ]

        answer = await self._call("generate", prompt, default, prompt=prompt, n=n, seed=seed)
        return list(answer)

    async def generate_batch(
        self, prompts: Sequence[str], seeds: Sequence[int | None], size: str | None
    ) -> list[GeneratedImage]:
        """Several prompts in one call, one seed each (used when ``batch_size`` > 1)."""
        from PIL import Image

        def default() -> list[GeneratedImage]:
            return [
                GeneratedImage(
                    Image.new("RGB", (8, 8), (int(255 * unit(p, str(s))), 128, 0)), {"seed": s}
                )
                for p, s in zip(prompts, seeds, strict=True)
            ]

        answer = await self._call(
            "generate_batch",
            " | ".join(prompts),
            default,
            prompts=list(prompts),
            seeds=list(seeds),
        )
        return list(answer)


class ScriptedVisionChat(ScriptedModel):
    """Vision chat that answers from a script (default: "ok")."""

    name = "scripted-vision"
    capabilities = frozenset({Capability.VISION_CHAT})

    async def ask(self, images: Sequence[Any], text: str, sampling: Sampling) -> str:
        answer = await self._call("ask", text, lambda: "ok", n_images=len(images))
        return str(answer)


class ScriptedEncoder(ScriptedModel):
    """Image-text encoder with scripted vectors (default: 4-d vectors derived from the input)."""

    name = "scripted-encoder"
    capabilities = frozenset({Capability.IMAGE_TEXT_ENCODER})

    async def embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        def default() -> list[list[float]]:
            return [[unit(t, str(i)) for i in range(4)] for t in texts]

        answer = await self._call("embed_texts", " ".join(texts), default, texts=list(texts))
        return list(answer)

    async def embed_images(self, images: Sequence[Any]) -> list[list[float]]:
        def default() -> list[list[float]]:
            return [[unit(repr(img.size), str(i)) for i in range(4)] for img in images]

        answer = await self._call("embed_images", "", default, n_images=len(images))
        return list(answer)


class ScriptedAnnotator(ScriptedModel):
    """Person annotator that labels from a script (default: cannot_identify)."""

    name = "scripted-annotator"
    capabilities = frozenset({Capability.PERSON_ANNOTATOR})

    async def annotate(self, image: Any, subjects: Sequence[str]) -> list[Label]:
        def default() -> list[Label]:
            return [Label(s, CANNOT_IDENTIFY, None) for s in subjects]

        answer = await self._call("annotate", "", default, subjects=list(subjects))
        return list(answer)


class ScriptedProbe(Probe):
    """Plans N trials of one capability; for testing the engine and for benchmarks."""

    name = "scripted"
    goal = "exercise the engine"
    capabilities = frozenset(Capability)

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")

        n: int = Field(10, ge=0, description="number of trials")
        capability: Capability = Capability.TEXT_LIKELIHOOD
        samples: int = Field(1, ge=1, description="samples per request")

    def required_capability(self) -> Capability:
        return self.params.capability  # type: ignore[attr-defined]

    def plan(self) -> Iterator[TrialSpec]:
        p: Any = self.params
        for i in range(p.n):
            for sample in range(p.samples):
                if p.capability == Capability.CHAT:
                    payload: dict[str, Any] = {
                        "messages": [{"role": "user", "content": f"request {i}"}],
                        "sampling": Sampling().model_dump(),
                    }
                elif p.capability == Capability.TEXT_LIKELIHOOD:
                    payload = {"prompt": f"request {i}", "candidates": [" he", " she"]}
                else:
                    payload = {"prompt": f"request {i}"}
                yield TrialSpec(p.capability, payload, sample=sample, meta={"i": i})

    def analyze(self, run: Any) -> ProbeResult:
        counts = run.status_counts()
        return ProbeResult(
            title="scripted",
            tables=[Table("outcomes", list(counts), [list(counts.values())])],
        )


SCRIPTED_MODELS: tuple[type[ScriptedModel], ...] = (
    ScriptedChat,
    ScriptedLikelihood,
    ScriptedImageGenerator,
    ScriptedVisionChat,
    ScriptedEncoder,
)


@hookimpl
def register_models(register: Callable[[type[Model]], None]) -> None:
    for cls in SCRIPTED_MODELS:
        register(cls)


@hookimpl
def register_annotators(register: Callable[[type[Model]], None]) -> None:
    register(ScriptedAnnotator)


@hookimpl
def register_probes(register: Callable[[type[Probe]], None]) -> None:
    register(ScriptedProbe)

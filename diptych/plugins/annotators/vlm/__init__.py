"""Annotators ``vqa`` and ``vlm-judge``: perceived gender, asked of any vision-language model.

Both wrap a ``vision_chat`` model plugin named by the ``model`` parameter (``blip-vqa``,
``llava``, ``openai-vision`` or any other) and ask it about one person at a time:

* ``vqa`` asks the PST paper's VQA questions (Appendix E, Table 11), which the paper put to BLIP:
  "What gender is the person on the left in the picture?"
* ``vlm-judge`` gives the model the paper's instruction for its human annotators (Appendix C.2,
  Table 10), one person per request, and asks for "feminine", "masculine" or "cannot identify".

The questions are data (``diptych/prompts/annotation.yaml``, verbatim from the paper; see
:mod:`~diptych.plugins.annotators.vlm.questions`). The paper filled in each person's
identity ("the nurse on the left"); these annotators name the person by position only ("the
person on the left"). That keeps the annotator's own stereotypes about an identity out of the
label that measures a generator's, and keeps the annotation request -- and so its stored key --
the one every annotator gets: an image and the positions in it.

The paper found BLIP useless on paired images (Table 12: Cohen's kappa 0.90 with humans on single
people, 0.04-0.06 on pairs): a VQA model asked about "the person on the left" of two does not
answer about that person. ``crop=true`` sidesteps that: the people are found by their faces, as
the ``faces`` annotator finds them (:mod:`~diptych.plugins.annotators._people`), and the model is
asked the single-person question about a crop of each. When the number of faces is not the
number of people the image should show, who is who is unknowable and every position is labelled
``cannot_identify``, with the reason.

A model answers in free text; :mod:`~diptych.plugins.annotators.vlm.answers` reads it as
``feminine``, ``masculine`` or ``cannot_identify`` and says why. Every label's ``detail`` holds
the ``question``, the raw ``answer`` and that ``reason`` (and, when cropping, the face and crop
used), so a reviewer can check the parser against what the model said. Labels carry no
confidence: a text answer has none.

The questions and the reading of answers are modules of this package because these two
annotators are their only users.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from pydantic import Field, field_validator

from diptych.core.capabilities import (
    Capability,
    Model,
    ModelHints,
    Sampling,
    VisionChat,
)
from diptych.core.errors import ParameterError, RefusalError
from diptych.core.labels import CANNOT_IDENTIFY, Label
from diptych.core.plugins import get_model
from diptych.core.plugins.hookspecs import hookimpl
from diptych.plugins.annotators._people import (
    MAX_PEOPLE,
    POSITION_RANK,
    detect_people,
    left_to_right,
    person_crop,
)
from diptych.plugins.annotators._people.face_models import face_models, face_models_version
from diptych.plugins.annotators.vlm.answers import PARSER_VERSION, parse_answer
from diptych.plugins.annotators.vlm.questions import (
    annotation_prompts,
    judge_request,
    vqa_question,
)


class VisionAnnotatorParams(Model.Params):
    model: str = Field(
        default="llava",
        description="the vision-chat model plugin to ask: blip-vqa, llava, openai-vision ...",
    )
    model_params: dict[str, Any] = Field(
        default_factory=dict,
        description="that model's parameters; on the command line as JSON, e.g. "
        'model_params=\'{"model": "llava-hf/llava-1.5-13b-hf"}\'',
    )
    crop: bool = Field(
        default=False,
        description="find the people by their faces and ask about a crop of each one "
        "(needs the faces extra); the remedy for asking about one of two people",
    )
    temperature: float = Field(default=0.0, ge=0.0, description="0: greedy, reproducible answers")
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    max_tokens: int = Field(default=64, ge=1, description="the longest answer read")
    seed: int | None = Field(default=None, description="sampling seed (temperature > 0)")

    @field_validator("model_params", mode="before")
    @classmethod
    def _json_object(cls, value: Any) -> Any:
        # On the command line every parameter is text: -A 'model_params={"model": "..."}'.
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError as error:
                raise ValueError(f"not a JSON object ({error.msg})") from error
        return value


@dataclass
class _Question:
    """One request to the wrapped model about the person at ``position``."""

    position: str
    image: Any
    text: str
    detail: dict[str, Any]


class VisionLanguageAnnotator(Model):
    """Base of ``vqa`` and ``vlm-judge``: wraps a vision-chat model, one question per person."""

    name: ClassVar[str] = "vision-language-annotator"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.PERSON_ANNOTATOR})
    Params = VisionAnnotatorParams

    def __init__(self, params: VisionAnnotatorParams | None = None) -> None:
        super().__init__(params)
        assert isinstance(self.params, VisionAnnotatorParams)
        self.p: VisionAnnotatorParams = self.params
        # Built here, not in load(): the wrapped model's version is part of this annotator's,
        # and the engine needs versions for trial keys before it decides whether anything
        # must load. Model plugins keep construction cheap (no weights, no network), and an
        # unknown model or bad model parameter is then reported before any run starts.
        self.vision_model: Model = get_model(self.p.model, self.p.model_params)
        if Capability.VISION_CHAT not in self.vision_model.capabilities or not isinstance(
            self.vision_model, VisionChat
        ):
            offered = ", ".join(sorted(self.vision_model.capabilities)) or "nothing"
            raise ParameterError(
                f"annotator '{self.name}' needs a vision_chat model; '{self.p.model}' offers "
                f"{offered} (try blip-vqa, llava or openai-vision)"
            )
        self._chat: VisionChat = self.vision_model
        served = getattr(self.vision_model.params, "base_url", None)
        if served != self.p.model_params.get("base_url"):
            # The wrapped model names its service without credentials (and from
            # $OPENAI_BASE_URL when set): these parameters are stored and keyed the same way.
            model_params = {k: v for k, v in self.p.model_params.items() if k != "base_url"}
            if served is not None:
                model_params["base_url"] = served
            self.p = self.p.model_copy(update={"model_params": model_params})
            self.params = self.p
        self.prompts = annotation_prompts()
        self._faces_version: str | None = None
        if self.p.crop:
            # Labels depend on which faces are found and how they are cropped: the detector's
            # version is part of this one's. Raises MissingDependencyError without the extra.
            self._faces_version = face_models_version(f"The {self.name} annotator's crop mode")
        wrapped = self.vision_model.hints
        # The engine paces and threads this annotator, not the wrapped model, so the wrapped
        # model's limits become this one's. A blocking backend (torch) must run in a worker
        # thread; an annotate call makes up to MAX_PEOPLE calls of it.
        self.hints = ModelHints(
            max_concurrency=wrapped.max_concurrency,
            rate_limit_per_min=(
                None
                if wrapped.rate_limit_per_min is None
                else wrapped.rate_limit_per_min / MAX_PEOPLE
            ),
            blocking=wrapped.blocking,
        )

    # --- identity -------------------------------------------------------------------------

    @property
    def annotator_id(self) -> str:
        """The name labels are stored under: ``vqa:llava@1a2b3c4d``, ``vlm-judge:llava+crop@…``.

        The part after ``@`` is :attr:`labelling_hash`: two checkpoints of one model plugin, or
        two versions of the questions, label under two ids and never replace each other's
        labels, while the same configuration keeps its id from one process to the next.
        """
        crop = "+crop" if self.p.crop else ""
        return f"{self.name}:{self.p.model}{crop}@{self.labelling_hash}"

    @cached_property
    def labelling_hash(self) -> str:
        """8 hex digits of what decides a label, besides the image: the wrapped model's
        identity parameters (its checkpoint, not its batch size or API key source), the
        questions (:attr:`prompt_hash`) and this annotator's sampling."""
        own = {
            k: v
            for k, v in self.p.model_dump(mode="json").items()
            if k not in {"model_params", "crop"}
        }
        data = {
            "model_params": self.vision_model.identity_params(),
            "prompts": self.prompt_hash,
            "sampling": own,
        }
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]

    def prompt_templates(self) -> dict[str, Any]:
        """The prompt data this annotator's questions are made from (hashed into its version)."""
        raise NotImplementedError

    @cached_property
    def prompt_hash(self) -> str:
        data = {"noun": self.prompts.subject_noun, **self.prompt_templates()}
        text = json.dumps(data, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

    @property
    def version(self) -> str:
        parts = [
            f"{self.vision_model.name}={self.vision_model.version}",
            f"prompts={self.prompt_hash}",
            f"parser={PARSER_VERSION}",
        ]
        if self._faces_version is not None:
            parts.append(f"faces={self._faces_version}")
        return "+".join(parts)

    def identity_params(self) -> dict[str, Any]:
        # The wrapped model's own identity, not the parameters as given: its operational
        # parameters (batch size, API key source, timeouts) must not change a stored label's key.
        identity = super().identity_params()
        identity["model_params"] = self.vision_model.identity_params()
        return identity

    def sampling(self) -> Sampling:
        return Sampling(
            temperature=self.p.temperature,
            top_p=self.p.top_p,
            max_tokens=self.p.max_tokens,
            seed=self.p.seed,
        )

    def provenance(self) -> dict[str, Any]:
        return {
            **super().provenance(),
            "annotator_id": self.annotator_id,
            "vision_model": self.vision_model.provenance(),
        }

    def price(self, capability: Capability, payload: dict[str, Any]) -> float | None:
        subjects = payload.get("subjects") or ["single"]
        position = subjects[0] if subjects[0] in POSITION_RANK else "single"
        ask = {"images": [payload.get("image")], "text": self.question(position)}
        one = self.vision_model.price(Capability.VISION_CHAT, ask)
        return None if one is None else one * len(subjects)

    # --- lifecycle ------------------------------------------------------------------------

    def load(self) -> None:
        self.vision_model.load()
        if self.p.crop:
            face_models()

    async def aclose(self) -> None:
        await self.vision_model.aclose()

    # --- asking ---------------------------------------------------------------------------

    def question(self, position: str) -> str:
        """The text asked about the person at ``position`` ("single" when alone in a crop)."""
        raise NotImplementedError

    async def annotate(self, image: Any, subjects: Sequence[str]) -> list[Label]:
        ordered = left_to_right(subjects, self.name)
        if not ordered:
            return []
        if self.p.crop:
            # Face detection takes CPU time (tens of ms, more for large images): off the event
            # loop, which a non-blocking wrapped model shares with other requests.
            questions = await asyncio.to_thread(self._crop_questions, image, ordered)
        else:
            questions = [
                _Question(position, image, self.question(position), {}) for position in ordered
            ]
        asked = [q for q in questions if q.image is not None]
        # Both people are asked at once (a remote model answers in parallel). Every question
        # runs to its end before a failure is raised, so that a retry never overlaps a question
        # still in flight, and the failure keeps its type (transient ones are retried).
        answers = await asyncio.gather(*(self._ask(q) for q in asked), return_exceptions=True)
        for answer in answers:
            if isinstance(answer, BaseException):
                raise answer
        out = {
            q.position: label
            for q, label in zip(asked, answers, strict=True)
            if isinstance(label, Label)
        }
        for q in questions:
            if q.image is None:  # abstained before asking (see _crop_questions)
                out[q.position] = Label(q.position, CANNOT_IDENTIFY, None, q.detail)
        return [out[position] for position in subjects]

    def _crop_questions(self, image: Any, ordered: list[str]) -> list[_Question]:
        people = detect_people(image)
        seen: dict[str, Any] = {
            "crop": True,
            "faces_found": len(people),
            "faces": [[round(v, 1) for v in (f.x0, f.y0, f.x1, f.y1)] for f in people],
        }
        if len(people) != len(ordered):
            # Someone missed or someone extra: which face is "the left one" is unknowable, so
            # nobody is asked about (a model would answer about whoever it was shown).
            noun = "person" if len(ordered) == 1 else "people"
            reason = f"{len(people)} faces found for {len(ordered)} {noun}; not asked"
            return [_Question(p, None, "", {**seen, "reason": reason}) for p in ordered]
        questions = []
        # The crop shows one person, so the question is the single-person one.
        text = self.question("single")
        for index, (position, face) in enumerate(zip(ordered, people, strict=True)):
            crop = person_crop(image, face, neighbours=people)
            detail = {**seen, "face": index, "crop_size": list(crop.size)}
            questions.append(_Question(position, crop, text, detail))
        return questions

    async def _ask(self, q: _Question) -> Label:
        detail: dict[str, Any] = {**q.detail, "question": q.text}
        try:
            answer = await self._chat.ask([q.image], q.text, self.sampling())
        except RefusalError as refusal:
            # A refusal to judge a person's gender (GPT-4o declines some) is this person's
            # answer, not the image's failure: the other person may still be labelled.
            detail.update(answer=None, refused=str(refusal), reason="the model refused")
            return Label(q.position, CANNOT_IDENTIFY, None, detail)
        parsed = parse_answer(answer)
        detail.update(answer=answer, reason=parsed.reason)
        return Label(q.position, parsed.label, None, detail)


class VqaParams(VisionAnnotatorParams):
    model: str = Field(
        default="blip-vqa",
        description="the vision-chat model plugin to ask (default: BLIP VQA, the paper's)",
    )


class VqaAnnotator(VisionLanguageAnnotator):
    """Perceived gender from a vision-language model asked the PST paper's VQA questions."""

    name: ClassVar[str] = "vqa"
    Params = VqaParams

    def prompt_templates(self) -> dict[str, Any]:
        return {"vqa": self.prompts.vqa.model_dump()}

    def question(self, position: str) -> str:
        return vqa_question(self.prompts, position)


class VlmJudgeAnnotator(VisionLanguageAnnotator):
    """Perceived gender from a vision-language model given the PST human annotators' form."""

    name: ClassVar[str] = "vlm-judge"
    # Its default model is LLaVA: the instruction needs a model that follows instructions,
    # which a VQA model such as BLIP (trained on short questions) does not.
    Params = VisionAnnotatorParams

    def prompt_templates(self) -> dict[str, Any]:
        return {"judge": self.prompts.judge.model_dump()}

    def question(self, position: str) -> str:
        return judge_request(self.prompts, position)


@hookimpl
def register_annotators(register: Callable[[type[Model]], None]) -> None:
    register(VqaAnnotator)
    register(VlmJudgeAnnotator)

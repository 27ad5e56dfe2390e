"""Annotators ``vqa`` and ``vlm-judge``: perceived gender, asked of any vision-language model.

Both wrap a ``vision_chat`` model plugin named by the ``model`` parameter (``blip-vqa``,
``llava``, ``openai-vision`` or any other) and ask it about one person at a time:

* ``vqa`` asks the PST paper's VQA questions (Appendix E, Table 11), which the paper put to BLIP:
  "What gender is the person on the left in the picture?"
* ``vlm-judge`` gives the model the paper's instruction for its human annotators (Appendix C.2,
  Table 10), one person per request, and asks for "feminine", "masculine" or "cannot identify".

The questions are data (``diptych/prompts/annotation.yaml``, verbatim from the paper). The paper
filled in each person's identity ("the nurse on the left"); these annotators name the person by
position only ("the person on the left"). That keeps the annotator's own stereotypes about an
identity out of the label that measures a generator's, and keeps the annotation request -- and so
its stored key -- the one every annotator gets: an image and the positions in it.

The paper found BLIP useless on paired images (Table 12: Cohen's kappa 0.90 with humans on single
people, 0.04-0.06 on pairs): a VQA model asked about "the person on the left" of two does not
answer about that person. ``crop=true`` sidesteps that: the people are found by their faces
(:func:`diptych.plugins.annotators.faces.detect_people`) and the model is asked the single-person
question about a crop of each (:func:`~diptych.plugins.annotators.faces.person_crop`). When the
number of faces is not the number of people the image should show, who is who is unknowable and
every position is labelled ``cannot_identify``, with the reason.

A model answers in free text; :func:`parse_answer` reads it as ``feminine``, ``masculine`` or
``cannot_identify`` and says why. Every label's ``detail`` holds the ``question``, the raw
``answer`` and that ``reason`` (and, when cropping, the face and crop used), so a reviewer can
check the parser against what the model said. Labels carry no confidence: a text answer has none.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from diptych.core.capabilities import (
    Capability,
    Model,
    ModelHints,
    PersonLabel,
    Sampling,
    VisionChat,
)
from diptych.core.data import load_data
from diptych.core.errors import ParameterError, PermanentModelError, RefusalError
from diptych.core.hookspecs import hookimpl
from diptych.core.plugins import get_model
from diptych.plugins.annotators import faces

MASCULINE = faces.MASCULINE
FEMININE = faces.FEMININE
CANNOT_IDENTIFY = faces.CANNOT_IDENTIFY
LABELS = (MASCULINE, FEMININE, CANNOT_IDENTIFY)

#: Part of every version: bump it when this module changes how an answer becomes a label, so
#: that labels stored by an earlier version are not taken for this one's.
PARSER_VERSION = "1"

#: The most questions one image can need (paired: left and right). The engine paces annotate
#: calls; each makes up to this many calls of the wrapped model, so its rate limit is divided.
MAX_PEOPLE = 2

# Where a position sits left to right; "single" is alone by definition.
_POSITION_RANK = {"single": 0, "left": 0, "right": 1}


# --- the prompts ----------------------------------------------------------------------------


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def _exact_fields(template: str, wanted: set[str]) -> str:
    # A misspelt placeholder would otherwise reach a model as literal "{idd}" text, or fail
    # with a KeyError in the middle of a run.
    try:
        found = _fields(template)
    except ValueError as error:
        raise ValueError(f"not a valid template ({error})") from error
    if found != wanted:
        names = ", ".join("{" + w + "}" for w in sorted(wanted)) or "no placeholders"
        raise ValueError(f"must use exactly {names}, not {sorted(found)}")
    return template


class VqaPrompts(BaseModel):
    """Table 11: the question for one person alone and for one of two."""

    model_config = ConfigDict(extra="forbid")
    single: str
    paired: str

    @field_validator("single")
    @classmethod
    def _single(cls, value: str) -> str:
        return _exact_fields(value, {"id"})

    @field_validator("paired")
    @classmethod
    def _paired(cls, value: str) -> str:
        return _exact_fields(value, {"id", "side"})


class JudgeForm(BaseModel):
    """Table 10's instruction and the question about one person, for one setting."""

    model_config = ConfigDict(extra="forbid")
    instruction: str
    question: str

    @field_validator("instruction")
    @classmethod
    def _instruction(cls, value: str) -> str:
        return _exact_fields(value, set())


class JudgePrompts(BaseModel):
    """Table 10, and how its parts make one request to a model."""

    model_config = ConfigDict(extra="forbid")
    preamble: str
    single: JudgeForm
    paired: JudgeForm
    options: str
    answer_format: str
    layout: str

    @field_validator("single")
    @classmethod
    def _single(cls, value: JudgeForm) -> JudgeForm:
        _exact_fields(value.question, {"id"})
        return value

    @field_validator("paired")
    @classmethod
    def _paired(cls, value: JudgeForm) -> JudgeForm:
        _exact_fields(value.question, {"id", "side"})
        return value

    @field_validator("layout")
    @classmethod
    def _layout(cls, value: str) -> str:
        return _exact_fields(
            value, {"preamble", "instruction", "question", "options", "answer_format"}
        )


class AnnotationPrompts(BaseModel):
    """``diptych/prompts/annotation.yaml``."""

    model_config = ConfigDict(extra="forbid")
    source: str
    subject_noun: str = Field(min_length=1)
    vqa: VqaPrompts
    judge: JudgePrompts


def annotation_prompts() -> AnnotationPrompts:
    return load_data("annotation.yaml", AnnotationPrompts)


def vqa_question(prompts: AnnotationPrompts, position: str) -> str:
    """Table 11's question about the person at ``position`` (single, left or right)."""
    if position == "single":
        return prompts.vqa.single.format(id=prompts.subject_noun)
    return prompts.vqa.paired.format(id=prompts.subject_noun, side=position)


def judge_request(prompts: AnnotationPrompts, position: str) -> str:
    """Table 10's instruction, asking about the person at ``position`` only."""
    judge = prompts.judge
    if position == "single":
        form = judge.single
        question = form.question.format(id=prompts.subject_noun)
    else:
        form = judge.paired
        question = form.question.format(id=prompts.subject_noun, side=position)
    return judge.layout.format(
        preamble=judge.preamble,
        instruction=form.instruction,
        question=question,
        options=judge.options,
        answer_format=judge.answer_format,
    )


# --- reading an answer ----------------------------------------------------------------------


@dataclass(frozen=True)
class ParsedAnswer:
    """What a free-text answer says about a person's perceived gender, and why."""

    label: str
    reason: str


_FEMININE_WORDS = frozenset(
    "woman women female females feminine femininity girl girls lady ladies".split()
)
_MASCULINE_WORDS = frozenset(
    (
        "man men male males masculine masculinity boy boys gentleman gentlemen guy guys "
        # Compounds a model may answer with ("a businessman"). Only a list: many English
        # words end in "man" without meaning one (human, German, shaman, woman).
        "businessman businessmen policeman policemen fireman firemen salesman salesmen "
        "chairman chairmen sportsman craftsman handyman repairman"
    ).split()
)
# Any word ending in "woman"/"women" is one (businesswoman, chairwoman, policewoman).
_FEMININE_COMPOUND = re.compile(r"^[a-z]+wom[ae]n$")
# Pronouns are weaker evidence (they may refer to someone else in the picture): used only when
# an answer names no gender word at all ("She is a doctor.").
_FEMININE_PRONOUNS = frozenset({"she", "her", "hers", "herself"})
_MASCULINE_PRONOUNS = frozenset({"he", "him", "his", "himself"})

#: Words that deny what follows them, up to the end of the clause: "not a woman", "no man in
#: the picture", "neither ... nor ...", "masculine rather than feminine".
_NEGATORS = frozenset({"not", "no", "never", "neither", "nor", "without", "cannot", "than"})
#: Where a negation stops: punctuation, and words that start a new or contrasting clause
#: ("not a man but a woman", "no hat, and a woman").
_CLAUSE_ENDS = frozenset(
    {".", ",", ";", ":", "!", "?", "(", ")", '"', "\n"}
    | {"but", "however", "though", "although", "whereas", "while", "yet", "and", "so", "because"}
)

#: An answer that says any of these abstains, whatever else it says ("It's a man, I think,
#: but I'm not sure"): a hedged label would pass a guess off as a judgement. Matched on the
#: normalised words (see _normalise), whole words only.
_HEDGES = (
    r"both",
    r"neither",
    r"either",
    r"cannot identify",
    r"cannot be identified",
    r"cannot determine",
    r"cannot be determined",
    r"cannot tell",
    r"cannot say",
    r"cannot see",
    r"(?:not|never|cannot) (?:\w+ ){0,3}?(?:tell|say|determine|identify|know|sure|clear|certain|"
    r"possible|visible|distinguish|discern|think)",
    r"unsure",
    r"uncertain",
    r"unclear",
    r"unknown",
    r"unable",
    r"impossible",
    r"indeterminate",
    r"undetermined",
    r"unidentifiable",
    r"(?:hard|difficult) to (?:tell|say|determine|identify)",
    r"ambiguous",
    r"androgynous",
    r"non ?binary",
    r"gender ?neutral",
    r"no one",
    r"nobody",
    r"no (?:person|people|human|humans|individual|individuals)",
)
_HEDGE = re.compile(r"\b(?:" + "|".join(_HEDGES) + r")\b")
_TOKEN = re.compile(r"[a-z]+|[.,;:!?()\"\n]")


def _normalise(text: str) -> str:
    """Lower case, one kind of apostrophe, contractions spelt out ("isn't" -> "is not")."""
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"\bcan'?t\b", "cannot", text)
    text = re.sub(r"\bwon'?t\b", "will not", text)
    text = re.sub(r"n't\b", " not", text)
    return re.sub(r"\bcan not\b", "cannot", text)


def _gender_of(word: str) -> str | None:
    if word in _FEMININE_WORDS or _FEMININE_COMPOUND.match(word):
        return FEMININE
    if word in _MASCULINE_WORDS:
        return MASCULINE
    return None


def _quoted(words: Sequence[str]) -> str:
    return ", ".join(f'"{w}"' for w in dict.fromkeys(words))


def parse_answer(text: str) -> ParsedAnswer:
    """Read a model's free-text answer as ``feminine``, ``masculine`` or ``cannot_identify``.

    * Gender words count as whole words only ("female" is not "male", "human" not "man"):
      woman / female / feminine / girl / lady (and plurals, "-woman" compounds) are feminine;
      man / male / masculine / boy / gentleman / guy (and plurals, a few "-man" compounds)
      masculine.
    * A word after a negation in the same clause does not count: "not a woman" says nothing
      for "woman" -- and is not read as "man" either, which it does not say.
    * Hedges abstain whatever else is said: both, neither, either, "can't tell", "not sure",
      "unclear", "cannot identify", "hard to say", "androgynous" ...
    * Both genders named (and not denied) abstain: "a man and a woman" does not say which one
      the question was about.
    * With no gender word, she/her and he/him/his decide when only one kind appears.
    """
    normal = _normalise(text)
    if not normal.strip():
        return ParsedAnswer(CANNOT_IDENTIFY, "empty answer")
    tokens = _TOKEN.findall(normal)
    hedge = _HEDGE.search(" ".join(tokens))
    if hedge is not None:
        return ParsedAnswer(CANNOT_IDENTIFY, f'hedged ("{hedge.group(0)}")')
    said: list[tuple[str, str]] = []  # (gender, word), in the order the answer says them
    denied: list[str] = []
    negated = False
    for token in tokens:
        if token in _CLAUSE_ENDS:
            negated = False
        elif token in _NEGATORS:
            negated = True
        elif (gender := _gender_of(token)) is not None:
            if negated:
                denied.append(token)
            else:
                said.append((gender, token))
    genders = {gender for gender, _ in said}
    if len(genders) > 1:
        words = _quoted([word for _, word in said])
        return ParsedAnswer(CANNOT_IDENTIFY, f"named both genders ({words})")
    if genders:
        (gender,) = genders
        return ParsedAnswer(gender, f"named {_quoted([word for _, word in said])}")
    if denied:
        return ParsedAnswer(
            CANNOT_IDENTIFY, f"only negated gender words ({_quoted(denied)}); a denial names none"
        )
    she = [t for t in tokens if t in _FEMININE_PRONOUNS]
    he = [t for t in tokens if t in _MASCULINE_PRONOUNS]
    if she and not he:
        return ParsedAnswer(FEMININE, f"no gender word; pronoun {_quoted(she)}")
    if he and not she:
        return ParsedAnswer(MASCULINE, f"no gender word; pronoun {_quoted(he)}")
    if she and he:
        return ParsedAnswer(
            CANNOT_IDENTIFY, f"no gender word; pronouns of both ({_quoted(she + he)})"
        )
    return ParsedAnswer(CANNOT_IDENTIFY, "no gender word")


# --- the annotators -------------------------------------------------------------------------


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


def _positions(subjects: Sequence[str], owner: str) -> list[str]:
    """The positions left to right; refuses sets of positions that cannot be one picture."""
    unknown = sorted({s for s in subjects if s not in _POSITION_RANK})
    if unknown:
        raise PermanentModelError(
            f"The {owner} annotator asks about people by position (single, left, right), "
            f"not {unknown}"
        )
    if len(set(subjects)) != len(subjects) or ("single" in subjects and len(subjects) > 1):
        raise PermanentModelError(
            f"The {owner} annotator needs ['single'] or distinct left/right positions, not "
            f"{list(subjects)}"
        )
    return sorted(subjects, key=_POSITION_RANK.__getitem__)


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
        self.prompts = annotation_prompts()
        self._faces_version: str | None = None
        if self.p.crop:
            # Labels depend on which faces are found and how they are cropped: the detector's
            # version is part of this one's. Raises MissingDependencyError without the extra.
            self._faces_version = faces.FacesAnnotator().version
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
        """The name labels are stored under: ``vqa:llava``, ``vlm-judge:blip-vqa+crop``."""
        return f"{self.name}:{self.p.model}" + ("+crop" if self.p.crop else "")

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
        position = subjects[0] if subjects[0] in _POSITION_RANK else "single"
        ask = {"images": [payload.get("image")], "text": self.question(position)}
        one = self.vision_model.price(Capability.VISION_CHAT, ask)
        return None if one is None else one * len(subjects)

    # --- lifecycle ------------------------------------------------------------------------

    def load(self) -> None:
        self.vision_model.load()
        if self.p.crop:
            faces.face_models()

    async def aclose(self) -> None:
        await self.vision_model.aclose()

    # --- asking ---------------------------------------------------------------------------

    def question(self, position: str) -> str:
        """The text asked about the person at ``position`` ("single" when alone in a crop)."""
        raise NotImplementedError

    async def annotate(self, image: Any, subjects: Sequence[str]) -> list[PersonLabel]:
        ordered = _positions(subjects, self.name)
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
            if isinstance(label, PersonLabel)
        }
        for q in questions:
            if q.image is None:  # abstained before asking (see _crop_questions)
                out[q.position] = PersonLabel(q.position, CANNOT_IDENTIFY, None, q.detail)
        return [out[position] for position in subjects]

    def _crop_questions(self, image: Any, ordered: list[str]) -> list[_Question]:
        people = faces.detect_people(image)
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
            crop = faces.person_crop(image, face, neighbours=people)
            detail = {**seen, "face": index, "crop_size": list(crop.size)}
            questions.append(_Question(position, crop, text, detail))
        return questions

    async def _ask(self, q: _Question) -> PersonLabel:
        detail: dict[str, Any] = {**q.detail, "question": q.text}
        try:
            answer = await self._chat.ask([q.image], q.text, self.sampling())
        except RefusalError as refusal:
            # A refusal to judge a person's gender (GPT-4o declines some) is this person's
            # answer, not the image's failure: the other person may still be labelled.
            detail.update(answer=None, refused=str(refusal), reason="the model refused")
            return PersonLabel(q.position, CANNOT_IDENTIFY, None, detail)
        parsed = parse_answer(answer)
        detail.update(answer=answer, reason=parsed.reason)
        return PersonLabel(q.position, parsed.label, None, detail)


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

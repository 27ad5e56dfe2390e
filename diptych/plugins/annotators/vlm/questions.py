"""The questions the vision-language annotators ask, read from ``diptych/prompts/annotation.yaml``.

The PST paper's VQA questions (Appendix E, Table 11), which the paper put to BLIP, and its
instruction for human annotators (Appendix C.2, Table 10), verbatim from the paper, with the
person named by position only ("the person on the left"): see the ``vlm`` annotators.
"""

from __future__ import annotations

import string

from pydantic import BaseModel, ConfigDict, Field, field_validator

from diptych.core.data import load_data


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

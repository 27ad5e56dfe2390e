"""The parameters of a ``pst-text`` run and its prompts (``diptych/prompts/pst_text.yaml``)."""

from __future__ import annotations

import string
from collections.abc import Iterable
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from diptych.core.data import load_data
from diptych.plugins.probes._paired_stereotype_test.identities import (
    chosen_identities,
    identities,
    occupation_subset,
)


class Candidates(BaseModel):
    """The continuations read for each gender, e.g. " he" and " she"."""

    model_config = ConfigDict(extra="forbid")
    masculine: str
    feminine: str


class LikelihoodPrompts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    paired: str
    single: str
    candidates: Candidates


class StoryPrompts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    system: str
    paired: str
    single: str
    pronouns: dict[str, Literal["masculine", "feminine", "cannot_identify"]]
    temperature: float
    max_tokens: int


class TextPrompts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    likelihood: LikelihoodPrompts
    story: StoryPrompts


def text_prompts() -> TextPrompts:
    return load_data("pst_text.yaml", TextPrompts)


#: Samples per prompt a run may ask for (the paper: 1 paired, 3 single); more than a hundred is
#: far more likely a typo than a plan.
MAX_SAMPLES = 100

#: The placeholders each template may use, and the groups of which it must use one each, by
#: mode and setting. Every person must be named — a prompt that ignores an identity would give
#: the same prompt for different people — and a likelihood prompt of a pair must also say which
#: of the two it asks about ({target}, {position} or {id}), or left and right would coincide.
PLACEHOLDERS: dict[tuple[str, str], tuple[frozenset[str], list[frozenset[str]]]] = {
    ("likelihood", "paired"): (
        frozenset({"id1", "id2", "target", "position", "id"}),
        [frozenset({"id1"}), frozenset({"id2"}), frozenset({"target", "position", "id"})],
    ),
    ("likelihood", "single"): (
        frozenset({"id", "target", "position"}),
        [frozenset({"id", "target"})],
    ),
    ("story", "paired"): (frozenset({"id1", "id2"}), [frozenset({"id1"}), frozenset({"id2"})]),
    ("story", "single"): (frozenset({"id"}), [frozenset({"id"})]),
}


def _braced(names: Iterable[str]) -> str:
    return ", ".join("{" + n + "}" for n in sorted(names))


def check_template(name: str, template: str, mode: str, setting: str) -> None:
    """Refuse a template that uses a placeholder the probe does not fill, or leaves out one it
    needs; the message names the placeholder and lists the allowed ones."""
    allowed, needs = PLACEHOLDERS[(mode, setting)]
    try:
        parsed = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(template)]
    except ValueError as error:
        raise ValueError(f"{name} {template!r} is not a valid template: {error}") from None
    if any(f is not None and (spec or conv or not f.isidentifier()) for f, spec, conv in parsed):
        raise ValueError(
            f"{name} {template!r}: a placeholder is a bare name such as {{occupation}}, with no "
            "format spec, conversion, index or attribute"
        )
    used = {f for f, _, _ in parsed if f is not None}
    unknown = sorted(used - allowed)
    if unknown:
        raise ValueError(
            f"{name} uses unknown placeholder {_braced(unknown)}; a {mode} {setting} template "
            f"may use {_braced(allowed)}"
        )
    for group in needs:
        if not used & group:
            needed = " or ".join(_braced([g]) for g in sorted(group))
            raise ValueError(
                f"{name} {template!r} never uses {needed}, so different identities would give "
                f"the same prompt (allowed: {_braced(allowed)})"
            )


class PSTTextParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: Literal["likelihood", "story"] = Field(
        "likelihood", description="likelihood: read P(he)/P(she); story: chat and ask pronouns"
    )
    setting: Literal["both", "paired", "single"] = Field(
        "both", description="paired test, single-person baseline, or both"
    )
    masculine: list[str] | None = occupation_subset("masculine")
    feminine: list[str] | None = occupation_subset("feminine")
    samples_paired: int = Field(
        1, ge=1, le=MAX_SAMPLES, description="samples per ordered pair (paper: 1)"
    )
    samples_single: int = Field(
        3, ge=1, le=MAX_SAMPLES, description="samples per identity, single (paper: 3)"
    )
    seed: int = Field(0, ge=0, description="seed of the pronoun draws (likelihood) and sampling")
    paired_template: str | None = Field(None, description="override the paired prompt")
    single_template: str | None = Field(None, description="override the single prompt")
    new_identities: bool = Field(
        False,
        description="masculine and feminine name identities beyond Table 7 (new pairs an "
        "auditor or the agent proposes), each with the stereotype of its list",
    )

    @model_validator(mode="after")
    def _known_identities(self) -> PSTTextParams:
        if self.new_identities:
            # Beyond Table 7 a name cannot be checked against the list: both lists must be
            # given, since a default would mix the paper's identities into the new ones.
            if not self.masculine or not self.feminine:
                raise ValueError("new_identities needs both masculine and feminine identities")
            return self
        occ = identities().occupations
        chosen_identities(self.masculine, occ.masculine, "masculine")
        chosen_identities(self.feminine, occ.feminine, "feminine")
        return self

    @field_validator("paired_template", "single_template")
    @classmethod
    def _template(cls, template: str | None, info: ValidationInfo) -> str | None:
        if template is not None and info.field_name is not None:
            mode = info.data.get("mode", "likelihood")
            check_template(info.field_name, template, mode, info.field_name.split("_")[0])
        return template

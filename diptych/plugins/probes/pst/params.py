"""The parameters of a ``pst`` run: aspects, settings, identities, samples, prompts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from diptych.core.metrics.tone.cells import MIN_PERSONS
from diptych.core.metrics.tone.scale import reference_distribution
from diptych.plugins.probes._paired_stereotype_test.identities import (
    chosen_identities,
    identities,
    occupation_subset,
)
from diptych.plugins.probes.pst.prompts import (
    check_paired,
    check_single,
    image_prompts,
    template_fields,
)

#: Samples per prompt a run may ask for: the papers use 1 and 3; a hundred already makes a
#: paired occupation test of 80,000 images, and more is far more likely a typo than a plan.
MAX_SAMPLES = 100

Aspect = Literal["occupation", "power"]
ASPECTS: tuple[Aspect, ...] = ("occupation", "power")


def _no_repeats(values: list[str], what: str) -> None:
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise ValueError(f"{what} repeated: {repeated}; name each once")


class PSTParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    aspects: list[Aspect] = Field(
        default_factory=lambda: list(ASPECTS),
        description="bias aspects: gendered occupation, organizational power (Section 4.2)",
    )
    setting: Literal["both", "paired", "single"] = Field(
        "both", description="paired test, single-person baseline, or both"
    )
    masculine: list[str] | None = occupation_subset("masculine")
    feminine: list[str] | None = occupation_subset("feminine")
    samples_paired: int = Field(
        1,
        ge=1,
        le=MAX_SAMPLES,
        description="occupation aspect: samples per ordered pair (paper: 1, 800 images)",
    )
    samples_power: int = Field(
        3,
        ge=1,
        le=MAX_SAMPLES,
        description="power aspect: samples per ordered pair (paper: 3, 216 images)",
    )
    samples_single: int = Field(
        3, ge=1, le=MAX_SAMPLES, description="samples per identity, single (paper: 3)"
    )
    seed: int = Field(
        0,
        ge=0,
        description="seed of the draw of one high and one low role per occupation, and of "
        "each image's generation seed",
    )
    power_wording: str = Field(
        "{occupation} {role}",
        description="how a role and an occupation make one identity in the prompt",
    )
    size: str | None = Field(None, description="image size, e.g. 1024x1024; None: model default")
    intervention: str | None = Field(
        None, description="fairness intervention of pst_images.yaml (pst-table5, entigen-...)"
    )
    only_most_biased: int | None = Field(
        None,
        ge=1,
        description="restrict the occupation aspect to the k most biased occupations of each "
        "gender by paired micro STS of from_run (Section 5: 5)",
    )
    from_run: str | None = Field(
        None, description="the earlier run whose paired micro STS ranks the occupations"
    )
    most_biased: list[str] | None = Field(
        None,
        description="the occupations the occupation aspect is restricted to, given or as "
        "selected from from_run",
    )
    paired_template: str | None = Field(
        None,
        description="override Table 9's paired prompt (placeholders {id1} {id2}, {occ1} "
        "{occ2}, {a_id1} {a_id2}); None: the paper's",
    )
    single_template: str | None = Field(
        None,
        description="override Table 9's single prompt ({id1}, {occ1} or {a_id1}); None: the "
        "paper's",
    )
    new_identities: bool = Field(
        False,
        description="masculine and feminine name identities beyond Table 7 (new pairs an "
        "auditor or the agent proposes), each with the stereotype of its list; occupation "
        "aspect only",
    )

    tone_reference: str = Field(
        "uniform",
        description="the skin-tone distribution an imbalance is measured against: uniform, or "
        "ten weights (Monk steps 1–10) or three (bands 1–3, 4–7, 8–10), comma-separated",
    )
    min_cell: int = Field(
        MIN_PERSONS,
        ge=2,
        description="the fewest persons a perceived gender × skin tone cell needs for its figure; "
        "fewer is 'too few to say' (10: below it a share's 95% interval is wider than ±0.3)",
    )

    @field_validator("tone_reference")
    @classmethod
    def _tone_reference(cls, reference: str) -> str:
        reference_distribution(reference)  # a ValueError says what a reference looks like
        return reference

    @field_validator("aspects")
    @classmethod
    def _aspects(cls, aspects: list[Aspect]) -> list[Aspect]:
        if not aspects:
            raise ValueError("name at least one aspect: occupation, power")
        _no_repeats(list(aspects), "aspects")
        return aspects

    @field_validator("paired_template")
    @classmethod
    def _paired_template(cls, template: str | None) -> str | None:
        return None if template is None else check_paired(template)

    @field_validator("single_template")
    @classmethod
    def _single_template(cls, template: str | None) -> str | None:
        return None if template is None else check_single(template)

    @field_validator("power_wording")
    @classmethod
    def _power_wording(cls, wording: str) -> str:
        fields = template_fields(wording)
        if fields != {"occupation", "role"}:
            raise ValueError(
                f"power_wording {wording!r} must use exactly {{occupation}} and {{role}}"
            )
        return wording

    @model_validator(mode="after")
    def _known(self) -> PSTParams:
        ids = identities()
        occ = ids.occupations
        if self.new_identities:
            # Beyond Table 7 a name cannot be checked against the list, so both lists must be
            # given (a default would mix the paper's identities in), and the power aspect,
            # whose roles are drawn for Table 7's occupations, does not apply.
            if not self.masculine or not self.feminine:
                raise ValueError("new_identities needs both masculine and feminine identities")
            if list(self.aspects) != ["occupation"]:
                raise ValueError(
                    "new_identities runs the occupation aspect only: aspects=occupation"
                )
            _no_repeats(self.masculine + self.feminine, "identities")
            named = self.masculine + self.feminine
        else:
            chosen_identities(self.masculine, occ.masculine, "masculine")
            chosen_identities(self.feminine, occ.feminine, "feminine")
            named = occ.masculine + occ.feminine
        if self.most_biased is not None:
            chosen_identities(self.most_biased, named, "most_biased")
        if self.intervention is not None and (self.paired_template or self.single_template):
            # Both would set the prompt; which one the images were made with must be clear.
            raise ValueError(
                "intervention and paired_template / single_template both set the prompt; give one"
            )
        if self.intervention is not None:
            known = image_prompts().interventions
            if self.intervention not in known:
                raise ValueError(
                    f"unknown intervention {self.intervention!r}; known: {', '.join(known)}"
                )
        if self.from_run is not None and self.only_most_biased is None:
            raise ValueError("from_run ranks occupations for only_most_biased=K; set K too")
        if self.only_most_biased is not None and self.most_biased is not None:
            chosen = set(self.most_biased)
            for gender, names in (("masculine", occ.masculine), ("feminine", occ.feminine)):
                n = len(chosen & set(names))
                if n > self.only_most_biased:
                    raise ValueError(
                        f"most_biased names {n} {gender} occupations, more than "
                        f"only_most_biased={self.only_most_biased}"
                    )
        return self

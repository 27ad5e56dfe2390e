"""Probe ``pst-text``: the Paired Stereotype Test carried over to text models.

The Paired Stereotype Test (PST) puts two people with opposite-gender-stereotyped identities in
one scene and asks whether each is rendered with the stereotyped gender. For a text model the
scene is a sentence that places one person on the left and one on the right; the model's next
pronoun for a named person (" he" / " she") is the gender it gives that person.

* ``likelihood`` mode (default) reads the model's probabilities of " he" and " she". Each sample
  draws the pronoun from those two probabilities, renormalised, with a seed recorded beside the
  label; the expected score computed from the probabilities themselves is reported too.
* ``story`` mode (for chat-only models) asks for a short story about the two people and, under a
  JSON schema, the pronoun it used for each (he / she / they → cannot_identify).

Identities come from the paper's Table 7; Stereo(label, stereotype) = +1 when they agree, −1
otherwise, and the Stereotype Test Score is the mean × 100 (Section 3.3).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from diptych.core.capabilities import Capability, Sampling
from diptych.core.data import load_data
from diptych.core.hookspecs import hookimpl
from diptych.core.probe import Label, Probe, ProbeResult
from diptych.core.runview import RunView
from diptych.core.trials import Subject, TrialSpec

GENDERS = ("masculine", "feminine")


class Occupations(BaseModel):
    model_config = ConfigDict(extra="forbid")
    masculine: list[str]
    feminine: list[str]


class PowerRoles(BaseModel):
    model_config = ConfigDict(extra="forbid")
    high: list[str]
    low: list[str]
    excluded_occupations: list[str]


class Identities(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: str
    occupations: Occupations
    power_roles: PowerRoles


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


def identities() -> Identities:
    return load_data("pst_identities.yaml", Identities)


def text_prompts() -> TextPrompts:
    return load_data("pst_text.yaml", TextPrompts)


def _subset(given: list[str] | None, full: list[str], kind: str) -> list[str]:
    if given is None:
        return list(full)
    repeated = sorted({g for g in given if given.count(g) > 1})
    if repeated:
        # A repeated identity would be counted twice in every score.
        raise ValueError(f"{kind} identities repeated: {repeated}; name each once")
    unknown = [g for g in given if g not in full]
    if unknown:
        raise ValueError(f"unknown {kind} identities {unknown}; known: {', '.join(full)}")
    return list(given)


class PSTTextParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: Literal["likelihood", "story"] = Field(
        "likelihood", description="likelihood: read P(he)/P(she); story: chat and ask pronouns"
    )
    setting: Literal["both", "paired", "single"] = Field(
        "both", description="paired test, single-person baseline, or both"
    )
    masculine: list[str] | None = Field(
        None, description="subset of the male-stereotyped occupations (Table 7); default all 20"
    )
    feminine: list[str] | None = Field(
        None, description="subset of the female-stereotyped occupations (Table 7); default all 20"
    )
    samples_paired: int = Field(1, ge=1, description="samples per ordered pair (paper: 1)")
    samples_single: int = Field(3, ge=1, description="samples per identity, single (paper: 3)")
    seed: int = Field(0, description="seed of the pronoun draws (likelihood) and sampling")
    paired_template: str | None = Field(None, description="override the paired prompt")
    single_template: str | None = Field(None, description="override the single prompt")

    @model_validator(mode="after")
    def _known_identities(self) -> PSTTextParams:
        occ = identities().occupations
        _subset(self.masculine, occ.masculine, "masculine")
        _subset(self.feminine, occ.feminine, "feminine")
        return self


def story_schema(names: Sequence[str]) -> dict[str, Any]:
    """JSON schema of a story answer: the story and one pronoun per person, in order."""
    props: dict[str, Any] = {"story": {"type": "string"}}
    for i, _ in enumerate(names):
        props[f"pronoun_{i + 1}"] = {"type": "string", "enum": ["he", "she", "they"]}
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


def draw_label(p_feminine: float, seed: str) -> str:
    """Draw masculine/feminine with P(feminine) = ``p_feminine`` from a seeded generator.

    ``random.Random`` seeds a string through SHA-512, so the draw is the same in every process.
    """
    return "feminine" if random.Random(seed).random() < p_feminine else "masculine"


def renormalised_p_feminine(logprobs: Mapping[str, float], candidates: Candidates) -> float:
    """P(feminine continuation) among the two candidates only."""
    lm = logprobs[candidates.masculine]
    lf = logprobs[candidates.feminine]
    top = max(lm, lf)
    # Subtracting the larger log-probability keeps exp() from underflowing to 0/0.
    return math.exp(lf - top) / (math.exp(lm - top) + math.exp(lf - top))


class PSTText(Probe):
    """Paired Stereotype Test on text: which pronoun a model gives each of two people."""

    name = "pst-text"
    goal = (
        "Measure gender stereotyping of occupations in a text model by the Stereotype Test "
        "Score, paired and single (Paired Stereotype Test, Sections 3.3 and 4)."
    )
    version = "1"
    capabilities = frozenset({Capability.TEXT_LIKELIHOOD, Capability.CHAT})
    Params = PSTTextParams  # type: ignore[assignment]

    @property
    def p(self) -> PSTTextParams:
        assert isinstance(self.params, PSTTextParams)
        return self.params

    def required_capability(self) -> Capability:
        return Capability.TEXT_LIKELIHOOD if self.p.mode == "likelihood" else Capability.CHAT

    # --- planning ---------------------------------------------------------------------------

    def groups(self) -> dict[str, list[str]]:
        occ = identities().occupations
        return {
            "masculine": _subset(self.p.masculine, occ.masculine, "masculine"),
            "feminine": _subset(self.p.feminine, occ.feminine, "feminine"),
        }

    def templates(self) -> tuple[str, str]:
        if self.p.mode == "likelihood":
            lik = text_prompts().likelihood
            return self.p.paired_template or lik.paired, self.p.single_template or lik.single
        story = text_prompts().story
        return self.p.paired_template or story.paired, self.p.single_template or story.single

    def prompts_used(self) -> dict[str, str]:
        paired, single = self.templates()
        used = {"paired": paired, "single": single}
        if self.p.mode == "likelihood":
            cands = text_prompts().likelihood.candidates
            used["continuations"] = f"{cands.masculine!r} / {cands.feminine!r}"
        else:
            used["system"] = text_prompts().story.system
        return used

    def plan(self) -> Iterator[TrialSpec]:
        groups = self.groups()
        stereotype = {i: g for g, ids in groups.items() for i in ids}
        paired_t, single_t = self.templates()
        make = self._likelihood_trial if self.p.mode == "likelihood" else self._story_trials
        if self.p.setting in ("both", "paired"):
            for m in groups["masculine"]:
                for f in groups["feminine"]:
                    for order, (id1, id2) in (("mf", (m, f)), ("fm", (f, m))):
                        for sample in range(self.p.samples_paired):
                            image = f"paired:{id1}|{id2}#{sample}"
                            meta = {
                                "setting": "paired",
                                "image": image,
                                "order": order,
                                "id1": id1,
                                "id2": id2,
                            }
                            yield from make(paired_t, meta, sample, stereotype)
        if self.p.setting in ("both", "single"):
            for ident in groups["masculine"] + groups["feminine"]:
                for sample in range(self.p.samples_single):
                    meta = {"setting": "single", "image": f"single:{ident}#{sample}", "id": ident}
                    yield from make(single_t, meta, sample, stereotype)

    def _likelihood_trial(
        self, template: str, meta: dict[str, Any], sample: int, stereotype: dict[str, str]
    ) -> Iterator[TrialSpec]:
        cands = text_prompts().likelihood.candidates
        candidates = [cands.masculine, cands.feminine]
        if meta["setting"] == "single":
            people = [("single", meta["id"])]
        else:
            people = [("left", meta["id1"]), ("right", meta["id2"])]
        for position, target in people:
            prompt = template.format(
                id=target,
                id1=meta.get("id1"),
                id2=meta.get("id2"),
                target=target,
                position=position,
            )
            subject = Subject(position, {"identity": target, "stereotype": stereotype[target]})
            yield TrialSpec(
                Capability.TEXT_LIKELIHOOD,
                {"prompt": prompt, "candidates": candidates},
                sample=sample,
                meta={**meta, "target": target, "position": position},
                subjects=(subject,),
            )

    def _story_trials(
        self, template: str, meta: dict[str, Any], sample: int, stereotype: dict[str, str]
    ) -> Iterator[TrialSpec]:
        story = text_prompts().story
        if meta["setting"] == "single":
            people = [("single", meta["id"])]
        else:
            people = [("left", meta["id1"]), ("right", meta["id2"])]
        prompt = template.format(id=meta.get("id"), id1=meta.get("id1"), id2=meta.get("id2"))
        sampling = Sampling(
            temperature=story.temperature,
            max_tokens=story.max_tokens,
            seed=self.p.seed * 1000 + sample,
        )
        yield TrialSpec(
            Capability.CHAT,
            {
                "messages": [
                    {"role": "system", "content": story.system},
                    {"role": "user", "content": prompt},
                ],
                "sampling": sampling.model_dump(),
                "schema": story_schema([name for _, name in people]),
            },
            sample=sample,
            meta=meta,
            subjects=tuple(
                Subject(pos, {"identity": name, "stereotype": stereotype[name]})
                for pos, name in people
            ),
        )

    # --- labels -----------------------------------------------------------------------------

    def self_labels(self, spec: TrialSpec, output: dict[str, Any], key: str) -> Sequence[Label]:
        if self.p.mode == "likelihood":
            return [self._drawn_label(spec, output, key)]
        return self._story_labels(spec, output)

    def _drawn_label(self, spec: TrialSpec, output: dict[str, Any], key: str) -> Label:
        cands = text_prompts().likelihood.candidates
        p_fem = renormalised_p_feminine(output["logprobs"], cands)
        position = spec.subjects[0].position
        seed = f"{self.p.seed}:{key}:{spec.sample}:{position}"
        label = draw_label(p_fem, seed)
        return Label(
            position,
            label,
            confidence=p_fem if label == "feminine" else 1 - p_fem,
            detail={"p_feminine": p_fem, "draw_seed": seed, "logprobs": output["logprobs"]},
        )

    def _story_labels(self, spec: TrialSpec, output: dict[str, Any]) -> list[Label]:
        pronouns = text_prompts().story.pronouns
        try:
            answer = json.loads(output.get("text", ""))
        except json.JSONDecodeError:
            answer = {}
        if not isinstance(answer, dict):
            answer = {}
        labels = []
        for i, subject in enumerate(spec.subjects):
            said = str(answer.get(f"pronoun_{i + 1}", "")).strip().lower()
            labels.append(
                Label(
                    subject.position,
                    pronouns.get(said, "cannot_identify"),
                    detail={"pronoun": said or None},
                )
            )
        return labels

    # --- analysis ---------------------------------------------------------------------------

    def analyze(self, run: RunView) -> ProbeResult:
        from diptych.plugins.probes.pst_text_analysis import analyze_pst_text

        return analyze_pst_text(self, run)


@hookimpl
def register_probes(register: Callable[[type[Probe]], None]) -> None:
    register(PSTText)

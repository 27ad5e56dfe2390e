"""Probe ``pst``: the Paired Stereotype Test on text-to-image models.

The Paired Stereotype Test (PST) asks a text-to-image model for one picture of two people whose
identities are stereotyped as opposite genders, one on the left and one on the right, and checks
whether each is drawn with the stereotyped gender (Sections 3.3, 4.2 and 4.3 of the paper). The
single-person baseline asks for one person at a time. Two aspects of gender bias:

* **occupation** — the 20 × 20 male- and female-stereotyped occupations of Table 7, every pair in
  both orders (800 paired images at one sample) and each occupation alone (40 × 3 images).
* **power** — the 36 occupations left after Section 4.2 takes out "manager", "supervisor", "ceo"
  and "assistant", each combined with one high-power and one low-power role of Table 8 drawn at
  random (reproducibly, from ``seed``); the two identities of one occupation are paired in both
  orders × 3 samples (216 images), and each of the 72 alone × 3 (216 images).

Prompts are Table 9's, verbatim, or a fairness intervention of Section 5 (Table 5's, verbatim,
or an ENTIGEN phrasing adapted the same way), all in ``diptych/prompts/pst_images.yaml``.
People are labelled by annotators (human labels come in through ``diptych annotate``); the
analysis is :func:`diptych.plugins.probes.pst_analysis.analyze_pst`.

**Trial metadata** (the analysis depends on it): ``aspect`` (occupation | power), ``setting``
(single | paired), ``image`` (file-name-safe id, unique in the plan), ``order`` (paired only:
"mf" when the masculine-stereotyped identity is on the left, else "fm"), ``id1``/``id2``
(paired) or ``id`` (single) as the prompt names them, ``run`` (sample index + 1, the paper's
"run number" of Table 13) and ``intervention`` (None or the template name). **Subjects**: paired
→ ("left", id1), ("right", id2); single → ("single", id), each with ``identity`` (as results
name it: the occupation, or Table 16's "<occupation> power" / "<occupation> minor"),
``stereotype``, ``occupation``, ``role`` and ``power`` (None for the occupation aspect).
"""

from __future__ import annotations

import hashlib
import random
import re
import string
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from diptych.core.capabilities import Capability
from diptych.core.data import load_data
from diptych.core.errors import InputFileError, UsageError
from diptych.core.hookspecs import hookimpl
from diptych.core.probe import Probe, ProbeResult, ReviewFlag
from diptych.core.runview import RunView
from diptych.core.store import Store
from diptych.core.trials import Subject, TrialSpec
from diptych.plugins.probes.pst_text import _subset, identities

Aspect = Literal["occupation", "power"]
ASPECTS: tuple[Aspect, ...] = ("occupation", "power")
GENDERS = ("masculine", "feminine")
# Table 8: high organizational power is stereotyped masculine, low power feminine.
POWER_STEREOTYPE = {"high": "masculine", "low": "feminine"}
# Table 16 names a role-occupation identity by its occupation and its power level.
POWER_SUFFIX = {"high": "power", "low": "minor"}

# --- data: the prompts --------------------------------------------------------------------------

_PAIRED_FIELDS = frozenset({"id1", "id2", "occ1", "occ2", "a_id1", "a_id2"})
_SINGLE_FIELDS = frozenset({"id1", "occ1", "a_id1"})


def template_fields(template: str) -> set[str]:
    """The ``{placeholders}`` a prompt template uses."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def _check_template(template: str, allowed: frozenset[str], needs: list[set[str]]) -> str:
    fields = template_fields(template)
    unknown = sorted(fields - allowed)
    if unknown:
        raise ValueError(
            f"template {template!r} uses {unknown}; it may use {', '.join(sorted(allowed))}"
        )
    for person in needs:
        if not fields & person:
            # A prompt that leaves a person out asks for a different picture than the one scored.
            raise ValueError(f"template {template!r} never names {' / '.join(sorted(person))}")
    return template


def _check_paired(template: str) -> str:
    return _check_template(
        template, _PAIRED_FIELDS, [{"id1", "occ1", "a_id1"}, {"id2", "occ2", "a_id2"}]
    )


def _check_single(template: str) -> str:
    return _check_template(template, _SINGLE_FIELDS, [{"id1", "occ1", "a_id1"}])


class Intervention(BaseModel):
    """A fairness-intervened pair of prompts (Section 5)."""

    model_config = ConfigDict(extra="forbid")
    source: str
    kind: Literal["ethical", "irrelevant"]
    #: The ENTIGEN phrasing it adapts, as ENTIGEN's prompt file writes it ([X]: the profession).
    entigen: str | None = None
    paired: str
    single: str

    _paired = field_validator("paired")(_check_paired)
    _single = field_validator("single")(_check_single)


class ImagePrompts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: str
    single: str
    paired: str
    interventions: dict[str, Intervention]

    _paired = field_validator("paired")(_check_paired)
    _single = field_validator("single")(_check_single)


def image_prompts() -> ImagePrompts:
    return load_data("pst_images.yaml", ImagePrompts)


def with_article(identity: str) -> str:
    """``identity`` with its indefinite article: "an editor", "a carpenter".

    By first letter, which is right for every identity of Tables 7 and 8 (none starts with a
    silent "h" or a "you" sound).
    """
    return ("an " if identity[:1].lower() in "aeiou" else "a ") + identity


def fill(template: str, id1: str, id2: str | None = None) -> str:
    """A prompt from a template of ``pst_images.yaml`` and the identities it names."""
    values = {"id1": id1, "occ1": id1, "a_id1": with_article(id1)}
    if id2 is not None:
        values |= {"id2": id2, "occ2": id2, "a_id2": with_article(id2)}
    return template.format(**values)


# --- ids, seeds and the role draw ---------------------------------------------------------------


def slug(text: str) -> str:
    """A file-name-safe form of an identity: lower case, every other run of characters "_"."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def image_seed(seed: int, image: str) -> int:
    """The generation seed of one image: derived from the probe's seed and the image id only,
    so any image can be generated again on its own. 31 bits: every backend takes that."""
    return int(hashlib.sha256(f"{seed}:{image}".encode()).hexdigest()[:8], 16) & 0x7FFFFFFF


@dataclass(frozen=True)
class PowerRoles:
    """The roles drawn for one occupation: one of high and one of low power (Table 8)."""

    high: str
    low: str


def draw_power_roles(
    seed: int, occupations: list[str], high: list[str], low: list[str]
) -> dict[str, PowerRoles]:
    """One random high- and one random low-power role per occupation (Section 4.3).

    Drawn in sorted order of the occupations from sorted role lists with ``random.Random(seed)``
    (whose integer seeding and ``choice`` are stable across Python versions and platforms), so
    the same seed draws the same roles anywhere. Callers pass every eligible occupation, not a
    subset, so that an occupation keeps its roles when others are left out of a run.
    """
    rng = random.Random(seed)
    highs, lows = sorted(high), sorted(low)
    return {occ: PowerRoles(rng.choice(highs), rng.choice(lows)) for occ in sorted(occupations)}


def most_biased(
    micro: Mapping[str, float | None], stereotype_of: Mapping[str, str], k: int
) -> dict[str, list[str]]:
    """The ``k`` most biased identities of each stereotyped gender (Section 5's "top 5").

    ``micro`` maps an identity to its paired micro STS (higher: more stereotyped); an identity
    without a score (None or NaN) or that ``stereotype_of`` does not know (e.g. a power identity)
    is left out. Ties are broken by name, so the selection is deterministic; a group with fewer
    than ``k`` scored identities gives them all. Returns ``{"masculine": [...], "feminine":
    [...]}``, each most biased first.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    groups: dict[str, list[tuple[float, str]]] = {g: [] for g in GENDERS}
    for identity, score in micro.items():
        gender = stereotype_of.get(identity)
        if gender not in groups or score is None or score != score:  # NaN != NaN
            continue
        groups[gender].append((-float(score), identity))
    return {g: [identity for _, identity in sorted(rows)[:k]] for g, rows in groups.items()}


# --- parameters ---------------------------------------------------------------------------------


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
    masculine: list[str] | None = Field(
        None, description="subset of the male-stereotyped occupations (Table 7); default all 20"
    )
    feminine: list[str] | None = Field(
        None, description="subset of the female-stereotyped occupations (Table 7); default all 20"
    )
    samples_paired: int = Field(
        1, ge=1, description="occupation aspect: samples per ordered pair (paper: 1, 800 images)"
    )
    samples_power: int = Field(
        3, ge=1, description="power aspect: samples per ordered pair (paper: 3, 216 images)"
    )
    samples_single: int = Field(3, ge=1, description="samples per identity, single (paper: 3)")
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

    @field_validator("aspects")
    @classmethod
    def _aspects(cls, aspects: list[Aspect]) -> list[Aspect]:
        if not aspects:
            raise ValueError("name at least one aspect: occupation, power")
        _no_repeats(list(aspects), "aspects")
        return aspects

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
        _subset(self.masculine, occ.masculine, "masculine")
        _subset(self.feminine, occ.feminine, "feminine")
        if self.most_biased is not None:
            _subset(self.most_biased, occ.masculine + occ.feminine, "most_biased")
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


# --- the probe ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Person:
    """One person of a prompt: as the prompt names them and as the results do."""

    prompt_name: str
    slug: str
    meta: dict[str, Any]


class PST(Probe):
    """Paired Stereotype Test: two people of opposite-gender-stereotyped identities in one image."""

    name = "pst"
    goal = (
        "Measure gender stereotyping of occupations and organizational power in a text-to-image "
        "model by the Stereotype Test Score, paired and single (Paired Stereotype Test)."
    )
    version = "1"
    capabilities = frozenset({Capability.IMAGE_GENERATOR})
    Params = PSTParams  # type: ignore[assignment]

    @property
    def p(self) -> PSTParams:
        assert isinstance(self.params, PSTParams)
        return self.params

    def required_capability(self) -> Capability:
        # The engine asks this before it records a run: an unresolved only_most_biased fails
        # here, rather than in plan() after an empty run has been stored.
        if "occupation" in self.p.aspects:
            self.occupation_groups()
        return Capability.IMAGE_GENERATOR

    # --- identities ------------------------------------------------------------------------

    def groups(self) -> dict[str, list[str]]:
        """The occupations of each stereotyped gender that this run uses (Table 7 order)."""
        occ = identities().occupations
        return {
            "masculine": _subset(self.p.masculine, occ.masculine, "masculine"),
            "feminine": _subset(self.p.feminine, occ.feminine, "feminine"),
        }

    def occupation_groups(self) -> dict[str, list[str]]:
        """The occupations of the occupation aspect: ``groups()`` narrowed to ``most_biased``."""
        groups = self.groups()
        if self.p.only_most_biased is not None and self.p.most_biased is None:
            raise UsageError(
                f"only_most_biased={self.p.only_most_biased} needs the selected occupations: "
                "name them with most_biased=a,b,... (the pst probe cannot read "
                f"run {self.p.from_run or '?'} itself)"
            )
        if self.p.most_biased is None:
            return groups
        chosen = set(self.p.most_biased)
        narrowed = {g: [o for o in ids if o in chosen] for g, ids in groups.items()}
        for gender, ids in narrowed.items():
            if not ids:
                raise UsageError(
                    f"most_biased leaves no {gender} occupation in the occupation aspect; "
                    "name at least one of each gender"
                )
        return narrowed

    def power_occupations(self) -> list[str]:
        """The occupations of the power aspect: the run's, less Section 4.2's four."""
        excluded = set(identities().power_roles.excluded_occupations)
        groups = self.groups()
        return [o for o in groups["masculine"] + groups["feminine"] if o not in excluded]

    def power_roles_drawn(self) -> dict[str, PowerRoles]:
        """The high- and low-power role drawn for each occupation of the power aspect.

        Recomputed from ``seed`` (a run records its parameters, so this is the run's draw); the
        roles are also recorded in every power subject's ``role``.
        """
        ids = identities()
        excluded = set(ids.power_roles.excluded_occupations)
        eligible = [
            o for o in ids.occupations.masculine + ids.occupations.feminine if o not in excluded
        ]
        drawn = draw_power_roles(self.p.seed, eligible, ids.power_roles.high, ids.power_roles.low)
        return {o: drawn[o] for o in self.power_occupations()}

    def bind(self, store: Store) -> PST:
        """With ``from_run`` and ``only_most_biased``: the probe restricted to the earlier run's
        most biased occupations (paired micro STS of its occupation aspect, no intervention)."""
        if self.p.from_run is None or self.p.most_biased is not None:
            return self
        from diptych.core.metrics.sts import stereotype_test_score
        from diptych.core.runview import RunView
        from diptych.plugins.probes.pst_analysis import collect_labels

        earlier = store.get_run(self.p.from_run)
        if earlier.probe != self.name:
            raise UsageError(f"from_run {earlier.id} is a {earlier.probe} run, not a pst run")
        rows = [
            row
            for key, group in collect_labels(RunView(store, earlier)).groups.items()
            if key.aspect == "occupation" and key.intervention is None
            for row in group.rows
        ]
        if not rows:
            raise UsageError(
                f"run {earlier.id} has no labelled occupation images to rank; label it first "
                f"(diptych annotate {earlier.id} --import FILE.csv)"
            )
        micro = stereotype_test_score(rows, n_boot=1).micro
        return self.with_most_biased({i: m.paired for i, m in micro.items()})

    def review_flags(self, store: Store, run_id: str) -> list[ReviewFlag]:
        from diptych.plugins.probes.pst_flags import compute_flags

        return compute_flags(store, run_id)

    def with_most_biased(self, micro: Mapping[str, float | None]) -> PST:
        """This probe restricted to the ``only_most_biased`` most biased occupations of each
        gender by ``micro`` (identity → paired micro STS of the earlier run ``from_run``).

        The selection is stored as ``most_biased``, so the new run records which occupations
        were chosen as well as how.
        """
        k = self.p.only_most_biased
        if k is None:
            raise UsageError("set only_most_biased=K to select the K most biased occupations")
        groups = self.groups()
        stereotype_of = {o: g for g, ids in groups.items() for o in ids}
        chosen = most_biased(micro, stereotype_of, k)
        selected = chosen["masculine"] + chosen["feminine"]
        params = self.p.model_copy(update={"most_biased": selected})
        return PST(PSTParams.model_validate(params.model_dump()))

    def _occupation_person(self, occupation: str, gender: str) -> _Person:
        meta = {
            "identity": occupation,
            "stereotype": gender,
            "occupation": occupation,
            "role": None,
            "power": None,
        }
        return _Person(occupation, slug(occupation), meta)

    def _power_person(self, occupation: str, role: str, power: str) -> _Person:
        meta = {
            "identity": f"{occupation} {POWER_SUFFIX[power]}",
            "stereotype": POWER_STEREOTYPE[power],
            "occupation": occupation,
            "role": role,
            "power": power,
        }
        text = self.p.power_wording.format(occupation=occupation, role=role)
        # Ids from (occupation, role), not from the wording: the same image keeps its id (and
        # so its seed) when only the wording changes.
        return _Person(text, f"{slug(occupation)}_{slug(role)}", meta)

    # --- prompts ---------------------------------------------------------------------------

    def templates(self) -> tuple[str, str]:
        """(paired, single) prompt templates of this run."""
        prompts = image_prompts()
        if self.p.intervention is None:
            return prompts.paired, prompts.single
        chosen = prompts.interventions[self.p.intervention]
        return chosen.paired, chosen.single

    def prompts_used(self) -> dict[str, str]:
        paired, single = self.templates()
        used = {
            "paired": paired,
            "single": single,
            "intervention": self.p.intervention or "none",
        }
        if "power" in self.p.aspects:
            used["power identity"] = self.p.power_wording
            used[f"power roles drawn (seed {self.p.seed})"] = "; ".join(
                f"{occ}: {roles.high} / {roles.low}"
                for occ, roles in self.power_roles_drawn().items()
            )
        if self.p.most_biased is not None:
            used["occupations (most biased)"] = ", ".join(self.p.most_biased)
        return used

    # --- planning --------------------------------------------------------------------------

    def plan(self) -> Iterator[TrialSpec]:
        seen: dict[str, str] = {}
        for spec in self._plan():
            image = spec.meta["image"]
            if image in seen:
                # Two people whose names differ only in case or punctuation would share an image
                # file, a seed and labels: refuse rather than mix them.
                raise InputFileError(
                    f"identities {seen[image]!r} and {spec.payload['prompt']!r} give the same "
                    f"image id {image!r}; rename one in the identity file"
                )
            seen[image] = spec.payload["prompt"]
            yield spec

    def _plan(self) -> Iterator[TrialSpec]:
        paired_t, single_t = self.templates()
        paired = self.p.setting in ("both", "paired")
        single = self.p.setting in ("both", "single")
        if "occupation" in self.p.aspects:
            groups = self.occupation_groups()
            people = {g: [self._occupation_person(o, g) for o in ids] for g, ids in groups.items()}
            if paired:
                for m in people["masculine"]:
                    for f in people["feminine"]:
                        yield from self._paired("occupation", m, f, paired_t, self.p.samples_paired)
            if single:
                for person in people["masculine"] + people["feminine"]:
                    yield from self._single("occupation", person, single_t)
        if "power" in self.p.aspects:
            drawn = self.power_roles_drawn()
            highs = {o: self._power_person(o, r.high, "high") for o, r in drawn.items()}
            lows = {o: self._power_person(o, r.low, "low") for o, r in drawn.items()}
            if paired:
                for occupation in drawn:
                    yield from self._paired(
                        "power",
                        highs[occupation],
                        lows[occupation],
                        paired_t,
                        self.p.samples_power,
                    )
            if single:
                for occupation in drawn:
                    for person in (highs[occupation], lows[occupation]):
                        yield from self._single("power", person, single_t)

    def _trial(
        self,
        aspect: str,
        setting: str,
        image: str,
        prompt: str,
        sample: int,
        meta: dict[str, Any],
        subjects: tuple[Subject, ...],
    ) -> TrialSpec:
        return TrialSpec(
            Capability.IMAGE_GENERATOR,
            {"prompt": prompt, "size": self.p.size, "seed": image_seed(self.p.seed, image)},
            sample=sample,
            meta={
                "aspect": aspect,
                "setting": setting,
                "image": image,
                **meta,
                "run": sample + 1,
                "intervention": self.p.intervention,
            },
            subjects=subjects,
        )

    def _paired(
        self, aspect: str, masc: _Person, fem: _Person, template: str, samples: int
    ) -> Iterator[TrialSpec]:
        prefix = "occ" if aspect == "occupation" else "pow"
        # Each pair in both orders (Section 3.3.1): position must not decide who is stereotyped.
        for order, (left, right) in (("mf", (masc, fem)), ("fm", (fem, masc))):
            for sample in range(samples):
                image = f"{prefix}-paired-{left.slug}--{right.slug}-s{sample}"
                yield self._trial(
                    aspect,
                    "paired",
                    image,
                    fill(template, left.prompt_name, right.prompt_name),
                    sample,
                    {"order": order, "id1": left.prompt_name, "id2": right.prompt_name},
                    (Subject("left", left.meta), Subject("right", right.meta)),
                )

    def _single(self, aspect: str, person: _Person, template: str) -> Iterator[TrialSpec]:
        prefix = "occ" if aspect == "occupation" else "pow"
        for sample in range(self.p.samples_single):
            yield self._trial(
                aspect,
                "single",
                f"{prefix}-single-{person.slug}-s{sample}",
                fill(template, person.prompt_name),
                sample,
                {"id": person.prompt_name},
                (Subject("single", person.meta),),
            )

    # --- analysis --------------------------------------------------------------------------

    def analyze(self, run: RunView) -> ProbeResult:
        # Imported here: the analysis pulls in numpy and matplotlib, which planning never needs.
        from diptych.plugins.probes.pst_analysis import analyze_pst

        return analyze_pst(self, run)


@hookimpl
def register_probes(register: Callable[[type[Probe]], None]) -> None:
    register(PST)

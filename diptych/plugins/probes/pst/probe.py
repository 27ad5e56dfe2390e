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
analysis is :func:`diptych.plugins.probes.pst.analysis.analyze_pst`.

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

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diptych.core.capabilities import Capability
from diptych.core.errors import InputFileError, UsageError
from diptych.core.figure_names import ANNOTATOR, model_prefix
from diptych.core.labels import HUMAN_MAJORITY
from diptych.core.plugins.hookspecs import hookimpl
from diptych.core.probe import (
    COMPARE_N_BOOT,
    COMPARE_N_PERM,
    Probe,
    ProbeResult,
    ReviewFlag,
)
from diptych.core.runview import RunView
from diptych.core.trials import Subject, TrialSpec
from diptych.plugins.probes._paired_stereotype_test.identities import identities, stereotyped_groups
from diptych.plugins.probes.pst.design import (
    TRIAL_UNIT,
    PowerRoles,
    draw_power_roles,
    image_seed,
    most_biased,
    slug,
)
from diptych.plugins.probes.pst.params import PSTParams
from diptych.plugins.probes.pst.prompts import fill, image_prompts

if TYPE_CHECKING:
    from diptych.core.lookup import RunLookup
    from diptych.core.metrics.uncertainty.precision import Components, PlannedFigure
    from diptych.core.report.sections import Section
    from diptych.core.standings import FigureSample

# Table 8: high organizational power is stereotyped masculine, low power feminine.
POWER_STEREOTYPE = {"high": "masculine", "low": "feminine"}
# Table 16 names a role-occupation identity by its occupation and its power level.
POWER_SUFFIX = {"high": "power", "low": "minor"}


@dataclass(frozen=True)
class _Person:
    """One person of a prompt: as the prompt names them and as the results do."""

    prompt_name: str
    slug: str
    meta: dict[str, Any]


class PST(Probe[PSTParams]):
    """Paired Stereotype Test: two people of opposite-gender-stereotyped identities in one image."""

    name = "pst"
    #: What a figure's n counts: a person in an image, as labelled.
    observation = "person"
    trial_unit = TRIAL_UNIT
    goal = (
        "Measure gender stereotyping of occupations and organizational power in a text-to-image "
        "model by the Stereotype Test Score, paired and single (Paired Stereotype Test)."
    )
    version = "1"
    capabilities = frozenset({Capability.IMAGE_GENERATOR})
    Params = PSTParams  # type: ignore[assignment]

    def required_capability(self) -> Capability:
        # The engine asks this before it records a run: an unresolved only_most_biased fails
        # here, rather than in plan() after an empty run has been stored.
        if "occupation" in self.p.aspects:
            self.occupation_groups()
        return Capability.IMAGE_GENERATOR

    def figure_names(self, n_models: int = 1) -> list[str] | None:
        # The keys analyze_pst gives each aspect (group_prefix names it). The STS of each label
        # source and the error-corrected STS name an automatic annotator, known once images
        # are labelled.
        from diptych.plugins.probes.pst.tone.figures import tone_figure_names

        settings = ("paired", "single") if self.p.setting == "both" else (self.p.setting,)
        intervention = f" · intervention {self.p.intervention}" if self.p.intervention else ""
        names = []
        for aspect in self.p.aspects:
            prefix = f"{model_prefix(n_models, ' · ')}{aspect}{intervention}: "
            names += [f"{prefix}STS {s}" for s in settings]
            if len(settings) == 2:
                names.append(f"{prefix}gap paired − single")
            if aspect == "occupation":
                names.append(f"{prefix}Pearson r, %F paired vs %F BLS (over occupations)")
            for source in (HUMAN_MAJORITY, ANNOTATOR):
                names += [f"{prefix}STS {s}, labels by {source}" for s in settings]
            names += [f"{prefix}STS {s}, corrected for {ANNOTATOR}" for s in settings]
            # From one annotator on every person and people's labels of a designed sample.
            names += [f"{prefix}STS {s}, prediction-powered" for s in settings]
            if len(settings) == 2:
                names.append(f"{prefix}gap paired − single, prediction-powered")
            # Perceived skin tone, where the run's persons have tone labels.
            names += tone_figure_names(prefix, settings)
        return names

    def planned_figures(self) -> list[PlannedFigure]:
        # The overall STS of each aspect and setting, as figure_names names them (without a
        # model's prefix); how each varies is assumed from the paper's DALL-E 3 figures.
        from diptych.plugins.probes._paired_stereotype_test.precision import (
            PAPER_COMPONENTS,
            sts_figure,
        )

        settings = ("paired", "single") if self.p.setting == "both" else (self.p.setting,)
        intervention = f" · intervention {self.p.intervention}" if self.p.intervention else ""
        table_7 = None if self.p.new_identities else len(identities().occupations.masculine)
        out = []
        for aspect in self.p.aspects:
            if aspect == "occupation":
                groups = self.occupation_groups()
                sizes = (len(groups["masculine"]), len(groups["feminine"]))
                # A scene's persons: two people, both orders, every sample.
                paired_cell, diagonal, most = 4 * self.p.samples_paired, False, table_7
                grow = "name more with -p masculine=... -p feminine=..."
            else:
                n = len(self.power_occupations())
                sizes, paired_cell, diagonal = (n, n), 4 * self.p.samples_power, True
                most = len(identities().occupations.masculine) * 2 - len(
                    identities().power_roles.excluded_occupations
                )
                grow = "name more occupations"
            for setting in settings:
                per = paired_cell if setting == "paired" else self.p.samples_single
                name = f"{aspect}{intervention}: STS {setting}"
                comp = PAPER_COMPONENTS[(aspect, setting)]
                out.append(
                    sts_figure(
                        name, setting, sizes, per, comp, diagonal=diagonal, max_size=most, grow=grow
                    )
                )
        return out

    def figure_samples(self, run: RunView) -> list[FigureSample]:
        # Each model's overall STS per aspect and setting, labelled by the run's policy; the
        # aspects a run asked choose its figures, not how one is asked.
        from diptych.core.standings import design_of, sts_samples
        from diptych.plugins.probes.pst.collect import collect_labels

        design, words = design_of(
            run.run.probe, run.run.probe_version, run.run.params, apart_from=("aspects",)
        )
        out: list[FigureSample] = []
        for key, group in collect_labels(run).groups.items():
            intervention = f" · intervention {key.intervention}" if key.intervention else ""
            prefix = f"{key.aspect}{intervention}: "
            out += sts_samples(
                group.rows, model=key.model_id, prefix=prefix, design=f"{design}/{prefix}",
                design_label=words,
            )  # fmt: skip
        return out

    def observed_components(self, run: RunView) -> dict[str, Components]:
        from diptych.plugins.probes._paired_stereotype_test.precision import observed_sts_components
        from diptych.plugins.probes.pst.collect import collect_labels

        out: dict[str, Components] = {}
        for key, group in collect_labels(run).groups.items():
            intervention = f" · intervention {key.intervention}" if key.intervention else ""
            # A person whose partner has no label yet sits in the scene its image was asked for.
            found = observed_sts_components(
                group.rows, f"run {run.id} ({key.model_id})", scenes=group.scenes
            )
            for setting, comp in found.items():
                out.setdefault(f"{key.aspect}{intervention}: STS {setting}", comp)
        return out

    # --- identities ------------------------------------------------------------------------

    def groups(self) -> dict[str, list[str]]:
        """The occupations of each stereotyped gender that this run uses (Table 7 order), or
        the new identities as given."""
        if self.p.new_identities:
            return {
                "masculine": list(self.p.masculine or []),
                "feminine": list(self.p.feminine or []),
            }
        return stereotyped_groups(self.p.masculine, self.p.feminine)

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

    def bind(self, runs: RunLookup) -> PST:
        """With ``from_run`` and ``only_most_biased``: the probe restricted to the earlier run's
        most biased occupations (paired micro STS of its occupation aspect, no intervention)."""
        if self.p.from_run is None or self.p.most_biased is not None:
            return self
        from diptych.core.metrics.sts import stereotype_test_score
        from diptych.plugins.probes.pst.collect import collect_labels

        earlier = runs.run(self.p.from_run)
        if earlier.run.probe != self.name:
            raise UsageError(f"from_run {earlier.id} is a {earlier.run.probe} run, not a pst run")
        rows = [
            row
            for key, group in collect_labels(earlier).groups.items()
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

    def review_flags(self, run: RunView) -> list[ReviewFlag]:
        from diptych.plugins.probes.pst.flags import compute_flags

        return compute_flags(run)

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
            # The paper's prompts unless a paraphrase is given (the agent's searches vary it).
            return (
                self.p.paired_template or prompts.paired,
                self.p.single_template or prompts.single,
            )
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
        from diptych.plugins.probes.pst.analysis import analyze_pst

        return analyze_pst(self, run)

    def compare(
        self,
        a: RunView,
        b: RunView,
        *,
        top: int | None = None,
        n_boot: int = COMPARE_N_BOOT,
        n_perm: int = COMPARE_N_PERM,
        seed: int = 0,
    ) -> ProbeResult:
        """The STS of run ``b`` against run ``a`` (PST Table 6): every figure both runs have,
        as A, B and B − A with a 95% bootstrap interval and a permutation p-value.
        ``result.data["comparisons"]`` holds one entry per model pair and aspect."""
        from diptych.plugins.probes.pst.compare import compare_result

        return compare_result(self.name, a, b, top=top, n_boot=n_boot, n_perm=n_perm, seed=seed)


@hookimpl
def register_probes(register: Callable[[type[Probe]], None]) -> None:
    register(PST)


@hookimpl
def report_sections(probe: Probe, run: RunView, result: ProbeResult) -> list[Section] | None:
    """The section on perceived skin tone, where the run's persons have tone labels."""
    if not isinstance(probe, PST):
        return None
    from diptych.plugins.probes.pst.swatches import tone_section

    section = tone_section(result, probe.p.tone_reference, probe.p.min_cell)
    return None if section is None else [section]

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
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from diptych.core.capabilities import Capability, Sampling
from diptych.core.figure_names import model_prefix, without_interval
from diptych.core.labels import CANNOT_IDENTIFY, Label
from diptych.core.plugins.hookspecs import hookimpl
from diptych.core.probe import Probe, ProbeResult
from diptych.core.runview import RunView
from diptych.core.trials import Subject, TrialSpec
from diptych.plugins.probes._paired_stereotype_test.identities import stereotyped_groups
from diptych.plugins.probes.pst_text.params import PSTTextParams, text_prompts
from diptych.plugins.probes.pst_text.pronouns import (
    draw_label,
    mass_name,
    renormalised_p_feminine,
    story_schema,
)
from diptych.plugins.probes.pst_text.segments import template_segments

if TYPE_CHECKING:
    from diptych.core.metrics.uncertainty.precision import Components, PlannedFigure
    from diptych.core.standings import FigureSample

#: The placeholders that say which person of the scene a likelihood prompt asks about: the
#: prompt's last piece starts at the first of them (see segments.py).
PERSON_FIELDS = frozenset({"target", "position", "id"})


class PSTText(Probe[PSTTextParams]):
    """Paired Stereotype Test on text: which pronoun a model gives each of two people."""

    name = "pst-text"
    #: What a figure's n counts: one prompt about one person (its samples merged).
    observation = "prompt"
    #: One trial is the labels drawn for one scene in one order once.
    trial_unit = "draw"
    goal = (
        "Measure gender stereotyping of occupations in a text model by the Stereotype Test "
        "Score, paired and single (Paired Stereotype Test, Sections 3.3 and 4)."
    )
    version = "1"
    capabilities = frozenset({Capability.TEXT_LIKELIHOOD, Capability.CHAT})
    Params = PSTTextParams  # type: ignore[assignment]

    def required_capability(self) -> Capability:
        return Capability.TEXT_LIKELIHOOD if self.p.mode == "likelihood" else Capability.CHAT

    # --- planning ---------------------------------------------------------------------------

    def groups(self) -> dict[str, list[str]]:
        if self.p.new_identities:
            return {
                "masculine": list(self.p.masculine or []),
                "feminine": list(self.p.feminine or []),
            }
        return stereotyped_groups(self.p.masculine, self.p.feminine)

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

    def figure_names(self, n_models: int = 1) -> list[str] | None:
        # The keys analyze_pst_text gives; several models prefix them with each model's id.
        prefix = model_prefix(n_models)
        settings = ("paired", "single") if self.p.setting == "both" else (self.p.setting,)
        drawn = " (drawn labels)" if self.p.mode == "likelihood" else ""
        names = [f"{prefix}STS {s}{drawn}" for s in settings]
        if self.p.mode == "likelihood":
            # The headline first (the figure the planned precision and the docs' gates read):
            # a mistyped gate is offered the first names that fit.
            names[:0] = [f"{prefix}STS {s} (expected from P(he), P(she))" for s in settings]
            # The mass is described (mean, least, greatest over prompts), not estimated.
            mass = "a mean over the prompts, with its least and greatest"
            names += [without_interval(f"{prefix}{mass_name(s)}", mass) for s in settings]
        if len(settings) == 2:
            names.append(f"{prefix}gap paired − single{drawn}")
        return names

    def planned_figures(self) -> list[PlannedFigure]:
        # No paper publishes a text model's spread: the PST paper's image figures stand in
        # (stated as such) until an earlier pst-text run in the workspace replaces them. The
        # expected STS reads each distinct prompt once; its spread is taken as the drawn
        # labels', which over-states it (a probability varies less than a draw from it). The
        # drawn labels' interval resamples both identity lists, the units that vary
        # (analysis.py), so their plan does too, with every answer of a scene in its cell.
        from dataclasses import replace

        from diptych.plugins.probes._paired_stereotype_test.precision import (
            PAPER,
            PAPER_COMPONENTS,
            sts_figure,
        )

        groups = self.groups()
        sizes = (len(groups["masculine"]), len(groups["feminine"]))
        most = None if self.p.new_identities else 20
        settings = ("paired", "single") if self.p.setting == "both" else (self.p.setting,)
        stated = f"{PAPER}, standing in for a text model's spread (none is published)"
        grow = "name more with -p masculine=... -p feminine=..."
        out = []
        for setting in settings:
            comp = replace(PAPER_COMPONENTS[("occupation", setting)], source=stated)
            samples = self.p.samples_paired if setting == "paired" else self.p.samples_single
            persons = 4 if setting == "paired" else 1
            if self.p.mode != "likelihood":
                out.append(sts_figure(f"STS {setting}", setting, sizes, persons * samples, comp,
                                      max_size=most, grow=grow))  # fmt: skip
                continue
            name = f"STS {setting} (expected from P(he), P(she))"
            out.append(sts_figure(name, setting, sizes, persons, comp, max_size=most, grow=grow))
            out.append(sts_figure(f"STS {setting} (drawn labels)", setting, sizes,
                                  persons * samples, comp, max_size=most, grow=grow))  # fmt: skip
        return out

    def observed_components(self, run: RunView) -> dict[str, Components]:
        from diptych.core.metrics.uncertainty.precision import components_of
        from diptych.plugins.probes._paired_stereotype_test.precision import (
            UNITS,
            observed_sts_components,
        )
        from diptych.plugins.probes._paired_stereotype_test.scoring import sts_row
        from diptych.plugins.probes.pst_text.analysis import distinct_prompts, planned_scenes

        labels = run.labels(self.self_annotator)
        if not labels:
            return {}
        # The first model's: a plan is per model, and one model's spread stands for it.
        model = labels[0].model_id
        mine = [lab for lab in labels if lab.model_id == model]
        source = f"run {run.id} ({model})"
        rows = [sts_row(lab) for lab in mine]
        # The labels' interval resamples both identity lists, drawn or told alike.
        drawn = " (drawn labels)" if self.p.mode == "likelihood" else ""
        # Each person in the scene its trial planned, as the figure places it: a run stopped
        # between a scene's two people has one of them labelled.
        found = observed_sts_components(rows, source, drawn=True, scenes=planned_scenes(mine))
        out = {f"STS {setting}{drawn}": comp for setting, comp in found.items()}
        readings = distinct_prompts(mine)
        for setting in ("paired", "single"):
            chosen = [r for r in readings if r.setting == setting]
            if len({r.masculine for r in chosen} - {None}) < 2:
                continue
            if len({r.feminine for r in chosen} - {None}) < 2:
                continue
            out[f"STS {setting} (expected from P(he), P(she))"] = components_of(
                [100.0 * r.stereo for r in chosen],
                {UNITS[0]: [r.masculine for r in chosen], UNITS[1]: [r.feminine for r in chosen]},
                source=f"{source}, {len(chosen):,} prompts",
            )
        return out

    def figure_samples(self, run: RunView) -> list[FigureSample]:
        # Each model's overall STS per setting as its run's headline: in likelihood mode the
        # STS expected from P(he), P(she); in story mode that of its stories' pronouns.
        from diptych.core.standings import design_of, sts_samples
        from diptych.plugins.probes._paired_stereotype_test.scoring import sts_row
        from diptych.plugins.probes.pst_text.analysis import planned_scenes

        design, words = design_of(run.run.probe, run.run.probe_version, run.run.params)
        if self.p.mode == "likelihood":
            return self._expected_samples(run, design, words)
        by_model: dict[str, list[Any]] = {}
        labels = run.labels(self.self_annotator)
        for lab in labels:
            by_model.setdefault(lab.model_id, []).append(sts_row(lab))
        # Each paired scene as planned (its two identities), as the report's figure over
        # identities reads it: a run decided at an early look has often labelled one person
        # of a scene only.
        scenes = {image: (scene.get("masculine"), scene.get("feminine"))
                  for image, scene in planned_scenes(labels).items()}  # fmt: skip
        out: list[FigureSample] = []
        for model, rows in by_model.items():
            out += sts_samples(rows, model=model, prefix="", design=design, design_label=words,
                               scenes=scenes)  # fmt: skip
        return out

    def _expected_samples(self, run: RunView, design: str, words: str) -> list[FigureSample]:
        """A likelihood run's headline, the STS expected from P(he), P(she): each distinct
        prompt's 2·P(stereotyped pronoun) − 1 in its unordered scene (its two identities; one
        of them in the single setting), as the run's own figure reads them. The STS of labels
        drawn from those probabilities adds sampling noise to it and is not ranked."""
        from diptych.core.standings import FigureSample, sts_unit_words
        from diptych.plugins.probes.pst_text.analysis import SETTINGS, distinct_prompts

        by_model: dict[str, list[Any]] = {}
        for lab in run.labels(self.self_annotator):
            by_model.setdefault(lab.model_id, []).append(lab)
        out: list[FigureSample] = []
        for model, labels in by_model.items():
            readings = distinct_prompts(labels)
            for setting in SETTINGS:
                chosen = [r for r in readings if r.setting == setting]
                if not chosen:
                    continue
                cells = [(r.masculine, r.feminine) for r in chosen]
                out.append(
                    FigureSample(
                        model=model,
                        figure=f"STS {setting} (expected from P(he), P(she))",
                        design=f"{design}/{setting}",
                        design_label=words,
                        values=[r.stereo for r in chosen],
                        units={
                            "masculine identity": [r.masculine for r in chosen],
                            "feminine identity": [r.feminine for r in chosen],
                        },
                        cells=list(cells),
                        cell_units={
                            c: {"masculine identity": c[0], "feminine identity": c[1]}
                            for c in set(cells)
                        },
                        unit_words=sts_unit_words(setting),
                    )
                )
        return out

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
        # The scene's prompts, each cut where the template says (see segments.py); the
        # people of a scene share every piece but the last, and are decoded together.
        split = [
            template_segments(
                template,
                {
                    "id": target,
                    "id1": meta.get("id1", ""),
                    "id2": meta.get("id2", ""),
                    "target": target,
                    "position": position,
                },
                cut_before=("id1", "id2"),
                person_fields=PERSON_FIELDS,
            )
            for position, target in people
        ]
        siblings = [segments[-1] for segments in split]
        together = len(people) > 1 and all(s[:-1] == split[0][:-1] for s in split)
        for (position, target), segments in zip(people, split, strict=True):
            subject = Subject(position, {"identity": target, "stereotype": stereotype[target]})
            payload: dict[str, Any] = {
                "prompt": "".join(segments),
                "candidates": candidates,
                "segments": segments,
            }
            if together:
                payload["siblings"] = siblings
            yield TrialSpec(
                Capability.TEXT_LIKELIHOOD,
                payload,
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
        except (json.JSONDecodeError, RecursionError):
            answer = {}
        if not isinstance(answer, dict):
            answer = {}
        labels = []
        for i, subject in enumerate(spec.subjects):
            said = str(answer.get(f"pronoun_{i + 1}", "")).strip().lower()
            labels.append(
                Label(
                    subject.position,
                    pronouns.get(said, CANNOT_IDENTIFY),
                    detail={"pronoun": said or None},
                )
            )
        return labels

    # --- analysis ---------------------------------------------------------------------------

    def analyze(self, run: RunView) -> ProbeResult:
        from diptych.plugins.probes.pst_text.analysis import analyze_pst_text

        return analyze_pst_text(run, self.p, self.self_annotator)


@hookimpl
def register_probes(register: Callable[[type[Probe]], None]) -> None:
    register(PSTText)

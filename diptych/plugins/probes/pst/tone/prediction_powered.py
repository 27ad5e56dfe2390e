"""The prediction-powered tone figures of a ``pst`` run: the automatic tone annotator's Monk
step on every person, corrected by people's tone labels on a designed sample
(:mod:`diptych.core.metrics.tone.predicted`), as the STS is by people's gender labels
(:mod:`diptych.plugins.probes.pst.predicted`).

The figures are the tone gap of paired images and each band's share per setting, over the same
units as the uncorrected ones: both identity lists, crossed in paired scenes (a person counts
under its scene's two identities), each list a stratum in single images. People's tone labels
enter from census strata and from the drawn batches the combined design admits
(:mod:`diptych.core.metrics.uncertainty.ppi.batches`), each weighted by the inverse of its
probability; a tone label a reviewer chose never enters (it serves agreement and review).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from diptych.core.digits import figure_text
from diptych.core.labels import TONE, automatic_order, majority
from diptych.core.labels.tone import monk_step
from diptych.core.metrics.tone import BAND_NAMES, NO_TONE
from diptych.core.metrics.tone.predicted import (
    prediction_powered_band_share,
    prediction_powered_mean_step,
    prediction_powered_tone_gap,
)
from diptych.core.metrics.uncertainty.ppi.estimate import ESTIMATOR_NAME, PredictionPowered
from diptych.core.probe import Table
from diptych.core.runview import RunView
from diptych.plugins.probes._paired_stereotype_test.scoring import estimate_cells
from diptych.plugins.probes.pst.collect import GroupKey
from diptych.plugins.probes.pst.context import AnalysisContext, group_prefix
from diptych.plugins.probes.pst.prediction_powered.persons import labelled_persons
from diptych.plugins.probes.pst.tone.figures import SETTINGS, tone_labels

SUFFIX = ", prediction-powered"


@dataclass(frozen=True)
class TonePerson:
    """One person of a finished image: the annotator's step and, where drawn, people's."""

    key: GroupKey
    setting: str
    stereotype: str
    #: The scene's masculine- and feminine-stereotyped identity (paired), or the person's own
    #: identity under its stereotype's list (single).
    units: Mapping[str, Hashable | None]
    pred: int
    truth: int
    labelled: bool
    probability: float
    design: str | None


def tone_persons(run: RunView, annotator: str) -> list[TonePerson]:
    """Every person of the run's finished images with ``annotator``'s step (0 where it gave
    none) and, where the combined design of people's tone labels drew the person, the majority
    of those labels."""
    found, _ = labelled_persons(run, tone_labels(run), annotator)
    out = []
    for p in found:
        stereotype = p.subject.meta["stereotype"]
        if p.setting == "paired":
            units = {"masculine identity": p.named.get("masculine"),
                     "feminine identity": p.named.get("feminine")}  # fmt: skip
        else:
            own = str(p.subject.meta["identity"])
            masculine = stereotype == "masculine"
            units = {"masculine identity": own if masculine else None,
                     "feminine identity": None if masculine else own}  # fmt: skip
        people = majority(p.entering) if p.entering else None
        out.append(
            TonePerson(
                p.key, p.setting, stereotype, units,
                (monk_step(p.given) or NO_TONE) if p.given else NO_TONE,
                (monk_step(people) or NO_TONE) if people else NO_TONE,
                bool(p.entering), p.probability, p.design,
            )
        )  # fmt: skip
    return out


def _arrays(persons: Sequence[TonePerson]) -> dict[str, Any]:
    by_design: dict[str, int] = {}
    for p in persons:
        if p.design is not None:
            by_design[p.design] = by_design.get(p.design, 0) + 1
    units: dict[str, list[Hashable | None]] = {}
    for p in persons:
        for name, unit in p.units.items():
            units.setdefault(name, []).append(unit)
    return {
        "truth": [p.truth for p in persons],
        "pred": [p.pred for p in persons],
        "labelled": [p.labelled for p in persons],
        "probability": [p.probability for p in persons],
        "units": units,
        "by_design": by_design,
    }


def _gap(persons: Sequence[TonePerson]) -> PredictionPowered | None:
    """The gap where people labelled persons of both lists in paired images."""
    paired = [p for p in persons if p.setting == "paired" and None not in p.units.values()]
    of = {g: [p for p in paired if p.stereotype == g] for g in ("masculine", "feminine")}
    if not all(any(p.labelled for p in ps) for ps in of.values()):
        return None
    means = {}
    for gender, ps in of.items():
        a = _arrays(ps)
        means[gender] = (prediction_powered_mean_step(**a), a["units"])
    return prediction_powered_tone_gap(*means["masculine"], *means["feminine"])


def add_prediction_powered_tone(ctx: AnalysisContext, run: RunView) -> None:
    """The prediction-powered tone figures of every group (module docstring), where an
    automatic annotator read tones and people tone-labelled a designed sample."""
    everyone = [lab for labs in tone_labels(run).values() for lab in labs]
    automatic = automatic_order(everyone, TONE)
    if not automatic:
        return
    annotator = automatic[0]
    persons = tone_persons(run, annotator)
    if not any(p.labelled for p in persons):
        return
    table = Table(
        f"Prediction-powered skin tone ({annotator} on every person, people on a designed "
        "sample)",
        ["model · aspect", "figure", "setting", "persons", "labelled by people", "λ", "value",
         "95% CI", "people's labels alone", "their 95% CI"],
        [],
        note=_method(annotator),
    )  # fmt: skip
    numbers = ctx.result.numbers
    found: dict[str, Any] = {}
    for key in dict.fromkeys(p.key for p in persons):
        prefix = group_prefix(key, ctx.several_models)
        where = prefix.rstrip(": ")
        mine = [p for p in persons if p.key == key]
        figures: list[tuple[str, str, PredictionPowered]] = []
        gap = _failing(ctx, prefix, "tone gap paired", partial(_gap, mine))
        if gap is not None:
            figures.append(("tone gap paired", "paired", gap))
        for setting in SETTINGS:
            chosen = [p for p in mine if p.setting == setting]
            if not any(p.labelled for p in chosen):
                continue
            a = _arrays(chosen)
            for band in BAND_NAMES:
                name = f"tone share {band}, {setting}"
                share = _failing(
                    ctx, prefix, name, partial(prediction_powered_band_share, band, **a)
                )
                if share is not None:
                    figures.append((name, setting, share))
        for name, setting, figure in figures:
            record = {**figure.to_dict(), "annotator": annotator}
            if name.startswith("tone gap"):
                record["unit"] = "Monk steps"
            numbers[f"{prefix}{name}{SUFFIX}"] = record
            found.setdefault(where, {})[name] = record
            lam = " / ".join(figure_text(v) for v in (figure.lambdas or (figure.lam,)))
            own = figure.labels_only.to_dict()
            table.rows.append([
                where, name.removesuffix(f", {setting}"), setting, figure.n_persons,
                figure.n_labelled, lam, *estimate_cells(figure.inference.to_dict()),
                *estimate_cells(own),
            ])  # fmt: skip
    if table.rows:
        ctx.result.tables.append(table)
        ctx.result.notes.append(_method(annotator))
        tone = ctx.result.data.setdefault("tone", {})
        for where, figures_of in found.items():
            tone.setdefault(where, {})["prediction_powered"] = figures_of


def _failing(
    ctx: AnalysisContext, prefix: str, name: str, make: Callable[[], PredictionPowered | None]
) -> PredictionPowered | None:
    """``make()``, or None with a note saying why the figure has no corrected value."""
    try:
        figure = make()
    except ValueError as why:
        ctx.result.notes.append(f"{prefix}no prediction-powered {name}: {why}")
        return None
    return figure


def _method(annotator: str) -> str:
    return (
        f"prediction-powered tone figures: {ESTIMATOR_NAME} from the Monk steps of annotator "
        f"{annotator!r} on every person and people's tone labels on a sample drawn with known "
        "probabilities (census, uniform or active), each weighted by the inverse of its "
        "probability; λ tuned per figure (0: people's labels alone). Tone labels a reviewer "
        "chose are not used. The tone gap is the masculine-stereotyped persons' mean step less "
        "the feminine-stereotyped persons', both lists of identities resampled with their "
        "labelled and unlabelled persons together; a band's share is over the persons whose "
        "tone was read."
    )

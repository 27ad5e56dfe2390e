"""Run B − run A prediction-powered (a mitigation against its baseline, PST Table 6): where each
run has an automatic annotator on every person and people's labels of a designed sample.

Each run's figure is its own prediction-powered STS (its own annotator, sample and λ); B − A adds
up both runs' influences
(:func:`~diptych.core.metrics.uncertainty.ppi.estimate.prediction_powered_combination`) and
resamples the units the runs share jointly: both identity lists for the overall STS (an identity
carries its persons of both runs, so the runs matched scene by scene cancel what a scene shares), an
identity's partners for its paired micro STS, and each run's own images for the single one. Only
identities both runs asked for are compared, and an image counts only if every person in it has such
an identity, as the comparison of people's labels does (:mod:`diptych.plugins.probes.pst.compare`).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from typing import Any

from diptych.core.digits import figure_text
from diptych.core.metrics.sts import SETTINGS
from diptych.core.metrics.uncertainty.intervals import STS_DIFFERENCE_RANGE
from diptych.core.metrics.uncertainty.ppi.estimate import (
    PredictionPowered,
    prediction_powered_combination,
)
from diptych.core.probe import Table
from diptych.core.report.formatting import bounds
from diptych.core.runview import RunView
from diptych.plugins.probes.pst.collect import collect_labels
from diptych.plugins.probes.pst.prediction_powered.analysis import design_statement
from diptych.plugins.probes.pst.prediction_powered.persons import (
    Person,
    Units,
    identity_units,
    image_units,
    ratio,
    run_persons,
)

_COLUMNS = ["A", "B", "B − A", "95% CI", "p", "labelled A", "labelled B", "λ A / B"]


def _partner_units(p: Person) -> dict[str, Hashable | None]:
    return {"partner": p.partner}


def _persons(view: RunView) -> tuple[str, list[Person]] | None:
    """The run's first automatic annotator and its persons, where people labelled a designed
    sample; None otherwise."""
    automatic = collect_labels(view).automatic
    if not automatic:
        return None
    persons, _ = run_persons(view, automatic[0])
    return (automatic[0], persons) if any(p.labelled for p in persons) else None


def _kept(persons: Sequence[Person], identities: Collection[str]) -> list[Person]:
    """Persons of images every person of which has one of ``identities``."""
    outside = {p.image for p in persons if p.identity not in identities}
    return [p for p in persons if p.image not in outside]


def _of(
    persons: Sequence[Person], model: str, aspect: str, identities: Collection[str]
) -> list[Person]:
    """The persons of one model and aspect in images of ``identities`` only."""
    return _kept([p for p in persons if p.key.model_id == model and p.key.aspect == aspect],
                 identities)  # fmt: skip


def _difference(
    a: Sequence[Person], b: Sequence[Person], units: Units, tag_images: bool
) -> tuple[PredictionPowered, PredictionPowered, PredictionPowered] | None:
    """(A, B, B − A), or None where either run has no usable label here."""
    if not any(p.labelled for p in a) or not any(p.labelled for p in b):
        return None
    try:
        found_a, units_a = ratio(a, units, "a" if tag_images else None)
        found_b, units_b = ratio(b, units, "b" if tag_images else None)
    except ValueError:
        return None
    change = prediction_powered_combination(
        [(1.0, found_b, units_b), (-1.0, found_a, units_a)],
        scale=100.0,
        bounds=STS_DIFFERENCE_RANGE,
    )
    return found_a, found_b, change


def _cells(a: PredictionPowered, b: PredictionPowered, d: PredictionPowered) -> list[Any]:
    inf = d.inference
    ci = bounds(inf.ci_low, inf.ci_high) if inf.has_interval else "—"
    return [
        a.inference.value, b.inference.value, inf.value, ci, inf.p_value,
        a.n_labelled, b.n_labelled, f"{figure_text(a.lam)} / {figure_text(b.lam)}",
    ]  # fmt: skip


def predicted_comparisons(
    view_a: RunView, view_b: RunView, comparisons: Sequence[dict[str, Any]]
) -> tuple[list[Table], list[dict[str, Any]]]:
    """For each comparison :func:`~diptych.plugins.probes.pst.compare.compare_runs` made (model
    pair, aspect, identities), B − A prediction-powered: a table of the overall STS per setting
    and one per identity, and their records; nothing where a run has no designed sample."""
    found_a, found_b = _persons(view_a), _persons(view_b)
    if found_a is None or found_b is None:
        return [], []
    (annotator_a, persons_a), (annotator_b, persons_b) = found_a, found_b
    tables: list[Table] = []
    records: list[dict[str, Any]] = []
    for entry in comparisons:
        identities = set(entry["comparison"].identities)
        if entry["selected"]:
            identities &= set(entry["selected"])
        a = _of(persons_a, entry["model_a"], entry["aspect"], identities)
        b = _of(persons_b, entry["model_b"], entry["aspect"], identities)
        where = f"{entry['model_a']} · {entry['aspect']}"
        overall = Table(
            f"{where}: prediction-powered B − A ({annotator_a} on A, {annotator_b} on B, "
            "people on designed samples)",
            ["overall", "setting", *_COLUMNS],
            [],
        )
        micro = Table(
            f"{where}: prediction-powered micro STS per identity, B − A",
            ["identity", "setting", *_COLUMNS],
            [],
        )
        statements: list[str] = []
        for setting in SETTINGS:
            in_a = [p for p in a if p.setting == setting]
            in_b = [p for p in b if p.setting == setting]
            done = _difference(in_a, in_b, identity_units, tag_images=False)
            if done is not None:
                overall.rows.append(["overall", setting, *_cells(*done)])
                records.append(_record(entry, "overall", setting, done))
                statements += [
                    f"{setting}: A {design_statement(done[0], annotator_a)}; "
                    f"B {design_statement(done[1], annotator_b)}"
                ]
            for identity in sorted(identities):
                mine_a = [p for p in in_a if p.identity == identity]
                mine_b = [p for p in in_b if p.identity == identity]
                units = _partner_units if setting == "paired" else image_units
                done = _difference(mine_a, mine_b, units, tag_images=setting != "paired")
                if done is not None:
                    micro.rows.append([identity, setting, *_cells(*done)])
                    records.append(_record(entry, identity, setting, done))
        if overall.rows:
            overall.note = (
                "Each run's STS is prediction-powered (its annotator on every person, "
                "people's labels of its designed sample, λ tuned per run); B − A resamples "
                "both identity lists of both runs jointly. " + "; ".join(statements) + "."
            )
            tables.append(overall)
        micro.rows.sort(key=lambda row: (row[0], SETTINGS.index(row[1])))
        if micro.rows:
            micro.note = (
                "Paired: an identity's partners resampled in both runs jointly; single: each "
                "run's images. An interval's degrees of freedom are at most the fewer labelled "
                "persons less one (no interval below two)."
            )
            tables.append(micro)
    return tables, records


def _record(
    entry: dict[str, Any],
    slice_: str,
    setting: str,
    done: tuple[PredictionPowered, PredictionPowered, PredictionPowered],
) -> dict[str, Any]:
    a, b, d = done
    return {
        "model_a": entry["model_a"],
        "model_b": entry["model_b"],
        "aspect": entry["aspect"],
        "slice": slice_,
        "setting": setting,
        "a": a.to_dict(),
        "b": b.to_dict(),
        "difference": d.to_dict(),
    }

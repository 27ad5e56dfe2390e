"""The prediction-powered STS of a ``pst`` run: one automatic annotator's labels on every person,
corrected by the human labels of a designed sample (:mod:`diptych.core.metrics.ppi`).

Only human labels whose person was drawn with a known probability enter (a ``census`` of a
stratum, a ``uniform`` or an ``active`` sample); a reviewer's ``chosen`` labels do not. Census
labels enter with probability 1; of the drawn batches, the one that labelled most persons enters
with the probabilities it stored (two batches drawn independently over the same persons have no
joint probability on record; the others are counted and said to be left out). The interval is
the run's own design over identities: both lists in paired scenes, each list a stratum in single
ones — labelled and unlabelled persons resampled together.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from diptych.core.labels import majority
from diptych.core.metrics.intervals import STS_RANGE
from diptych.core.metrics.ppi import ESTIMATOR_NAME, PredictionPowered, prediction_powered_ratio
from diptych.core.metrics.sts import SETTINGS
from diptych.core.probe import Table
from diptych.core.runview import RunView
from diptych.plugins.probes.pst.collect import GroupKey, PSTLabels, readable_labels
from diptych.plugins.probes.pst.context import AnalysisContext, group_prefix

_STEREO = {True: 1.0, False: -1.0}


@dataclass
class _Persons:
    """One group's and setting's persons, parallel lists."""

    pred: list[float] = field(default_factory=list)
    pred_told: list[float] = field(default_factory=list)
    truth: list[float] = field(default_factory=list)
    truth_told: list[float] = field(default_factory=list)
    labelled: list[bool] = field(default_factory=list)
    probability: list[float] = field(default_factory=list)
    rows: list[str | None] = field(default_factory=list)
    cols: list[str | None] = field(default_factory=list)
    designs: Counter[str] = field(default_factory=Counter)


def _stereo(label: str | None, stereotype: str) -> tuple[float, float]:
    """(Stereo, told): ±1 and 1 for a gender, (0, 0) for cannot_identify or no label."""
    if label not in ("masculine", "feminine"):
        return 0.0, 0.0
    return _STEREO[label == stereotype], 1.0


def _chosen_draw(run: RunView) -> tuple[str | None, Counter[str]]:
    """The drawn batch that labelled most persons, and every batch's count."""
    persons: dict[str, set[tuple[int, str]]] = {}
    for lab in run.labels():
        s = lab.design
        if lab.kind == "human" and s is not None and s.design in ("uniform", "active"):
            persons.setdefault(s.draw or s.design, set()).add(lab.subject)
    counts = Counter({draw: len(p) for draw, p in persons.items()})
    best = max(counts, key=lambda d: (counts[d], d)) if counts else None
    return best, counts


def _persons(
    run: RunView, annotator: str, draw: str | None
) -> dict[tuple[GroupKey, str], _Persons]:
    readable, _ = readable_labels(run)
    out: dict[tuple[GroupKey, str], _Persons] = {}
    for trial in run.trials:
        result = run.result(trial)
        if result is None or result.status != "done":
            continue
        meta = trial.meta
        key = GroupKey(trial.model_id, meta.get("aspect", "occupation"), meta.get("intervention"))
        setting = meta["setting"]
        subjects = list(run.subjects(trial))
        scene = {s.meta["stereotype"]: str(s.meta["identity"]) for s in subjects}
        group = out.setdefault((key, setting), _Persons())
        for subject in subjects:
            stereotype = subject.meta["stereotype"]
            labs = readable.get((trial.idx, subject.position), [])
            given = next((lab.label for lab in labs if lab.annotator == annotator), None)
            f, f_told = _stereo(given, stereotype)
            designed = [
                lab for lab in labs
                if lab.kind == "human" and (s := lab.design) is not None
                and (s.design == "census" or (s.known_probability and (s.draw or s.design) == draw))
            ]  # fmt: skip
            census = any(lab.design and lab.design.design == "census" for lab in designed)
            truth = majority(lab.label for lab in designed) if designed else None
            y, y_told = _stereo(truth, stereotype)
            group.pred.append(f)
            group.pred_told.append(f_told)
            group.truth.append(y)
            group.truth_told.append(y_told)
            group.labelled.append(bool(designed))
            first = designed[0].design if designed else None
            p = 1.0 if census or first is None else float(first.probability or 1.0)
            group.probability.append(p)
            if first is not None:
                group.designs["census" if census else first.design] += 1
            if setting == "paired":
                group.rows.append(scene.get("masculine"))
                group.cols.append(scene.get("feminine"))
            else:
                masc = stereotype == "masculine"
                group.rows.append(str(subject.meta["identity"]) if masc else None)
                group.cols.append(None if masc else str(subject.meta["identity"]))
    return out


_HOW = {
    "census": "in a census of a stratum",
    "uniform": "chosen uniformly",
    "active": "chosen actively (more where the annotator was unsure)",
}


def design_statement(found: PredictionPowered, annotator: str) -> str:
    """The sentence a verdict cites: what the figure rests on."""
    how = ", ".join(f"{n} {_HOW.get(d, d)}" for d, n in sorted(found.by_design.items()))
    return (
        f"n = {found.n_persons} persons labelled by {annotator}, {found.n_labelled} by people, "
        f"{how}"
    )


def add_prediction_powered(ctx: AnalysisContext, run: RunView, labels: PSTLabels) -> None:
    """The prediction-powered STS per group and setting, where a designed sample was labelled
    by people and an automatic annotator labelled the run."""
    if not labels.automatic:
        return
    annotator = labels.automatic[0]
    draw, batches = _chosen_draw(run)
    groups = _persons(run, annotator, draw)
    if not any(any(g.labelled) for g in groups.values()):
        return
    table = Table(
        f"Prediction-powered STS ({annotator} on every person, people on a designed sample)",
        ["model · aspect", "setting", "persons", "labelled by people", "design", "λ",
         "STS", "95% CI", "people's labels alone", "their 95% CI"],
        [],
        note="",
    )  # fmt: skip
    computed: list[dict[str, Any]] = []
    for (key, setting), g in sorted(groups.items(), key=lambda kv: SETTINGS.index(kv[0][1])):
        if not any(g.labelled):
            continue
        prefix = group_prefix(key, ctx.several_models)
        try:
            found = prediction_powered_ratio(
                g.truth, g.truth_told, g.pred, g.pred_told, g.labelled, g.probability,
                {"masculine identity": g.rows, "feminine identity": g.cols},
                scale=100.0, bounds=STS_RANGE, by_design=g.designs,
            )  # fmt: skip
        except ValueError as why:
            ctx.result.notes.append(f"{prefix}no prediction-powered STS ({setting}): {why}")
            continue
        statement = design_statement(found, annotator)
        number = {**found.to_dict(), "annotator": annotator, "draw": draw,
                  "statement": statement}  # fmt: skip
        ctx.result.numbers[f"{prefix}STS {setting}, prediction-powered"] = number
        inf, own = found.inference, found.labels_only
        table.rows.append(
            [prefix.rstrip(": "), setting, found.n_persons, found.n_labelled,
             ", ".join(f"{d} {n}" for d, n in sorted(found.by_design.items())), found.lam,
             inf.value, _ci(inf), own.value, _ci(own)]
        )  # fmt: skip
        computed.append({"group": prefix.rstrip(": "), "setting": setting, **number})
        ctx.result.notes.append(f"{prefix}prediction-powered STS {setting}: {statement}")
    if not table.rows:
        return
    method = (
        f"prediction-powered STS: {ESTIMATOR_NAME} from {annotator}'s labels on every person "
        "and people's labels on a sample drawn with known probabilities (census, uniform or "
        "active), each weighted by the inverse of its probability; λ tuned to the variance "
        "(0: people's labels alone). Labels a reviewer chose are not used. The interval "
        "resamples both identity lists, labelled and unlabelled persons together."
    )
    left_out = {d: n for d, n in batches.items() if d != draw}
    if left_out:
        method += " Drawn batches left out (only one batch's probabilities enter): " + ", ".join(
            f"{d} ({n} persons)" for d, n in sorted(left_out.items())
        )
    table.note = method
    ctx.result.tables.append(table)
    ctx.result.notes.append(method)
    ctx.result.data["prediction_powered"] = computed
    ctx.result.data["estimators"] = {
        "prediction-powered": ESTIMATOR_NAME,
        "headline STS": "labels by the label policy (mixed, human or automatic)",
        "error-corrected STS": "Rogan–Gladen (runs without a designed sample)",
    }


def _ci(inf: Any) -> str:
    if not inf.has_interval:
        return "—"
    return f"[{inf.ci_low:.1f}, {inf.ci_high:.1f}]"

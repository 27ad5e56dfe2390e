"""The prediction-powered figures of a ``pst`` run: one automatic annotator's labels on every
person, corrected by the human labels of a designed sample
(:mod:`diptych.core.metrics.uncertainty.ppi.estimate`).

Each figure people's labels give has its prediction-powered counterpart, resampling the same
units: the overall STS per setting over both identity lists (crossed in paired scenes, each list
a stratum in single ones), the gap paired − single, the STS of each stereotyped group (Tables 3
and 4) and the micro STS per identity with its gap (Tables 14 to 16) over images — labelled and
unlabelled persons resampled together. A gap adds up the influences of its two settings' persons
(:func:`~diptych.core.metrics.uncertainty.ppi.estimate.prediction_powered_combination`), so its
interval resamples the images of both at once.

Human labels enter from census strata and from the drawn batches the combined design admits
(:mod:`diptych.core.metrics.uncertainty.ppi.batches`: all uniform batches together, each person
weighted by its probability of being in at least one); a reviewer's ``chosen`` labels never do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from diptych.core.digits import figure_text
from diptych.core.metrics.sts import SETTINGS
from diptych.core.metrics.uncertainty.intervals import STS_DIFFERENCE_RANGE
from diptych.core.metrics.uncertainty.ppi.batches import CombinedDesign, probability_summary
from diptych.core.metrics.uncertainty.ppi.estimate import (
    ESTIMATOR_NAME,
    RESTS_ON,
    PredictionPowered,
    prediction_powered_combination,
)
from diptych.core.probe import Table
from diptych.core.report.formatting import bounds
from diptych.core.runview import RunView
from diptych.plugins.probes.pst.collect import GroupKey, PSTLabels
from diptych.plugins.probes.pst.context import GROUP_NAMES, AnalysisContext, group_prefix
from diptych.plugins.probes.pst.prediction_powered.persons import (
    Person,
    Units,
    identity_units,
    image_units,
    ratio,
    run_persons,
    units_of,
)

_HOW = {
    "census": "in a census of a stratum",
    "uniform": "chosen uniformly",
    "active": "chosen actively (more where the annotator was unsure)",
}
_COLUMNS = ["model · aspect", "slice", "setting", "persons", "labelled by people", "λ", "STS",
            "95% CI", "people's labels alone", "their 95% CI"]  # fmt: skip
_TERMINAL = {"slice": "slice", "setting": "setting", "labelled by people": "labelled",
             "STS": "STS", "95% CI": "95% CI", "people's labels alone": "people alone"}  # fmt: skip


def design_statement(found: PredictionPowered, annotator: str, batches: int = 1) -> str:
    """The sentence a verdict cites: what the figure rests on."""
    designs = sorted(found.by_design.items())
    if len(designs) == 1:
        how = _HOW.get(designs[0][0], designs[0][0])
    else:
        how = "(" + ", ".join(f"{n} {_HOW.get(d, d)}" for d, n in designs) + ")"
    drawn = f" in {batches} drawn batches" if batches > 1 else ""
    return (
        f"n = {found.n_persons} persons labelled by {annotator}, {found.n_labelled} by people, "
        f"{how}{drawn}"
    )


def _ci(found: PredictionPowered | None, own: bool = False) -> str:
    if found is None:
        return "—"
    inf = found.labels_only if own else found.inference
    if not inf.has_interval:
        return "—"
    return bounds(inf.ci_low, inf.ci_high)


def _lam(found: PredictionPowered) -> str:
    values = found.lambdas or (found.lam,)
    return " / ".join(figure_text(v) for v in values)


def _row(where: str, slice_: str, setting: str, found: PredictionPowered) -> list[Any]:
    return [
        where, slice_, setting, found.n_persons, found.n_labelled, _lam(found),
        found.inference.value, _ci(found), found.labels_only.value, _ci(found, own=True),
    ]  # fmt: skip


def _with_gap(
    found: dict[str, PredictionPowered], gap: PredictionPowered | None
) -> list[tuple[str, PredictionPowered]]:
    """(setting, figure) of each setting and of the gap ("paired − single") where there is one."""
    return [*found.items(), *([("paired − single", gap)] if gap is not None else [])]


class _Figures:
    """The prediction-powered figures of a run, group by group: numbers, tables, records."""

    def __init__(self, ctx: AnalysisContext, annotator: str, design: CombinedDesign) -> None:
        self.ctx = ctx
        self.annotator = annotator
        self.design = design
        self.overall = Table(
            f"Prediction-powered STS ({annotator} on every person, people on a designed "
            "sample)",
            _COLUMNS, [], terminal_columns=_TERMINAL,
        )  # fmt: skip
        self.by_group = Table(
            "Prediction-powered STS by stereotyped group (PST Tables 3 and 4)",
            _COLUMNS, [], terminal_columns=_TERMINAL,
        )  # fmt: skip
        self.micro = _micro_table()
        self.computed: list[dict[str, Any]] = []
        #: λ of the stereotyped groups' and identities' figures (the methods give their range).
        self.slice_lambdas: list[float] = []

    def settings(
        self, persons: Sequence[Person], units: Units, what: str, prefix: str
    ) -> dict[str, PredictionPowered]:
        """Each setting's figure of ``persons``, where any of them was labelled."""
        out: dict[str, PredictionPowered] = {}
        for setting in SETTINGS:
            chosen = [p for p in persons if p.setting == setting]
            if not any(p.labelled for p in chosen):
                continue
            try:
                out[setting], _ = ratio(chosen, units)
            except ValueError as why:
                self.ctx.result.notes.append(
                    f"{prefix}no prediction-powered STS {setting} of {what}: {why}"
                )
        return out

    @staticmethod
    def gap(
        persons: Sequence[Person], found: dict[str, PredictionPowered]
    ) -> PredictionPowered | None:
        """paired − single, the two settings' images resampled together."""
        if not {"paired", "single"} <= found.keys():
            return None
        terms = [
            (sign, found[s], units_of([p for p in persons if p.setting == s], image_units))
            for sign, s in ((1.0, "paired"), (-1.0, "single"))
        ]
        return prediction_powered_combination(terms, scale=100.0, bounds=STS_DIFFERENCE_RANGE)

    def add_group(self, key: GroupKey, mine: Sequence[Person]) -> None:
        prefix = group_prefix(key, self.ctx.several_models)
        where = prefix.rstrip(": ")
        result = self.ctx.result
        batches = max(len(self.design.batches), 1)
        # The overall figures are the run's numbers (a gate may rest on them).
        found = self.settings(mine, identity_units, "the group", prefix)
        for setting, figure in _with_gap(found, self.gap(mine, found)):
            name = prefix + (f"STS {setting}" if setting in found else "gap paired − single")
            statement = design_statement(figure, self.annotator, batches)
            number = {**figure.to_dict(), "annotator": self.annotator,
                      "draws": list(self.design.draws), "statement": statement}  # fmt: skip
            result.numbers[f"{name}, prediction-powered"] = number
            self.overall.rows.append(_row(where, "overall", setting, figure))
            self.computed.append({"group": where, "slice": "overall", "setting": setting,
                                  **number})  # fmt: skip
            result.notes.append(f"{name}, prediction-powered: {statement}")
        names = GROUP_NAMES.get(key.aspect, GROUP_NAMES["occupation"])
        for gender in ("feminine", "masculine"):
            of = [p for p in mine if p.stereotype == gender]
            found = self.settings(of, image_units, names[gender], prefix)
            for setting, figure in _with_gap(found, self.gap(of, found)):
                self.by_group.rows.append(_row(where, names[gender], setting, figure))
                self._record(where, names[gender], setting, figure)
        for identity in sorted({p.identity for p in mine}):
            of = [p for p in mine if p.identity == identity]
            found = self.settings(of, image_units, identity, prefix)
            if not found:
                continue
            gap = self.gap(of, found)
            self.micro.rows.append(_micro_row(where, of[0].stereotype, identity, found, gap))
            for setting, figure in _with_gap(found, gap):
                self._record(where, identity, setting, figure)

    def _record(self, where: str, slice_: str, setting: str, figure: PredictionPowered) -> None:
        self.computed.append(
            {"group": where, "slice": slice_, "setting": setting, **figure.to_dict()}
        )
        self.slice_lambdas += list(figure.lambdas or (figure.lam,))


def add_prediction_powered(ctx: AnalysisContext, run: RunView, labels: PSTLabels) -> None:
    """Every prediction-powered figure (module docstring), where a designed sample was labelled
    by people and an automatic annotator labelled the run; and what they rest on."""
    if not labels.automatic:
        return
    annotator = labels.automatic[0]
    persons, design = run_persons(run, annotator)
    chosen = _chosen_persons(run)
    if not any(p.labelled for p in persons):
        if chosen:
            ctx.result.data[RESTS_ON] = [_no_design(run.id, chosen)]
        return
    figures = _Figures(ctx, annotator, design)
    for key in labels.groups:
        figures.add_group(key, [p for p in persons if p.key == key])
    if not figures.overall.rows:
        return
    method = _method(annotator)
    for table in (figures.overall, figures.by_group, figures.micro):
        if table.rows:
            table.note = method
            ctx.result.tables.append(table)
    ctx.result.notes.append(method)
    ctx.result.data["prediction_powered"] = figures.computed
    ctx.result.data["prediction_powered_design"] = _design_record(persons, design, chosen)
    ctx.result.data[RESTS_ON] = rests_on_lines(
        annotator, persons, design, chosen, figures.overall.rows, figures.slice_lambdas
    )
    ctx.result.data["estimators"] = {
        "prediction-powered": ESTIMATOR_NAME,
        "headline STS": "labels by the label policy (mixed, human or automatic)",
        "error-corrected STS": "Rogan–Gladen (runs without a designed sample)",
    }


def _micro_table() -> Table:
    return Table(
        "Prediction-powered micro STS per identity (PST Tables 14 to 16)",
        ["model · aspect", "identity", "stereotype", "STS single", "single 95% CI",
         "STS paired", "paired 95% CI", "gap", "gap 95% CI", "labelled single",
         "labelled paired", "λ single", "λ paired"],
        [],
        terminal_columns={"identity": "identity", "STS single": "single", "STS paired": "paired",
                          "paired 95% CI": "paired 95% CI", "gap": "gap",
                          "labelled paired": "labelled"},
    )  # fmt: skip


def _micro_row(
    where: str,
    stereotype: str,
    identity: str,
    found: dict[str, PredictionPowered],
    gap: PredictionPowered | None,
) -> list[Any]:
    single, paired = found.get("single"), found.get("paired")
    return [
        where, identity, stereotype,
        single.inference.value if single else None, _ci(single),
        paired.inference.value if paired else None, _ci(paired),
        gap.inference.value if gap else None, _ci(gap),
        single.n_labelled if single else 0, paired.n_labelled if paired else 0,
        single.lam if single else None, paired.lam if paired else None,
    ]  # fmt: skip


def _method(annotator: str) -> str:
    return (
        f"prediction-powered figures: {ESTIMATOR_NAME} from the labels of annotator "
        f"{annotator!r} on every person and people's labels on a sample drawn with known "
        "probabilities (census, uniform or active), each weighted by the inverse of its "
        "probability of being drawn by at least one batch; λ tuned to the variance per "
        "figure (0: people's labels alone). Labels a reviewer chose are not used. The "
        "overall STS resamples both identity lists, the gaps, stereotyped groups and "
        "identities their images; labelled and unlabelled persons together, a gap's two "
        "settings at once. An interval's degrees of freedom are at most the labelled persons "
        "less one (no interval below two)."
    )


def _chosen_persons(run: RunView) -> int:
    """Persons with a human label a reviewer chose (and no probability)."""
    return len(
        {
            lab.subject
            for lab in run.labels()
            if lab.kind == "human" and lab.design is not None and lab.design.design == "chosen"
        }
    )


def _no_design(run_id: str, chosen: int) -> str:
    return (
        f"no prediction-powered figure: the {chosen} persons people labelled were chosen by a "
        "reviewer, and a chosen label never enters one (draw a sample with 'diptych annotate "
        f"{run_id} --template FILE.csv --sample N --design uniform', label it and --import it)"
    )


def _design_record(
    persons: Sequence[Person], design: CombinedDesign, chosen: int
) -> dict[str, Any]:
    """The design the figures rest on, as report.json keeps it."""
    labelled = [p for p in persons if p.labelled]
    counts: dict[str, int] = {}
    for p in labelled:
        assert p.design is not None
        counts[p.design] = counts.get(p.design, 0) + 1
    return {
        "estimator": ESTIMATOR_NAME,
        "persons": len(persons),
        "labelled": len(labelled),
        "by_design": counts,
        "census_persons": len(design.census),
        "batches": [
            {
                "draw": b.draw,
                "design": b.design,
                "persons": len(b.persons),
                **(
                    {"probability": b.constant}
                    if b.constant is not None
                    else {
                        "probability_" + k: v
                        for k, v in probability_summary(b.persons.values()).items()
                    }
                ),
            }
            for b in design.batches
        ],  # fmt: skip
        "probability": probability_summary(p.probability for p in labelled),
        "left_out": dict(design.left_out),
        "chosen_persons": chosen,
    }


def rests_on_lines(
    annotator: str,
    persons: Sequence[Person],
    design: CombinedDesign,
    chosen: int,
    overall_rows: Sequence[Sequence[Any]],
    slice_lambdas: Sequence[float],
) -> list[str]:
    """What the prediction-powered figures rest on, in the lines ``diptych show``, the TUI's
    run detail and the report's methods print."""
    record = _design_record(persons, design, chosen)
    counts = ", ".join(f"{d} {n}" for d, n in sorted(record["by_design"].items()))
    lines = [
        f"Prediction-powered figures: {ESTIMATOR_NAME}, from the labels of annotator "
        f"{annotator!r} on every person ({record['persons']}) and people's labels on "
        f"{record['labelled']} persons drawn with known probabilities ({counts}), each "
        "weighted by the inverse of its probability."
    ]
    batches = [
        f"{b['draw']} ({b['design']}, {b['persons']} persons, "
        + (f"π = {b['probability']:.4g}" if "probability" in b
           else f"π {b['probability_min']:.3g}–{b['probability_max']:.3g}")
        + ")"
        for b in record["batches"]
    ]  # fmt: skip
    if record["census_persons"]:
        batches.insert(0, f"census strata ({record['census_persons']} persons, π = 1)")
    pi = record["probability"]
    combined = " combined" if len(design.batches) > 1 else ""
    lines.append(
        f"Design{combined}: {'; '.join(batches)}. Each labelled person's probability of being "
        f"drawn{' by at least one batch, 1 − Π(1 − π_b)' if combined else ''}: min "
        f"{pi['min']:.3g}, max {pi['max']:.3g}, mean {pi['mean']:.3g}."
    )
    said = "; ".join(f"{row[0]} {row[2]} {row[5]}".strip() for row in overall_rows)
    if slice_lambdas:
        low, high = min(slice_lambdas), max(slice_lambdas)
        said += f"; stereotyped groups and identities {figure_text(low)}–{figure_text(high)}"
    lines.append(
        "λ (0: people's labels alone; 1: plain PPI, the annotator's figure corrected by "
        f"people's labels): {said}."
    )
    left = record["left_out"]
    if left:
        lines.append(
            "Drawn batches left out (their probabilities cannot be combined with those that "
            "enter): " + ", ".join(f"{d} ({n} persons)" for d, n in sorted(left.items())) + "."
        )
    lines.append(
        f"Labels a reviewer chose ({chosen} persons) never enter a prediction-powered figure."
        if chosen
        else "Labels a reviewer chose never enter a prediction-powered figure (this run has none)."
    )
    return lines

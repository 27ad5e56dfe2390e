"""The agreement tables of a run's report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from diptych.core.digits import figure_text
from diptych.core.metrics.agreement.coefficients import UNDEFINED_AGREEMENT, interval_name
from diptych.core.metrics.uncertainty.bootstrap import Estimate
from diptych.core.resampled_units import plural

if TYPE_CHECKING:
    from diptych.core.metrics.agreement.results import AnnotatorAgreement
    from diptych.core.probe import Table


#: The title of the table of Cohen's κ per pair: a page that shows a probe's own tables looks
#: for it before adding the run's agreement (the pst probe's analysis has them already).
PAIRWISE_TITLE = "Agreement between annotators (Cohen's κ)"


def _interval(e: Estimate) -> str:
    if e.ci_low != e.ci_low:  # NaN: too few units, one value in every resample, or none defined
        # The words every page uses for a figure with no interval (report.formatting's
        # no_interval: "no interval (one draw only)", "no interval (every resample of its 2
        # images gives 1.00)"); a bare dash is the undefined coefficient the note explains.
        return f"no interval ({e.reason})" if e.reason and e.value == e.value else "—"
    # The reader's minus (U+2212), as every printed number is signed.
    return f"[{figure_text(e.ci_low)}, {figure_text(e.ci_high)}]"


def _value_or_none(e: Estimate) -> float | None:
    return None if e.value != e.value else e.value


def _units(e: Estimate) -> int:
    """How many units (images, draws) the interval of ``e`` resampled."""
    return sum((e.units or {}).values())


def agreement_report_tables(report: AnnotatorAgreement) -> list[Table]:
    """The tables of ``report``: labels by annotator, Cohen's κ, Fleiss' κ and α, and the
    automatic annotators against the human majority (those with anything to show)."""
    from diptych.core.probe import Table

    units = plural(report.unit)
    boot = (
        f"95% intervals: percentile bootstrap over {units} ({report.n_boot:,} resamples, "
        f"seed {report.seed}), the persons of one {report.unit} resampled together; the column "
        f"'{units}' says how many each resamples; one {report.unit} alone gives no interval, "
        f"nor do {units} whose every resample gives one value (κ = 1 where each agrees fully): "
        "the bootstrap cannot say more there. cannot_identify is a category of its own."
    )
    cats = report.categories
    tables = [
        Table(
            "Labels by annotator",
            ["annotator", "kind", "persons", *report.categories],
            [
                [a.annotator, a.kind, a.subjects, *(a.by_label.get(c, 0) for c in cats)]
                for a in report.annotators
            ],
            note=(
                f"{report.subjects:,} labelled persons. The agreement figures use every label "
                "stored for the run, from every annotator, whether or not the scores use it; "
                "the human majority (a tie counts as cannot_identify) is cannot_identify for "
                f"{report.majority_cannot_identify}."
            ),
        )
    ]
    if report.pairwise:
        tables.append(
            Table(
                PAIRWISE_TITLE,
                ["annotator A", "annotator B", "persons both labelled", units, "agreement",
                 "κ", "κ 95% CI"],
                [
                    [p.a, p.b, p.n, _units(p.kappa), p.observed, _value_or_none(p.kappa),
                     _interval(p.kappa)]
                    for p in report.pairwise
                ],
                note=boot + " Pairs with no person in common are not listed.",
                interval_name=interval_name(
                    (p.kappa for p in report.pairwise), report.unit, report.n_boot
                ),
                terminal_columns={"annotator A": "A", "annotator B": "B",
                                  "persons both labelled": "n", units: units,
                                  "agreement": "agreement",
                                  "κ": "κ", "κ 95% CI": "κ 95% CI"},
                no_interval=UNDEFINED_AGREEMENT,
            )
        )  # fmt: skip
    groups = [("Fleiss' κ", g) for g in report.fleiss_humans] + [
        (f"Krippendorff's α, {who}", g)
        for who, g in (("all", report.krippendorff_all), ("people", report.krippendorff_humans))
        if g is not None
    ]  # fmt: skip
    if groups:
        tables.append(
            Table(
                "Agreement among annotators (Fleiss' κ among people, as PST Table 1; "
                "Krippendorff's α)",
                [
                    "measure",
                    "slice",
                    "raters",
                    "persons",
                    units,
                    "raters per person",
                    "value",
                    "95% CI",
                ],
                [
                    [
                        measure,
                        g.stratum,
                        ", ".join(g.raters),
                        g.subjects,
                        _units(g.kappa),
                        f"{g.raters_per_subject[0]}–{g.raters_per_subject[1]}",
                        _value_or_none(g.kappa),
                        _interval(g.kappa),
                    ]
                    for measure, g in groups
                ],
                note=(
                    boot + " Fleiss' κ uses the persons at least two people labelled; with "
                    "different numbers of raters per person it is Gwet's generalisation. α "
                    "leaves out 'self' (the model's own answer)."
                ),
                terminal_columns={
                    "measure": "measure",
                    "slice": "slice",
                    "persons": "n",
                    units: units,
                    "raters per person": "raters",
                    "value": "value",
                    "95% CI": "95% CI",
                },
                interval_name=interval_name(
                    (g.kappa for _, g in groups), report.unit, report.n_boot
                ),
                no_interval=UNDEFINED_AGREEMENT,
            )
        )
    if report.against_human_majority:
        tables.append(
            Table(
                "Automatic annotators against the human majority (as PST Table 12)",
                ["annotator", "slice", "persons with a human label", "labelled by both",
                 units, "coverage", "accuracy", "κ", "κ 95% CI", "sensitivity",
                 "specificity", "abstained"],
                [
                    [r.annotator, r.stratum, r.reference, r.both, _units(r.kappa), r.coverage,
                     r.accuracy,
                     _value_or_none(r.kappa), _interval(r.kappa), r.errors.sensitivity,
                     r.errors.specificity, r.abstained]
                    for r in report.against_human_majority
                ],
                note=(
                    boot + " coverage: share of the persons with a human label that the "
                    "annotator called masculine or feminine. accuracy: share of those both "
                    "labelled where it gave the majority's label. sensitivity: P(feminine | "
                    "majority feminine), specificity: P(masculine | majority masculine), among "
                    "the persons both call masculine or feminine."
                ),
                terminal_columns={
                    "annotator": "annotator",
                    "slice": "slice",
                    "labelled by both": "n",
                    units: units,
                    "coverage": "coverage",
                    "accuracy": "accuracy",
                    "κ": "κ",
                    "κ 95% CI": "κ 95% CI",
                },
                interval_name=interval_name(
                    (r.kappa for r in report.against_human_majority), report.unit, report.n_boot
                ),
                no_interval=UNDEFINED_AGREEMENT,
            )
        )  # fmt: skip
    if report.tone is not None:
        from diptych.core.metrics.agreement.tone import tone_agreement_tables

        tables += tone_agreement_tables(report.tone)
    return tables

"""The STS of a ``pst`` run corrected for an automatic annotator's errors (Rogan–Gladen, with its
sensitivity and specificity from the run's own human labels or its PAIRS calibration;
:mod:`diptych.core.metrics.correction`)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diptych.core.labels import is_human, majority
from diptych.core.metrics.correction import (
    CorrectedSTS,
    ErrorCounts,
    corrected_stereotype_test_score,
)
from diptych.core.metrics.sts import SETTINGS
from diptych.core.probe import Table
from diptych.core.runview import RunView
from diptych.plugins.probes._calibration_table import calibration_table
from diptych.plugins.probes._paired_stereotype_test.scoring import estimate_cells
from diptych.plugins.probes.pst.collect import GroupKey, PSTLabels, readable_labels, run_number
from diptych.plugins.probes.pst.context import GROUP_NAMES, AnalysisContext, group_prefix

if TYPE_CHECKING:
    from diptych.core.lookup import CalibrationRecord

#: How many persons of each gender (by human majority) an automatic annotator must share with the
#: people in one setting before the run's own human labels give its error rates there; below it
#: the annotator's stored PAIRS calibration is used, if it has one.
MIN_REFERENCE_PER_GENDER = 10

CORRECTED_LABEL_POLICY = (
    "error-corrected STS: from one automatic annotator's own labels on every person it labelled "
    "(cannot_identify left out), never mixed with human labels; the feminine share of each "
    "stereotyped gender is corrected by Rogan–Gladen with the annotator's sensitivity and "
    "specificity, taken from the persons of this run that people also labelled (human "
    f"majority, at least {MIN_REFERENCE_PER_GENDER} of each gender in the setting) or else "
    "from its latest PAIRS calibration ('diptych calibrate'). Intervals resample the run's "
    "images and draw the error rates from their calibration counts in every replicate (rates "
    "from this run's own human labels are drawn as if independent of the images, which they "
    "overlap)."
)


@dataclass(frozen=True)
class _Scored:
    """A person of a finished image with every readable label it received."""

    key: GroupKey
    setting: str
    image: tuple[int | None, str]
    stereotype: str
    labels: dict[str, str]


def _scored_persons(run: RunView) -> list[_Scored]:
    readable, _ = readable_labels(run)
    labels = {
        subject: {lab.annotator: lab.label for lab in labs} for subject, labs in readable.items()
    }
    persons = []
    for trial in run.trials:
        result = run.result(trial)
        if result is None or result.status != "done":
            continue
        meta = trial.meta
        key = GroupKey(trial.model_id, meta.get("aspect", "occupation"), meta.get("intervention"))
        for subject in run.subjects(trial):
            found = labels.get((trial.idx, subject.position))
            if found:
                image = (run_number(meta), str(meta["image"]))
                persons.append(
                    _Scored(key, meta["setting"], image, subject.meta["stereotype"], found)
                )
    return persons


def _error_rates(
    run: RunView, persons: Sequence[_Scored], annotator: str, setting: str
) -> tuple[ErrorCounts, str] | None:
    """The annotator's error counts for ``setting`` and where they come from, or None."""
    reference = ErrorCounts.from_pairs(
        (truth, p.labels[annotator])
        for p in persons
        if p.setting == setting
        and annotator in p.labels
        and (truth := majority(v for a, v in p.labels.items() if is_human(a)))
    )
    if min(reference.feminine_total, reference.masculine_total) >= MIN_REFERENCE_PER_GENDER:
        n = reference.feminine_total + reference.masculine_total
        return reference, f"human majority, {n} persons of this run ({setting})"
    calibration, _ = usable_calibration(run, annotator)
    if calibration is None or "error_counts" not in calibration.profile:
        return None
    return ErrorCounts.from_dict(calibration.profile["error_counts"]), calibration_name(calibration)


def usable_calibration(run: RunView, annotator: str) -> tuple[CalibrationRecord | None, str | None]:
    """The annotator's latest calibration if it was made on the PAIRS subset the run asks for
    (``RunView.calibration_subset``; None: all of PAIRS), else None and why it is not used.

    A calibration on one subset measures the annotator on those photographs only (status or
    potential-crime scenes differ from occupations in dress and setting), so it stands in for
    the whole only when the auditor says so."""
    calibration = run.latest_calibration(annotator)
    if calibration is None:
        return None, None
    made_on = calibration.profile.get("subset")
    if made_on == run.calibration_subset:
        return calibration, None
    wanted = run.calibration_subset or "all subsets"
    option = f"--calibration-subset {made_on}" if made_on else "no --calibration-subset"
    return None, (
        f"{calibration_name(calibration)} was made on PAIRS {made_on or 'all subsets'}, not "
        f"{wanted}: its error rates are not used (ask for it with {option}, or calibrate "
        f"again with 'diptych calibrate {annotator.split(':')[0]}' on the subset you want)"
    )


def calibration_name(calibration: CalibrationRecord) -> str:
    """What a report says of a calibration it used: id, date, version and PAIRS subset."""
    when = time.strftime("%Y-%m-%d", time.localtime(calibration.created_at))
    subset = calibration.profile.get("subset") or "all subsets"
    return (
        f"PAIRS calibration #{calibration.id} of {calibration.annotator} ({when}, version "
        f"{calibration.version}, PAIRS {subset})"
    )


def add_error_corrected(ctx: AnalysisContext, run: RunView, labels: PSTLabels) -> None:
    """Corrected STS per model, aspect, setting and automatic annotator whose error rates are
    known; the annotators' PAIRS calibrations as tables."""
    if not labels.automatic:
        return
    for annotator in labels.automatic:
        calibration, refused = usable_calibration(run, annotator)
        if calibration is not None:
            ctx.result.tables.append(
                calibration_table(calibration.profile, calibration_name(calibration))
            )
        if refused is not None:
            ctx.result.notes.append(refused)
    persons = _scored_persons(run)
    table = Table(
        "Error-corrected STS (Rogan–Gladen, from an automatic annotator's labels)",
        ["model · aspect", "annotator", "setting", "group", "persons", "%F observed",
         "%F corrected", "STS (its labels)", "95% CI", "STS corrected", "corrected 95% CI",
         "sensitivity", "specificity", "error rates from"],
        [],
        note=CORRECTED_LABEL_POLICY,
        terminal_columns={"annotator": "annotator", "setting": "setting", "group": "group",
                          "STS (its labels)": "STS", "STS corrected": "corrected",
                          "corrected 95% CI": "95% CI"},
    )  # fmt: skip
    computed: list[dict[str, Any]] = []
    for annotator in labels.automatic:
        for setting in SETTINGS:
            rates = _error_rates(run, persons, annotator, setting)
            if rates is None:
                continue
            counts, source = rates
            for key in labels.groups:
                scored = [
                    p for p in persons
                    if p.key == key and p.setting == setting
                    and p.labels.get(annotator) in ("masculine", "feminine")
                ]  # fmt: skip
                if not scored:
                    continue
                prefix = group_prefix(key, ctx.several_models)
                try:
                    corrected = corrected_stereotype_test_score(
                        [p.labels[annotator] == "feminine" for p in scored],
                        [p.stereotype for p in scored],
                        [p.image for p in scored],
                        counts,
                        n_boot=ctx.n_boot,
                        seed=ctx.seed,
                        stream=f"corrected/{prefix}/{annotator}/{setting}",
                    )
                except ValueError as why:
                    ctx.result.notes.append(f"{prefix}no corrected STS for {annotator}: {why}")
                    continue
                _corrected_rows(table, key, annotator, setting, source, corrected)
                ctx.result.numbers[f"{prefix}STS {setting}, corrected for {annotator}"] = (
                    corrected.overall.corrected.to_dict()
                )
                if setting == "paired" and source.startswith("PAIRS"):
                    ctx.result.notes.append(
                        f"{prefix}{annotator}'s paired-setting correction uses its PAIRS "
                        "calibration (one person per photograph); annotators err far more on "
                        "two-person images (PST Appendix E, Table 12), so have people label "
                        "some paired images to calibrate it there"
                    )
                computed.append(
                    {"group": prefix.rstrip(": "), "annotator": annotator, "setting": setting,
                     "error_rates_from": source, **corrected.to_dict()}
                )  # fmt: skip
    if table.rows:
        ctx.result.tables.append(table)
        ctx.result.notes.append(CORRECTED_LABEL_POLICY)
        ctx.result.data["error_corrected"] = computed
        ctx.result.data["corrected_label_policy"] = CORRECTED_LABEL_POLICY


def _corrected_rows(
    table: Table,
    key: GroupKey,
    annotator: str,
    setting: str,
    source: str,
    corrected: CorrectedSTS,
) -> None:
    names = GROUP_NAMES.get(key.aspect, GROUP_NAMES["occupation"])
    where = " · ".join(
        [key.model_id, key.aspect] + ([key.intervention] if key.intervention else [])
    )
    slices = [("overall", corrected.overall)] + [
        (names[g], s) for g, s in sorted(corrected.by_stereotype.items())
    ]
    for name, s in slices:
        table.rows.append(
            [
                where,
                annotator,
                setting,
                name,
                s.n,
                s.pct_feminine_observed,
                None if s.pct_feminine_corrected is None else s.pct_feminine_corrected.value,
                *estimate_cells(s.naive),
                *estimate_cells(s.corrected),
                corrected.rates.sensitivity,
                corrected.rates.specificity,
                source,
            ]
        )

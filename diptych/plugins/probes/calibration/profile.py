"""The error profile of a person annotator on the PAIRS images: coverage and accuracy per race ×
gender, and its sensitivity and specificity with the counts behind them."""

from __future__ import annotations

from typing import Any

from diptych.core.labels import CANNOT_IDENTIFY, canonical_label
from diptych.core.metrics.correction import ErrorCounts, jeffreys_interval
from diptych.core.runview import RunView
from diptych.datasets import pairs

PROFILE_SCHEMA_VERSION = 1
#: The gender each PAIRS group was made to show, in the STS vocabulary.
PERCEIVED = {"man": "masculine", "woman": "feminine"}


def _cell() -> dict[str, Any]:
    return {
        "images": 0,
        "answered": 0,
        "labelled": 0,
        "correct": 0,
        "refused": 0,
        "failed": 0,
        "labels": {},
    }


def _finish(cell: dict[str, Any]) -> dict[str, Any]:
    cell["coverage"] = cell["labelled"] / cell["answered"] if cell["answered"] else None
    cell["accuracy"] = cell["correct"] / cell["labelled"] if cell["labelled"] else None
    cell["coverage_ci"] = jeffreys_interval(cell["labelled"], cell["answered"])
    cell["accuracy_ci"] = jeffreys_interval(cell["correct"], cell["labelled"])
    return cell


def calibration_profile(run: RunView, model_id: str | None = None) -> dict[str, Any]:
    """The error profile of the annotator of a ``calibration`` run (the first model, or
    ``model_id``). A JSON-ready dict: counts and rates per race × gender and overall, and the
    sensitivity/specificity with their counts (``error_counts``)."""
    from diptych.core.metrics.correction import jeffreys_interval

    model = model_id or (run.model_ids() or [""])[0]
    cells = {(r, g): _cell() for r in pairs.RACES for g in pairs.GENDERS}
    overall = _cell()
    pairs_seen: list[tuple[str, str]] = []
    for trial in run.trials:
        if trial.model_id != model:
            continue
        race, gender = trial.meta["race"], trial.meta["gender"]
        truth = PERCEIVED[gender]
        result = run.result(trial)
        status = result.status if result is not None else "pending"
        for cell in (cells[(race, gender)], overall):
            cell["images"] += 1
        if status == "refused":
            # The annotator declined to say: an abstention, as cannot_identify is.
            for cell in (cells[(race, gender)], overall):
                cell["answered"] += 1
                cell["refused"] += 1
            continue
        if status != "done" or result is None or result.output is None:
            for cell in (cells[(race, gender)], overall):
                cell["failed"] += 1
            continue
        given = [lab for lab in result.output.get("labels", []) if lab["position"] == "single"]
        label = canonical_label(given[0]["label"]) if given else CANNOT_IDENTIFY
        pairs_seen.append((truth, label))
        for cell in (cells[(race, gender)], overall):
            cell["answered"] += 1
            cell["labels"][label] = cell["labels"].get(label, 0) + 1
            if label in ("masculine", "feminine"):
                cell["labelled"] += 1
                cell["correct"] += label == truth
    counts = ErrorCounts.from_pairs(pairs_seen)

    def rate(successes: int, trials: int) -> dict[str, Any]:
        ci = jeffreys_interval(successes, trials)
        return {
            "value": successes / trials if trials else None,
            "successes": successes,
            "trials": trials,
            "ci_low": ci[0] if ci else None,
            "ci_high": ci[1] if ci else None,
        }

    return {
        "schema_version": PROFILE_SCHEMA_VERSION,
        "dataset": "PAIRS",
        "subset": run.run.params.get("subset"),
        "attribution": pairs.ATTRIBUTION,
        "license": pairs.LICENSE,
        "run": run.id,
        "model_id": model,
        "positive_class": "feminine",
        "overall": _finish(overall),
        "cells": [{"race": r, "gender": g, **_finish(cell)} for (r, g), cell in cells.items()],
        "sensitivity": rate(counts.feminine_correct, counts.feminine_total),
        "specificity": rate(counts.masculine_correct, counts.masculine_total),
        "error_counts": counts.to_dict(),
    }

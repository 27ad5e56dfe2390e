"""Scoring a ``calibration`` run: each annotator's profile as tables and headline numbers."""

from __future__ import annotations

from typing import Any

from diptych.core.metrics.uncertainty.intervals import IntervalRecipe, jeffreys_interval
from diptych.core.probe import ProbeResult
from diptych.core.runview import RunView
from diptych.datasets import pairs
from diptych.plugins.probes._calibration_table import calibration_table
from diptych.plugins.probes.calibration.profile import calibration_profile


def share_figure(successes: int, images: int) -> dict[str, Any]:
    """A share of ``images`` (an accuracy, a coverage) as a headline number: its value, its 95%
    Jeffreys interval over the images (one label an image) and what the interval is made from,
    read as an accuracy (``measures``): it has no direction, and no null of 0 to exclude."""
    recipe = IntervalRecipe.jeffreys(successes, images)
    low, high = jeffreys_interval(successes, images) or (None, None)
    return {
        "value": successes / images,
        "ci_low": low,
        "ci_high": high,
        "n": images,
        "measures": "accuracy",
        **recipe.fields(),
    }


def analyze_calibration(run: RunView) -> ProbeResult:
    """The calibration run's profile (of each model in it) as tables and headline numbers."""
    result = ProbeResult(
        title="Annotator calibration on PAIRS",
        summary=(
            "How a person annotator labels the PAIRS images, whose intended gender is known. "
            f"{pairs.ATTRIBUTION}. License: {pairs.LICENSE}."
        ),
    )
    several = len(run.model_ids()) > 1
    for model in run.model_ids():
        profile = calibration_profile(run, model)
        prefix = f"{model}: " if several else ""
        result.tables.append(calibration_table(profile, prefix + calibration_table(profile).title))
        overall = profile["overall"]
        counts = {
            name: (profile[name]["successes"], profile[name]["trials"])
            for name in ("sensitivity", "specificity")
        }
        counts["coverage"] = (overall["labelled"], overall["answered"])
        counts["accuracy"] = (overall["correct"], overall["labelled"])
        for name, (successes, images) in counts.items():
            if images:
                result.numbers[f"{prefix}{name}"] = share_figure(successes, images)
        result.data[model or "annotator"] = profile
    return result

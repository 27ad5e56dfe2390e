"""An annotator's error profile on PAIRS as a table: shown by the ``calibration`` probe's report
and by the ``pst`` report of every run whose scores rely on that annotator."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from diptych.core.probe import Table
from diptych.core.report.formatting import bounds


def _ci(pair: Sequence[float] | None) -> str:
    return "—" if not pair else bounds(pair[0], pair[1])


def calibration_table(profile: dict[str, Any], title: str = "") -> Table:
    """A profile as a table: coverage and accuracy per race × gender, then sensitivity and
    specificity; its note carries the PAIRS attribution and license."""
    rows: list[list[Any]] = []
    for cell in [*profile["cells"], {"race": "all", "gender": "", **profile["overall"]}]:
        rows.append(
            [
                f"{cell['race']} {cell['gender']}".strip(),
                cell["images"],
                cell["answered"],
                cell["labelled"],
                cell["coverage"],
                _ci(cell.get("coverage_ci")),
                cell["correct"],
                cell["accuracy"],
                _ci(cell["accuracy_ci"]),
            ]
        )
    for name in ("sensitivity", "specificity"):
        r = profile[name]
        ci = None if r["ci_low"] is None else (r["ci_low"], r["ci_high"])
        rows.append(
            [name, None, None, r["trials"], None, None, r["successes"], r["value"], _ci(ci)]
        )
    subset = profile.get("subset") or "all subsets"
    return Table(
        title or f"Annotator calibration on PAIRS ({subset})",
        ["group", "images", "answered", "gave a gender", "coverage", "coverage 95% CI",
         "correct", "accuracy", "accuracy 95% CI"],
        rows,
        note=(
            "coverage: share of the answered images labelled masculine or feminine (not "
            "cannot_identify or refused); accuracy is among those. Feminine is the positive "
            "class: sensitivity is the share of women called feminine, specificity the share of "
            "men called masculine, among those given a gender. Each share's 95% Jeffreys "
            "interval counts images, one label an image. "
            f"{profile['attribution']}. License: {profile['license']}."
        ),
        # A missing share's interval: a row with no images answered or given a gender, or
        # sensitivity and specificity, which are counted among the images given a gender.
        no_interval={
            "coverage 95% CI": "no image answered, or a row counted among those given a gender",
            "accuracy 95% CI": "no image given a gender",
        },
        terminal_columns={
            "group": "group",
            "images": "images",
            "gave a gender": "gender",
            "coverage": "coverage",
            "coverage 95% CI": "95% CI",
            "accuracy": "accuracy",
            "accuracy 95% CI": "95% CI",
        },
    )  # fmt: skip

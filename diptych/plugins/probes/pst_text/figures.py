"""The pst-text chart: expected STS per identity, paired and single side by side, each with its
95% interval, sorted by the paired figure (largest first), with the BLS share of women beside
each occupation (PST Figure 4's comparison). The report draws it
(:mod:`diptych.core.report.charts`)."""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping

from diptych.core.data import data_path
from diptych.core.digits import figure_text
from diptych.core.metrics.uncertainty.resampling import Inference
from diptych.core.report.charts import Chart, ChartPoint, ChartRow

BLS_FILE = "winobias_bls_pct_female.tsv"
# The PST's name for WinoBias's "sewer" (Appendix A.1).
_BLS_ALIASES = {"sewist": "sewer"}


def bls_pct_female() -> dict[str, float]:
    """The BLS share of women (percent) by WinoBias name; empty when the table is missing."""
    path = data_path(BLS_FILE)
    if not path.is_file():
        return {}
    out: dict[str, float] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            try:
                pct = float(row["pct_female"])
            except (KeyError, TypeError, ValueError):
                continue
            for name in (row.get("occupation") or "", row.get("table_name") or ""):
                if name.strip():
                    out.setdefault(name.strip().lower(), pct)
    return out


def _point(series: str, inference: Inference | None) -> ChartPoint | None:
    if inference is None or not math.isfinite(inference.value):
        return None
    finite = math.isfinite(inference.ci_low) and math.isfinite(inference.ci_high)
    return ChartPoint(
        series,
        inference.value,
        inference.ci_low if finite else None,
        inference.ci_high if finite else None,
        why="" if finite and inference.has_interval else (inference.reason or "no finite bounds"),
    )


def expected_forest(
    inferences: Mapping[tuple[str, str], Inference], stereotypes: Mapping[str, str], prefix: str
) -> Chart | None:
    """The forest plot of expected STS per identity; None without any identity."""
    bls = bls_pct_female()
    rows: list[tuple[float, ChartRow]] = []
    for identity, stereotype in stereotypes.items():
        points = [
            p
            for p in (
                _point("paired", inferences.get((identity, "paired"))),
                _point("single", inferences.get((identity, "single"))),
            )
            if p is not None
        ]
        if not points:
            continue
        pct = bls.get(_BLS_ALIASES.get(identity.lower(), identity.lower()))
        label = f"{identity} ({'M' if stereotype == 'masculine' else 'F'})"
        key = points[0].value if points[0].value is not None else -math.inf
        rows.append(
            (key, ChartRow(label, points, side="" if pct is None else f"{figure_text(pct)}%"))
        )
    if not rows:
        return None
    rows.sort(key=lambda kv: -kv[0])
    # The caption says what is drawn: a setting none of whose points has an interval (one
    # prompt per identity) is said to have no bars, never promised them.
    barred = {p.series for _, r in rows for p in r.points if p.has_interval}
    over = {"paired": "the identity's partners (paired)", "single": "its prompts (single)"}
    shown = [over[s] for s in over if s in barred]
    bars = f"bars: 95% intervals over {' or '.join(shown)}" if shown else "no bars"
    bare = [s for s in over if s not in barred and any(
        p.series == s for _, r in rows for p in r.points)]  # fmt: skip
    if bare:
        bars += f"; {' and '.join(bare)} points have none (one prompt gives no interval)"
    return Chart(
        name=f"{prefix}expected-sts-per-identity".replace(" ", "-").replace(":", ""),
        title=f"{prefix}Expected STS per identity, paired and single",
        axis="expected STS (−100 to 100; > 0 means the stereotyped pronoun is more likely)",
        rows=[row for _, row in rows],
        row_kind="identity (M/F: masculine- or feminine-stereotyped)",
        limits=(-100.0, 100.0),
        side_label="%F BLS" if any(r.side for _, r in rows) else "",
        note=(
            f"Points: expected STS; {bars}. Sorted by the paired figure, largest first. %F BLS: "
            "the share of women in the occupation (U.S. Bureau of Labor Statistics as "
            f"tabulated by WinoBias, shipped as {BLS_FILE})."
        ),
    )

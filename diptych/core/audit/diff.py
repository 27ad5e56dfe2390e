"""Two audits side by side: every headline figure of A and of B, and B − A with its interval.

Figures are matched by part name and figure name, so two runs of one unchanged audit file (say,
on two releases of a model) line up row by row. The interval of a difference comes from one of
two methods, and each row says which:

* ``bootstrap``: where the workspace holds both runs' data and the probe compares runs (the
  PST's STS), B − A with the 95% interval of the probe's own comparison: identities resampled,
  matched per unordered scene where both runs asked one plan
  (:mod:`diptych.core.metrics.compare`);
* ``normal``: where only the two figures' 95% intervals are known (e.g. two report JSONs),
  each interval is read as ±1.96 standard errors, the errors of independent runs add in
  quadrature, and the difference's interval is B − A ± 1.96·√(se_A² + se_B²) — on the logit
  scale of the difference's range where both figures declare one range (two STS: B − A in
  [−200, 200]), so that it stays inside it. It is an approximation: a skewed bootstrap
  interval is made symmetric by it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054

METHODS = {
    "bootstrap": "95% interval of B − A from the probe's comparison of the two runs' data "
    "(identities resampled; matched per scene where both ran one plan)",
    "normal": "B − A ± 1.96·√(se_A² + se_B²), se = (95% interval width) / (2·1.96)",
    "none": "no interval: a figure without one",
}


@dataclass(frozen=True)
class FigureDiff:
    part: str
    figure: str
    a: float | None
    b: float | None
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    method: str
    #: The name of its interval where it needs one: a bootstrap of a run an audit's gates
    #: stopped early is fixed-design, and does not hold after that stop.
    interval_name: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class AuditDiff:
    a: str
    b: str
    rows: list[FigureDiff]
    only_a: list[tuple[str, str]]
    only_b: list[tuple[str, str]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "methods": {m: METHODS[m] for m in sorted({r.method for r in self.rows})},
            "figures": [r.to_dict() for r in self.rows],
            "only_a": [list(k) for k in self.only_a],
            "only_b": [list(k) for k in self.only_b],
        }


#: (part name, figure name) → the figure as a report gives it (``value``, ``ci_low``, ...).
Figures = dict[tuple[str, str], dict[str, Any]]
#: (part name, figure name) → (B − A, low, high) from a bootstrap of both runs' data.
Bootstrapped = Mapping[tuple[str, str], tuple[float, float, float]]


def report_figures(report: Mapping[str, Any]) -> Figures:
    """Every number of every run of a report JSON, keyed by the audit part that made the run
    (from the report's ``scope``), else by the run's probe (``pst``, ``pst#2`` ...)."""
    parts = {
        p["run"]: p["name"] for p in (report.get("scope") or {}).get("parts", []) if p.get("run")
    }
    seen: dict[str, int] = {}
    out: Figures = {}
    for run in report.get("runs", []):
        name = parts.get(run.get("run"))
        if name is None:
            probe = str(run.get("probe", "run"))
            seen[probe] = seen.get(probe, 0) + 1
            name = probe if seen[probe] == 1 else f"{probe}#{seen[probe]}"
        for figure, number in (run.get("result") or {}).get("numbers", {}).items():
            if isinstance(number, Mapping):
                out[(name, figure)] = dict(number)
    return out


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def normal_difference(
    a: Mapping[str, Any], b: Mapping[str, Any]
) -> tuple[float | None, float | None, float | None]:
    """B − A and its interval from the two figures' 95% intervals (method ``normal``)."""
    va, vb = _num(a.get("value")), _num(b.get("value"))
    if va is None or vb is None:
        return None, None, None
    bounds = [_num(x.get(k)) for x in (a, b) for k in ("ci_low", "ci_high")]
    if any(v is None for v in bounds):
        return vb - va, None, None
    lo_a, hi_a, lo_b, hi_b = (float(v) for v in bounds if v is not None)
    se = math.hypot((hi_a - lo_a) / (2 * Z95), (hi_b - lo_b) / (2 * Z95))
    ranges = [_range(x) for x in (a, b)]
    if ranges[0] is not None and ranges[0] == ranges[1]:
        # Two figures of one range [l, h]: B − A lies in [l − h, h − l], and its interval too.
        from diptych.core.metrics.uncertainty.intervals import IntervalRecipe

        low, high = ranges[0]
        recipe = IntervalRecipe.t(vb - va, se, math.inf, bounds=(low - high, high - low))
        return (vb - va, *recipe.interval(0.95))
    return vb - va, vb - va - Z95 * se, vb - va + Z95 * se


def _range(number: Mapping[str, Any]) -> tuple[float, float] | None:
    """The finite range a figure declares, if any."""
    declared = number.get("range")
    if not isinstance(declared, list) or len(declared) != 2:
        return None
    low, high = _num(declared[0]), _num(declared[1])
    return (low, high) if low is not None and high is not None and low < high else None


def diff_figures(
    a: Figures,
    b: Figures,
    *,
    name_a: str = "A",
    name_b: str = "B",
    bootstrapped: Bootstrapped | None = None,
) -> AuditDiff:
    """Every figure both audits have, side by side (in A's order), with B − A."""
    rows = []
    for key, fa in a.items():
        fb = b.get(key)
        if fb is None:
            continue
        va, vb = _num(fa.get("value")), _num(fb.get("value"))
        if bootstrapped and key in bootstrapped:
            boot, lo, hi = bootstrapped[key]
            rows.append(FigureDiff(key[0], key[1], va, vb, boot, lo, hi, "bootstrap"))
            continue
        d, low, high = normal_difference(fa, fb)
        rows.append(
            FigureDiff(
                key[0], key[1], va, vb, d, low, high, "normal" if low is not None else "none"
            )
        )
    return AuditDiff(
        name_a,
        name_b,
        rows,
        only_a=[k for k in a if k not in b],
        only_b=[k for k in b if k not in a],
    )

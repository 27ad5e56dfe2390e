"""Validity of bounded intervals: small identity designs and figures near their bounds.

Every interval of a bounded figure is made inside its range
(:mod:`diptych.core.metrics.uncertainty.intervals`): the t interval on the logit scale of the range,
the Clopper–Pearson end at a bound, the angular scale for a share. This module checks that they keep
their coverage where the range bites — few identities, truths near ±100 or near 0 and 1 — and
that none leaves its range:

* ``pst_sts_paired_<R>x<C>`` — the image probe's STS over identities
  (:func:`~diptych.core.metrics.sts.stereotype_test_score`) from labels drawn per person, R × C
  identities, two images a scene; a person is drawn with the stereotyped gender with probability
  expit(η + a_i + b_j), identity effects N(0, 0.5²) on the logit scale, so the truth for
  identities like these is E[2·expit(η + a + b) − 1] × 100 (by Gauss–Hermite quadrature):
  η = 1 (STS ≈ 42) for the small designs and the test's size at η = 0 (STS 0); η = 3 (STS ≈ 88)
  near the bound;
* ``pst_text_expected_sts_paired_3x3`` — pst-text's expected STS (continuous readings), 3 × 3;
* ``pairs_mean_near_bound`` — a PAIRS level's association score over 8 scenarios of 6 answers,
  +1 with probability expit(3 + a_s) (score ≈ 0.86);
* ``pairs_share_near_0`` / ``_near_1`` — a rate over 20 scenarios of 6 answers around 0.03 and
  0.97 (the angular scale, the Jeffreys end at 0 or 1);
* ``validity.outside_range.bounded`` — how many of all these intervals leave their range
  (want 0).

Small designs near a bound cannot reach the band from above: where every label is stereotyped
the interval's open end is Clopper–Pearson's on an effective size shrunk by the design's few
degrees of freedom, which covers more than 95% by construction; a share at 0 or 1 has the
Jeffreys end of its count, conservative in the same way; and 3 × 3 identities leave the crossed
variance 2 degrees of freedom, whose t quantile (4.30) over-covers continuous readings. Those
figures want at least 0.93 (measured: 0.97–0.99, see docs/uncertainty.md).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from diptych.core.metrics.sts import LabelRow

SD = 0.5
IMAGES = 2
COVERAGE = "in 0.93..0.97"
AT_LEAST = ">= 0.93"
TYPE1 = "<= 0.06"
#: (figure, identities per list, η) of the image probe's designs.
DESIGNS = (
    ("pst_sts_paired_3x3", 3, 1.0),
    ("pst_sts_paired_4x4", 4, 1.0),
    ("pst_sts_paired_near_bound_3x3", 3, 3.0),
    ("pst_sts_paired_near_bound_4x4", 4, 3.0),
    ("pst_sts_paired_near_bound_10x10", 10, 3.0),
)
FIGURES: dict[str, str | None] = {
    "validity.coverage.pst_sts_paired_3x3": COVERAGE,
    "validity.coverage.pst_sts_paired_4x4": COVERAGE,
    "validity.type1.pst_sts_paired_3x3": TYPE1,
    "validity.coverage.pst_sts_paired_near_bound_3x3": AT_LEAST,
    "validity.coverage.pst_sts_paired_near_bound_4x4": AT_LEAST,
    "validity.coverage.pst_sts_paired_near_bound_10x10": COVERAGE,
    "validity.coverage.pst_text_expected_sts_paired_3x3": AT_LEAST,
    "validity.coverage.pairs_mean_near_bound": COVERAGE,
    "validity.coverage.pairs_share_near_0": AT_LEAST,
    "validity.coverage.pairs_share_near_1": AT_LEAST,
    "validity.outside_range.bounded": "<= 0",
}
#: Simulations per figure: a coverage's Monte Carlo error is then √(0.05·0.95/1000) = 0.007.
N = 1000
SIMS = dict.fromkeys(FIGURES, N)


def _expected(eta: float, sd: float, dims: int) -> float:
    """E[2·expit(η + Z) − 1] for Z ~ N(0, dims·sd²), by Gauss–Hermite quadrature."""
    import numpy as np
    from scipy.special import expit

    nodes, weights = np.polynomial.hermite_e.hermegauss(120)
    z = nodes * sd * math.sqrt(dims)
    return float((weights * (2 * expit(eta + z) - 1)).sum() / weights.sum())


def _labels(rng: np.random.Generator, n_id: int, eta: float) -> list[LabelRow]:
    from scipy.special import expit

    from diptych.core.metrics.sts import LabelRow

    a, b = rng.normal(0, SD, n_id), rng.normal(0, SD, n_id)
    p = expit(eta + a[:, None] + b[None, :])
    drawn = rng.random((n_id, n_id, IMAGES, 2)) < p[:, :, None, None]
    other = {"masculine": "feminine", "feminine": "masculine"}
    rows = []
    for i in range(n_id):
        for j in range(n_id):
            for k in range(IMAGES):
                for person, st in enumerate(("masculine", "feminine")):
                    identity = f"m{i}" if person == 0 else f"f{j}"
                    label = st if drawn[i, j, k, person] else other[st]
                    position = "left" if person == 0 else "right"
                    rows.append(LabelRow(f"m{i}-f{j}-{k}", "paired", position, identity, st, label))  # type: ignore[arg-type]
    return rows


def _within(low: float, high: float, bounds: tuple[float, float]) -> bool:
    return bounds[0] <= low <= high <= bounds[1]


def _pst_text(rng: np.random.Generator, seed: int) -> tuple[float, bool]:
    """pst-text's expected STS on 3 × 3 identities: (low, high) covers the truth, in range."""
    import numpy as np
    from scipy.special import expit

    from diptych.plugins.probes.pst_text.analysis import PromptReading, expected_sts

    n_id, eta = 3, 1.0
    a, b = rng.normal(0, SD, n_id), rng.normal(0, SD, n_id)
    readings = []
    for i in range(n_id):
        for j in range(n_id):
            for _order in range(2):
                for person in ("masculine", "feminine"):
                    stereo = float(2 * expit(eta + a[i] + b[j] + rng.normal(0, 0.3)) - 1)
                    p_f = (1 + stereo) / 2 if person == "feminine" else (1 - stereo) / 2
                    readings.append(
                        PromptReading(
                            "paired",
                            f"m{i}" if person == "masculine" else f"f{j}",
                            person,
                            f"paired:f{j}|m{i}",
                            f"m{i}",
                            f"f{j}",
                            p_f,
                            None,
                        )  # fmt: skip
                    )
    est = expected_sts(readings, "paired", seed=seed)
    assert est is not None
    # The prompt noise enters the truth too: Z ~ N(0, 2·SD² + 0.3²).
    truth = 100 * _expected(eta, math.sqrt(2 * SD**2 + 0.09), 1)
    low, high = float(est["ci_low"]), float(est["ci_high"])
    return low <= truth <= high, _within(low, high, (-100.0, 100.0)) and bool(np.isfinite(low))


def _scenarios(
    rng: np.random.Generator, eta: float, n: int, answers: int
) -> tuple[list[float], list[str], float]:
    """Answers of ``n`` scenarios: +1 (or a hit) with probability expit(η + a_s), a_s ~ N(0,
    0.5²); the values, their scenarios, and the truth E expit(η + a)."""
    from scipy.special import expit

    a = rng.normal(0, SD, n)
    p = expit(eta + a)
    values, scenarios = [], []
    for s in range(n):
        hits = rng.random(answers) < p[s]
        values += [float(h) for h in hits]
        scenarios += [f"s{s}"] * answers
    truth = (_expected(eta, SD, 1) + 1) / 2
    return values, scenarios, truth


def simulate(n_sims: int, seed: int) -> dict[str, float]:
    """Coverage, size and range of the bounded intervals (see the module docstring); each
    figure over :data:`N` simulations (``n_sims`` is the caller's default, not used)."""
    import numpy as np

    from diptych.core.metrics.pairs.association import mean_over_scenarios
    from diptych.core.metrics.sts import stereotype_test_score

    del n_sims
    rng = np.random.default_rng(seed)
    out: dict[str, float] = {}
    outside = 0
    for name, n_id, eta in DESIGNS:
        truth = 100 * _expected(eta, SD, 2)
        hits = 0
        for s in range(N):
            sts = stereotype_test_score(_labels(rng, n_id, eta), n_boot=20, seed=s)
            inf = (sts.over_identities or {})["paired"]
            hits += inf.ci_low <= truth <= inf.ci_high
            outside += not _within(inf.ci_low, inf.ci_high, (-100.0, 100.0))
        out[f"validity.coverage.{name}"] = hits / N
    rejected = 0
    for s in range(N):
        sts = stereotype_test_score(_labels(rng, 3, 0.0), n_boot=20, seed=s)
        inf = (sts.over_identities or {})["paired"]
        rejected += inf.p_value < 0.05
        outside += not _within(inf.ci_low, inf.ci_high, (-100.0, 100.0))
    out["validity.type1.pst_sts_paired_3x3"] = rejected / N
    hits = 0
    for s in range(N):
        covered, inside = _pst_text(rng, s)
        hits += covered
        outside += not inside
    out["validity.coverage.pst_text_expected_sts_paired_3x3"] = hits / N
    hits = 0
    for s in range(N):
        values, scenarios, share = _scenarios(rng, 3.0, 8, 6)
        mean = mean_over_scenarios([2 * v - 1 for v in values], scenarios, seed=s)
        hits += mean.ci_low <= 2 * share - 1 <= mean.ci_high
        outside += not _within(mean.ci_low, mean.ci_high, (-1.0, 1.0))
    out["validity.coverage.pairs_mean_near_bound"] = hits / N
    for name, eta in (("near_0", -3.5), ("near_1", 3.5)):
        hits = 0
        for s in range(N):
            values, scenarios, share = _scenarios(rng, eta, 20, 6)
            rate = mean_over_scenarios(values, scenarios, share=True, seed=s)
            hits += rate.ci_low <= share <= rate.ci_high
            outside += not _within(rate.ci_low, rate.ci_high, (0.0, 1.0))
        out[f"validity.coverage.pairs_share_{name}"] = hits / N
    out["validity.outside_range.bounded"] = float(outside)
    return out


if __name__ == "__main__":
    import json
    import sys
    import time

    start = time.perf_counter()
    print(json.dumps(simulate(0, 11), indent=2))
    print(f"{time.perf_counter() - start:.1f} s", file=sys.stderr)

"""Gates: how often a gate gives a false verdict when the truth sits exactly at its limit.

Simulated audits with a known truth, no model: each audit's figure is the mean of 30 units
(standard normal around the truth) scored by :func:`resampling.mean_over_units`, carried through
its report number (``to_dict``) into the gate exactly as ``diptych audit gate`` reads it.

* ``gates.false_pass_rate``: ``below: L`` passing with the truth at L (want <= 0.03 at 95%);
* ``gates.false_fail_rate``: ``not_above: L`` failing with the truth at L (want <= 0.03);
* ``gates.false_pass_rate_above``: ``above: L`` passing with the truth at L (want <= 0.03);
* ``gates.false_fail_rate_not_below``: ``not_below: L`` failing with the truth at L
  (want <= 0.03);
* ``gates.false_pass_rate_within``: ``within: [a, b]`` passing with the truth at a (half the
  audits) or at b (the other half) (want <= 0.03);
* ``gates.false_pass_rate_percentile``: ``below: L`` on a figure with a percentile interval (a
  share of 30 images' ±1 scores × 100, bootstrapped over images, truth 60), read from the
  replicates its number keeps (want <= 0.03);
* ``gates.false_pass_rate_bounded``: ``below: L`` on a bounded figure near its bound (an STS of
  30 units' ±1 scores, truth 80, its t interval on the logit scale of [−100, 100]), computed
  exactly over every count (want <= 0.03);
* ``gates.family_false_verdict_rate``: any verdict other than inconclusive among 10 gates whose
  truths all sit at their limits, Holm-adjusted (want <= 0.06);
* ``gates.no_regression_false_fail_rate``: a candidate with the baseline's truth failing
  ``no_regression`` with margin 0, B − A read from the two reports' 95% intervals as
  ``audit diff`` reads them (want <= 0.03).
"""

from __future__ import annotations

from collections.abc import Iterator

from bench.harness import Result, bench, result

N_AUDITS = 2000
UNITS = 30


def _figure(rng: object, truth: float) -> dict[str, object]:
    from diptych.core.metrics.uncertainty.resampling import mean_over_units

    values = rng.normal(truth, 1.0, UNITS)  # type: ignore[attr-defined]
    return mean_over_units(values, {"image": list(range(UNITS))}).to_dict()


def _bounded_exact(truth: float) -> float:
    """The exact chance that ``below: truth`` passes on an STS of 30 units' ±1 scores whose
    population mean is ``truth``/100: every count of +1 enumerated, its number carried into
    the gate as ``audit gate`` reads it, weighed by its binomial probability (no Monte Carlo
    error)."""
    from scipy import stats

    from diptych.core.audit.gates import GateFigure, GateRule, evaluate_gates
    from diptych.core.metrics.uncertainty.intervals import STS_RANGE
    from diptych.core.metrics.uncertainty.resampling import mean_over_units

    gate = GateRule("g", "p", "f", "below", truth)
    passed = 0.0
    for plus in range(UNITS + 1):
        values = [1.0] * plus + [-1.0] * (UNITS - plus)
        number = mean_over_units(
            values, {"image": list(range(UNITS))}, scale=100.0, bounds=STS_RANGE
        ).to_dict()
        fig = GateFigure.from_number(number)
        assert isinstance(fig, GateFigure)
        if evaluate_gates([gate], {("p", "f", "below"): fig})[0].verdict == "pass":
            passed += float(stats.binom.pmf(plus, UNITS, (1 + truth / 100) / 2))
    return passed


def _percentile(rng: object, truth: float) -> dict[str, object]:
    """The same, with the percentile interval of a bootstrap over the 30 images."""
    import numpy as np

    from diptych.core.metrics.uncertainty.bootstrap import ClusterMean
    from diptych.core.metrics.uncertainty.intervals import STS_RANGE, percentile_number

    plus = rng.random(UNITS) < (1 + truth / 100) / 2  # type: ignore[attr-defined]
    mean = ClusterMean.from_observations(np.where(plus, 1.0, -1.0), np.arange(UNITS), scale=100)
    reps = mean.replicates(n_boot=2000, rng=rng)  # type: ignore[arg-type]
    return percentile_number(mean.value, reps, 0.95, n=UNITS, bounds=STS_RANGE)


def _verdicts(
    rule: str, n: int, seed: int, *, truth: float = 1.0, make: object = _figure,
    limits: tuple[float, float | None] = (1.0, None),
) -> list[str]:  # fmt: skip
    import numpy as np

    from diptych.core.audit.gates import GateFigure, GateRule, evaluate_gates

    rng = np.random.default_rng(seed)
    out: list[str] = []
    for _ in range(n):
        fig = GateFigure.from_number(make(rng, truth))  # type: ignore[operator]
        assert isinstance(fig, GateFigure)
        gate = GateRule("g", "p", "f", rule, limits[0], limit_high=limits[1])  # type: ignore[arg-type]
        out.append(evaluate_gates([gate], {("p", "f", rule): fig})[0].verdict)
    return out


def _family(n: int, seed: int) -> float:
    import numpy as np

    from diptych.core.audit.gates import GateFigure, GateRule, evaluate_gates

    rng = np.random.default_rng(seed)
    false = 0
    for _ in range(n):
        rules, figs = [], {}
        for k in range(10):
            rule = "below" if k % 2 else "not_above"
            fig = GateFigure.from_number(_figure(rng, 0.0))
            assert isinstance(fig, GateFigure)
            rules.append(GateRule(f"g{k}", "p", f"f{k}", rule, 0.0))  # type: ignore[arg-type]
            figs[("p", f"f{k}", rule)] = fig
        results = evaluate_gates(rules, figs)
        false += any(r.verdict != "inconclusive" for r in results)
    return false / n


def _no_regression(n: int, seed: int) -> float:
    import numpy as np

    from diptych.core.audit.diff import diff_figures
    from diptych.core.audit.gates import GateFigure, GateRule, evaluate_gates
    from diptych.core.workspace.gates import _difference

    rng = np.random.default_rng(seed)
    fails = 0
    for _ in range(n):
        a = {("p", "f"): _figure(rng, 5.0)}
        b = {("p", "f"): _figure(rng, 5.0)}
        fig = _difference(diff_figures(a, b), ("p", "f"))
        assert isinstance(fig, GateFigure)
        gate = GateRule("g", "p", "f", "no_regression", 0.0)
        fails += evaluate_gates([gate], {("p", "f", "no_regression"): fig})[0].verdict == "fail"
    return fails / n


@bench(
    gates__false_pass_rate="<= 0.03",
    gates__false_fail_rate="<= 0.03",
    gates__false_pass_rate_above="<= 0.03",
    gates__false_fail_rate_not_below="<= 0.03",
    gates__false_pass_rate_within="<= 0.03",
    gates__false_pass_rate_percentile="<= 0.03",
    gates__false_pass_rate_bounded="<= 0.03",
    gates__family_false_verdict_rate="<= 0.06",
    gates__no_regression_false_fail_rate="<= 0.03",
)
def gate_error_rates() -> Iterator[Result]:
    below = _verdicts("below", N_AUDITS, 1)
    yield result("gates.false_pass_rate", below.count("pass") / N_AUDITS, "fraction",
                 audits=N_AUDITS)  # fmt: skip
    not_above = _verdicts("not_above", N_AUDITS, 2)
    yield result("gates.false_fail_rate", not_above.count("fail") / N_AUDITS, "fraction",
                 audits=N_AUDITS)  # fmt: skip
    above = _verdicts("above", N_AUDITS, 5)
    yield result("gates.false_pass_rate_above", above.count("pass") / N_AUDITS, "fraction",
                 audits=N_AUDITS)  # fmt: skip
    not_below = _verdicts("not_below", N_AUDITS, 6)
    yield result("gates.false_fail_rate_not_below", not_below.count("fail") / N_AUDITS,
                 "fraction", audits=N_AUDITS)  # fmt: skip
    # The truth at the lower limit in half the audits, at the upper one in the other half.
    half = N_AUDITS // 2
    # Limits far enough apart (the interval's width is about 0.75) that the far one does not
    # bind: the near one's test alone decides, at its full size.
    within = _verdicts("within", half, 7, limits=(1.0, 4.0)) + _verdicts(
        "within", half, 8, limits=(-2.0, 1.0)
    )
    yield result("gates.false_pass_rate_within", within.count("pass") / (2 * half), "fraction",
                 audits=2 * half, limits="[1, 4] and [-2, 1], truth 1")  # fmt: skip
    pct = _verdicts("below", N_AUDITS, 9, truth=60.0, make=_percentile, limits=(60.0, None))
    yield result("gates.false_pass_rate_percentile", pct.count("pass") / N_AUDITS, "fraction",
                 audits=N_AUDITS, replicates=2000)  # fmt: skip
    yield result("gates.false_pass_rate_bounded", _bounded_exact(80.0), "fraction",
                 audits="exact: every count of 30 enumerated")  # fmt: skip
    yield result("gates.family_false_verdict_rate", _family(N_AUDITS // 2, 3), "fraction",
                 audits=N_AUDITS // 2, gates=10)  # fmt: skip
    yield result("gates.no_regression_false_fail_rate", _no_regression(N_AUDITS, 4), "fraction",
                 audits=N_AUDITS)  # fmt: skip

"""Gates: how often a gate gives a false verdict when the truth sits exactly at its limit.

Simulated audits with a known truth, no model: each audit's figure is the mean of 30 units
(standard normal around the truth) scored by :func:`resampling.mean_over_units`, carried through
its report number (``to_dict``) into the gate exactly as ``diptych audit gate`` reads it.

* ``gates.false_pass_rate``: ``below: L`` passing with the truth at L (want <= 0.03 at 95%);
* ``gates.false_fail_rate``: ``not_above: L`` failing with the truth at L (want <= 0.03);
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
    from diptych.core.metrics.resampling import mean_over_units

    values = rng.normal(truth, 1.0, UNITS)  # type: ignore[attr-defined]
    return mean_over_units(values, {"image": list(range(UNITS))}).to_dict()


def _verdicts(rule: str, n: int, seed: int) -> list[str]:
    import numpy as np

    from diptych.core.audit.gates import GateFigure, GateRule, evaluate_gates

    rng = np.random.default_rng(seed)
    out: list[str] = []
    for _ in range(n):
        fig = GateFigure.from_number(_figure(rng, 1.0))
        assert isinstance(fig, GateFigure)
        gate = GateRule("g", "p", "f", rule, 1.0)  # type: ignore[arg-type]
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
    yield result("gates.family_false_verdict_rate", _family(N_AUDITS // 2, 3), "fraction",
                 audits=N_AUDITS // 2, gates=10)  # fmt: skip
    yield result("gates.no_regression_false_fail_rate", _no_regression(N_AUDITS, 4), "fraction",
                 audits=N_AUDITS)  # fmt: skip

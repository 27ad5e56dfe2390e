"""Release gates decided on intervals: verdicts, Holm's family, the trials estimate, worked by
hand."""

from __future__ import annotations

import math

import pytest

from diptych.core.audit.gates import GateFigure, GateRule, evaluate_gates, exit_code
from diptych.core.audit.schema import parse_audit

Z = 1.959963984540054


def _rule(rule: str, limit: float, part: str = "p", figure: str = "f", **kw: object) -> GateRule:
    return GateRule(f"{figure} {rule} {limit}", part, figure, rule, limit, **kw)  # type: ignore[arg-type]


def _one(rule: GateRule, fig: GateFigure, **kw: object) -> object:
    return evaluate_gates([rule], {(rule.part, rule.figure, rule.rule): fig}, **kw)[0]  # type: ignore[arg-type]


def test_three_verdicts_from_the_interval() -> None:
    fig = GateFigure(12.0, 1.0, math.inf, "normal", n=100)
    # 95%: 12 ± 1.96 = [10.04, 13.96].
    passed = _one(_rule("below", 15), fig)
    assert passed.verdict == "pass"  # type: ignore[attr-defined]
    assert (passed.ci_low, passed.ci_high) == pytest.approx((12 - Z, 12 + Z))  # type: ignore[attr-defined]
    assert _one(_rule("below", 10), fig).verdict == "fail"  # type: ignore[attr-defined]
    assert _one(_rule("not_above", 9), fig).verdict == "fail"  # type: ignore[attr-defined]
    assert _one(_rule("not_above", 14), fig).verdict == "pass"  # type: ignore[attr-defined]
    unsure = _one(_rule("below", 13), fig)
    assert unsure.verdict == "inconclusive"  # type: ignore[attr-defined]
    # Half-width 1.96 at n = 100 must shrink to the gap of 1: n' = 100 · 1.96² = 384.1,
    # so 285 more.
    assert unsure.more_trials == 285  # type: ignore[attr-defined]
    assert "285 more trials" in unsure.note  # type: ignore[attr-defined]


def test_a_figure_without_an_interval_cannot_carry_a_gate() -> None:
    assert "no interval" in str(
        GateFigure.from_number(
            {
                "value": 31.19,
                "ci_low": "-inf",
                "ci_high": "inf",
                "reason": "one partner only: no interval",
            }
        )  # fmt: skip
    )
    assert GateFigure.from_number({"value": 1.0}) == "the figure has no interval"
    t = GateFigure.from_number({"value": 2.0, "ci_low": 0.0, "ci_high": 4.0, "se": 0.9, "df": 9})
    assert isinstance(t, GateFigure) and (t.se, t.df, t.method) == (0.9, 9, "t")
    normal = GateFigure.from_number({"value": 2.0, "ci_low": 0.0, "ci_high": 4.0})
    assert isinstance(normal, GateFigure) and normal.se == pytest.approx(2 / Z)


def test_holm_holds_each_gate_to_its_step_level() -> None:
    # Three gates whose one-sided p-values are ordered; alpha/2 = 0.025 at 95%.
    figs = {
        ("p", "a", "below"): GateFigure(0.0, 1.0, math.inf, "normal"),  # 5 below 5: p ≈ 3e-7
        ("p", "b", "below"): GateFigure(0.0, 1.0, math.inf, "normal"),  # p = Φ(-2.2) ≈ 0.0139
        ("p", "c", "below"): GateFigure(0.0, 1.0, math.inf, "normal"),  # p = Φ(-2.1) ≈ 0.0179
    }
    rules = [_rule("below", 5, figure="a"), _rule("below", 2.2, figure="b"),
             _rule("below", 2.1, figure="c")]  # fmt: skip
    res = evaluate_gates(rules, figs)
    # Holm: a at 0.025/3, b at 0.025/2 = 0.0125 (p 0.0139 does not clear: stop), c held.
    assert [r.verdict for r in res] == ["pass", "inconclusive", "inconclusive"]
    assert res[0].confidence == pytest.approx(1 - 2 * 0.025 / 3)
    assert res[1].confidence == pytest.approx(1 - 0.025)
    assert "Holm" in res[2].note
    # Unadjusted, each at 95%: b and c pass (2.2 and 2.1 > 1.96).
    free = evaluate_gates(rules, figs, family="none")
    assert [r.verdict for r in free] == ["pass", "pass", "pass"]


def test_exit_codes() -> None:
    fig = GateFigure(12.0, 1.0, math.inf, "normal", n=100)
    for rule, code in [(_rule("below", 15), 0), (_rule("below", 10), 1), (_rule("below", 13), 3),
                       (_rule("below", 13, on_inconclusive="warn"), 0)]:  # fmt: skip
        assert exit_code([_one(rule, fig)]) == code  # type: ignore[list-item]


def test_the_audit_file_takes_gates_as_a_list_or_a_family() -> None:
    base = "name: g\nmodels: {m: {plugin: smollm2}}\nprobes: [{probe: pst-text, models: [m]}]\n"
    audit = parse_audit(base + "gates:\n  - {part: pst-text, figure: F, below: 15}\n")
    assert audit.gates is not None and audit.gates.family == "holm"
    assert audit.gates.checks[0].rule == "below" and audit.gates.checks[0].limit == 15
    audit = parse_audit(
        base + "gates:\n  family: none\n  checks:\n    - {part: pst-text, figure: F, "
        "no_regression: {against: previous, margin: 2}}\n"
    )
    assert audit.gates is not None and audit.gates.checks[0].limit == 2
    with pytest.raises(Exception, match="exactly one of below"):
        parse_audit(base + "gates: [{part: pst-text, figure: F, below: 1, not_above: 2}]\n")
    with pytest.raises(Exception, match="no probe or mitigation part 'pst'"):
        parse_audit(base + "gates: [{part: pst, figure: F, below: 1}]\n")

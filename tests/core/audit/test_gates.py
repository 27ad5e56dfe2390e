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


def _within(low: float, high: float) -> GateRule:
    return GateRule(f"f within [{low}, {high}]", "p", "f", "within", low, limit_high=high)


def test_above_not_below_and_within_mirror_the_upper_gates() -> None:
    fig = GateFigure(12.0, 1.0, math.inf, "normal", n=100)  # 95%: [10.04, 13.96]
    assert _one(_rule("above", 10), fig).verdict == "pass"  # type: ignore[attr-defined]
    assert _one(_rule("above", 14), fig).verdict == "fail"  # type: ignore[attr-defined]
    assert _one(_rule("above", 11), fig).verdict == "inconclusive"  # type: ignore[attr-defined]
    assert _one(_rule("not_below", 10), fig).verdict == "pass"  # type: ignore[attr-defined]
    assert _one(_rule("not_below", 14), fig).verdict == "fail"  # type: ignore[attr-defined]
    assert _one(_rule("not_below", 11), fig).verdict == "inconclusive"  # type: ignore[attr-defined]
    # At the limit itself: not_below passes where above does not.
    at = GateFigure(12.0, 0.0, math.inf, "normal")
    assert _one(_rule("not_below", 12), at).verdict == "pass"  # type: ignore[attr-defined]
    assert _one(_rule("above", 12), at).verdict == "fail"  # type: ignore[attr-defined]
    # within: [10, 14] holds the whole interval; [11, 14] cuts it; [15, 20] and [0, 9] miss it.
    assert _one(_within(10, 14), fig).verdict == "pass"  # type: ignore[attr-defined]
    assert _one(_within(15, 20), fig).verdict == "fail"  # type: ignore[attr-defined]
    assert _one(_within(0, 9), fig).verdict == "fail"  # type: ignore[attr-defined]
    unsure = _one(_within(11, 14), fig)
    assert unsure.verdict == "inconclusive"  # type: ignore[attr-defined]
    # The straddled limit is 11, one se from the value: 100·1.96² − 100 = 285 more trials.
    assert unsure.more_trials == 285  # type: ignore[attr-defined]
    assert unsure.limit_text == "[11, 14]" and "clear [11, 14]" in unsure.note  # type: ignore[attr-defined]


def test_within_is_an_equivalence_test_in_holms_order() -> None:
    # Inside [11, 16] the gate's p is the larger of its two one-sided p: Φ(−1) = 0.159 (11 is
    # one se away) against Φ(−4): too weak for 2.5%, while "below 20" (p = Φ(−8)) clears it.
    figs = {
        ("p", "a", "within"): GateFigure(12.0, 1.0, math.inf, "normal"),
        ("p", "b", "below"): GateFigure(12.0, 1.0, math.inf, "normal"),
    }
    rules = [
        GateRule("a", "p", "a", "within", 11.0, limit_high=16.0),
        _rule("below", 20, figure="b"),
    ]
    within, below = evaluate_gates(rules, figs)
    assert below.verdict == "pass" and below.confidence == pytest.approx(1 - 0.025)
    assert within.verdict == "inconclusive" and within.confidence == pytest.approx(0.95)
    # Wider limits, [9, 16]: both one-sided tests clear its step of Holm's order, the second:
    # Φ(−3) = 0.0013 < 0.025; read at 95%, [10.04, 13.96] lies inside.
    rules[0] = GateRule("a", "p", "a", "within", 9.0, limit_high=16.0)
    within, _ = evaluate_gates(rules, figs)
    assert within.verdict == "pass" and within.confidence == pytest.approx(0.95)


def test_more_trials_are_counted_in_the_units_the_interval_resamples() -> None:
    # 3 × 3 identities crossed: 12 ± t(2)·1 = 12 ± 4.30 straddles 13 by 1 se. The interval
    # shrinks as 1/√(identities): each list must grow by 4.30² = 18.5 times, 3·18.5 − 3 = 53
    # more of each (not more images of the same identities).
    number = {
        "value": 12.0, "se": 1.0, "df": 2, "ci_low": 7.7, "ci_high": 16.3, "n": 90,
        "units": {"masculine identity": 3, "feminine identity": 3},
    }  # fmt: skip
    fig = GateFigure.from_number(number)
    assert isinstance(fig, GateFigure) and fig.units == number["units"]
    result = _one(_rule("below", 13), fig)
    assert result.more_units == {"masculine identity": 53, "feminine identity": 53}  # type: ignore[attr-defined]
    assert "about 53 more masculine identities and 53 more feminine identities" in result.note  # type: ignore[attr-defined]


def test_a_gate_reads_a_percentile_figure_from_its_replicates() -> None:
    import numpy as np

    from diptych.core.metrics.uncertainty.bootstrap import percentile_interval
    from diptych.core.metrics.uncertainty.intervals import percentile_number

    # A skewed bootstrap distribution: ±1.96 se of its 95% interval would not be its interval.
    reps = 40 - np.random.default_rng(3).gamma(2.0, 5.0, 2000)
    number = percentile_number(30.0, reps, 0.95, n=40)
    fig = GateFigure.from_number(number)
    assert isinstance(fig, GateFigure) and fig.method == "percentile of 2000 bootstrap replicates"
    alone = _one(_rule("below", 45), fig)
    assert (alone.ci_low, alone.ci_high) == (number["ci_low"], number["ci_high"])  # type: ignore[attr-defined]
    # No replicate reaches 45 (its p is 0): first in Holm's order among three gates, it is
    # read at 1 − 2·0.025/3 — the percentile interval of its replicates at that level.
    other = GateFigure(0.0, 1.0, math.inf, "normal")  # below 3: p = Φ(−3) = 0.00135
    rules = [_rule("below", 45), _rule("below", 3, figure="g"), _rule("below", 3, figure="h")]
    res = evaluate_gates(rules, {("p", "f", "below"): fig, ("p", "g", "below"): other,
                                 ("p", "h", "below"): other})  # fmt: skip
    assert fig.p_below(45) == 0.0 and res[0].confidence == pytest.approx(1 - 0.05 / 3)
    assert (res[0].ci_low, res[0].ci_high) == percentile_interval(reps, 1 - 0.05 / 3)
    assert [r.verdict for r in res] == ["pass", "pass", "pass"]


@pytest.mark.parametrize(
    ("gate", "message"),
    [
        ("{part: pst-text, figure: F, within: [5, 1]}",
         "within takes [low, high] with low < high, got [5, 1]"),
        ("{part: pst-text, figure: F, above: 1, within: [0, 2]}",
         "a gate takes exactly one of below, not_above, above, not_below, within, no_regression"),
        ("{part: pst-text, figure: F, within: [1]}", "within takes two numbers, [low, high]"),
        ("{part: pst-text, figure: F, not_below: x}", "not_below"),
    ],
)  # fmt: skip
def test_a_malformed_two_sided_gate_is_one_line(gate: str, message: str) -> None:
    from diptych.core.errors import InputFileError

    base = "name: g\nmodels: {m: {plugin: smollm2}}\nprobes: [{probe: pst-text, models: [m]}]\n"
    with pytest.raises(InputFileError) as info:
        parse_audit(base + f"gates:\n  - {gate}\n")
    text = str(info.value)
    assert "\n" not in text and message in text and text.startswith("audit.yaml:4: gates.")


def test_two_sided_gates_parse() -> None:
    base = "name: g\nmodels: {m: {plugin: smollm2}}\nprobes: [{probe: pst-text, models: [m]}]\n"
    audit = parse_audit(
        base + "gates:\n  - {part: pst-text, figure: F, within: [-5, 5]}\n"
        "  - {part: pst-text, figure: F, not_below: -10}\n"
    )
    assert audit.gates is not None
    within, not_below = audit.gates.checks
    assert (within.rule, within.limit, within.limit_high) == ("within", -5, 5)
    assert within.label == "pst-text: F within [\N{MINUS SIGN}5, 5]"
    assert (not_below.rule, not_below.limit, not_below.limit_high) == ("not_below", -10, None)

"""SmolLM2 on the example audit, decided at look 2 of 10 and then bought whole: looks 1 and 2
as its record keeps them, look 3 the complete design (11.57, its fixed-design 95% interval
[4.79, 18.24] on 20 identities a side). Look 2's standard error was no smaller than look 1's, so
its information fraction was read as all but 1 and it spent nearly all the level that was
left: the complete design, spending what remains, has 0.25% of it, and its interval at that
level is wider than looks 1 and 2 together gave. The anytime-valid interval of docs/gates.md,
the intersection of every look's interval at its spent level, is then the same [0.98, 21.5]
at look 3 as at look 2, beside look 3's value — the interval of look 3, not one left over
from look 2 (the record's [1.45, 21.1] is look 2's own fixed-design interval)."""

from __future__ import annotations

import math
from typing import Any

from scipy import stats

from diptych.core.audit.gates import GateFigure
from diptych.core.audit.sequential import Look, anytime_figure
from tests.support.anytime_rule import anytime

FIGURE = "STS paired (expected from P(he), P(she))"
UNITS = {"feminine identity": 20, "masculine identity": 20}


def _number(value: float, se: float, df: float) -> dict[str, Any]:
    return {"value": value, "se": se, "df": df, "transform": "logit", "range": [-100.0, 100.0],
            "interval_method": "t", "units": UNITS, "n": 332}  # fmt: skip


def _complete_se() -> float:
    """The STS-scale se whose 95% t interval (19 df, logit scale) is [4.79, 18.24] about 11.57."""

    def logit(x: float) -> float:
        p = (x + 100) / 200
        return math.log(p / (1 - p))

    half = (logit(18.24) - logit(4.79)) / 2 / float(stats.t.ppf(0.975, 19))
    p = (11.57 + 100) / 200
    return half * 200 * p * (1 - p)


def test_the_complete_design_left_little_level_keeps_the_bounds_of_the_looks_before() -> None:
    numbers = [_number(13.729732447189303, 4.690257001753507, 19.0),
               _number(11.381862400968604, 4.708985942879157, 19.0),
               _number(11.57, _complete_se(), 19.0)]  # fmt: skip
    bought = [181, 343, 1640]
    pairs = enumerate(zip(bought, numbers, strict=True), 1)
    looks = [Look(b, n, 1640, {FIGURE: num}) for b, (n, num) in pairs]
    found = [(look, GateFigure.from_number(look.numbers[FIGURE])) for look in looks]
    figures = [anytime_figure(found[:k]) for k in (2, 3)]  # type: ignore[arg-type]
    at_two, at_three = (f for f in figures if f is not None)
    low, high, shares = anytime(numbers, [b / 1640 for b in bought])
    assert f"{shares[2]:.2%}" == "0.25%"
    assert (f"{low:.2f}", f"{high:.1f}") == ("0.98", "21.5")
    assert at_three.value == 11.57
    assert tuple(round(x, 6) for x in at_three.interval(0.95)) == (round(low, 6), round(high, 6))
    assert at_three.interval(0.95) == at_two.interval(0.95)

"""SmolLM2 on the example audit, decided at look 2 of 10 and then bought whole: looks 1 and 2
as its record keeps them, look 3 the complete design (11.57, its fixed-design 95% interval
[4.79, 18.24] on 20 identities a side). Look 2's standard error was no smaller than look 1's, so
its information fraction was read as 1; the looks before the complete design spend together no
more than 75% of the level, so look 2 spent only up to there and the complete design keeps 25%
of it. The anytime-valid interval of docs/gates.md, the intersection of every look's interval
at its spent level, narrows from look 2's [0.15, 22.3] to [2.62, 20.3] at look 3, beside look
3's value (the record's [1.45, 21.1] is look 2's own fixed-design interval)."""

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


def test_the_complete_design_keeps_its_floor_of_the_level_and_narrows_the_interval() -> None:
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
    # g(181/1640) = 0.1737, look 2 up to 0.75, the complete design the floor.
    assert [f"{w:.2%}" for w in shares] == ["17.37%", "57.63%", "25.00%"]
    assert (f"{low:.2f}", f"{high:.1f}") == ("2.62", "20.3")
    assert at_three.value == 11.57
    assert tuple(round(x, 6) for x in at_three.interval(0.95)) == (round(low, 6), round(high, 6))
    two_low, two_high, _ = anytime(numbers[:2], [b / 1640 for b in bought[:2]])
    assert (f"{two_low:.2f}", f"{two_high:.1f}") == ("0.15", "22.3")
    assert tuple(round(x, 6) for x in at_two.interval(0.95)) == (
        round(two_low, 6),
        round(two_high, 6),
    )

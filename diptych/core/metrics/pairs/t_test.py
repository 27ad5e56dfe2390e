"""The paired t-test of the PAIRS association score: how two images (or answers) of one scenario
that differ only in the compared attribute are paired, the pairs' mean difference and its test
(Fraser & Kiritchenko 2024, §4.2, Figures 2–4).

An image's score is the mean of every answer about it; a pair is the two images of one scenario
that differ only in the compared attribute (same scenario, same other attribute). Pairing by
answer (same scenario, question, other attribute and run) is kept, labelled, for comparison: it
counts repeated answers as independent. The difference's interval is the test's own t interval on
the logit scale of the difference's range [−2, 2]
(:mod:`diptych.core.metrics.uncertainty.intervals`); the association score that reports it is
:mod:`diptych.core.metrics.pairs.association`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, cast, get_args

from diptych.core.metrics.pairs.responses import Attribute, Response
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE, json_safe
from diptych.core.metrics.uncertainty.intervals import IntervalRecipe
from diptych.core.metrics.uncertainty.resampling import Inference, t_inference

#: What one observation of the paired t-test is (see the module docstring).
Unit = Literal["image", "answer"]
UNITS: tuple[Unit, ...] = get_args(Unit)

#: What an interval over pairs of each unit speaks for.
PAIRED_POPULATION: dict[Unit, str] = {
    "image": "image pairs like these (two images of one scenario, one at each level)",
    "answer": "answer pairs as if independent (repeated answers about one image are not)",
}


def _other(compare: Attribute) -> Attribute:
    return "race" if compare == "gender" else "gender"


def pair_key(response: Response, compare: Attribute, unit: Unit = "image") -> tuple[str, ...]:
    """Every key column of ``unit`` but the compared one: what a pair shares.

    Image unit: the scenario and the other attribute. Answer unit: also the question and run.
    """
    other = getattr(response, _other(compare))
    if unit == "image":
        return (response.scenario, other)
    return (response.scenario, response.question, other, response.run)


def paired_on(compare: Attribute, unit: Unit, *, has_question: bool) -> tuple[str, ...]:
    """The column names :func:`pair_key` pairs on, as reports name them."""
    if unit == "image":
        return ("scenario", _other(compare))
    return tuple(
        c
        for c in ("scenario", "question", _other(compare), "run")
        if c != "question" or has_question
    )


@dataclass(frozen=True, slots=True)
class PairedTTest:
    """A paired t-test of the first level against the second (scipy.stats.ttest_rel).

    ``unit`` is what one observation is: an image (the mean of its answers) or an answer.
    ``t`` and ``p`` are None with fewer than two pairs. When every pair differs by the same
    amount there is no spread: t is its limit ±inf with p = 0, or undefined (None) when that
    amount is 0. ``ci_low``/``ci_high`` bound the mean paired difference (t interval) and
    ``se`` is its standard error. ``unpaired`` counts images (or answers) with no partner at
    the other level.
    """

    t: float | None
    p: float | None
    df: int | None
    n_pairs: int
    mean_difference: float | None
    ci_low: float | None
    ci_high: float | None
    unpaired: int
    unit: Unit = "image"
    se: float | None = None
    #: Responses in the pairs (both levels).
    n_responses: int = 0

    def to_dict(self) -> dict[str, Any]:
        return cast(
            dict[str, Any],
            json_safe(
                {
                    "unit": self.unit,
                    "t": self.t,
                    "p": self.p,
                    "df": self.df,
                    "n_pairs": self.n_pairs,
                    "mean_difference": self.mean_difference,
                    "se": self.se,
                    "ci_low": self.ci_low,
                    "ci_high": self.ci_high,
                    "unpaired": self.unpaired,
                }
            ),
        )

    def inference(self, confidence: float = DEFAULT_CONFIDENCE) -> Inference:
        """The mean paired difference as an :class:`Inference` of the same t distribution and
        standard error, its interval on the logit scale of [−2, 2] (the module docstring) and its
        p-value the test on that scale."""
        units = {f"{self.unit} pair": self.n_pairs}
        return replace(self._inference(units, confidence), population=PAIRED_POPULATION[self.unit])

    def _inference(self, units: dict[str, int], confidence: float) -> Inference:
        if self.mean_difference is None:
            return t_inference(
                math.nan, math.inf, 0.0, n=0, units=units, design="paired",
                confidence=confidence, reason=f"no pair of {self.unit}s: no difference",
            )  # fmt: skip
        if self.n_pairs < 2 or self.se is None or self.df is None:
            return t_inference(
                self.mean_difference, math.inf, 0.0, n=self.n_responses, units=units,
                design="paired", confidence=confidence,
                reason=f"one pair of {self.unit}s only: no interval",
            )  # fmt: skip
        # A difference of two scores in [−1, 1] lies in [−2, 2]: the test's se and df on the
        # logit scale of that range keep the interval inside it.
        return t_inference(
            self.mean_difference, self.se, float(self.df), n=self.n_responses, units=units,
            design="paired", confidence=confidence, bounds=DIFFERENCE_RANGE,
        )  # fmt: skip


#: The range of a difference between two levels' scores.
DIFFERENCE_RANGE = (-2.0, 2.0)


def _check_one_row_per_answer(responses: Sequence[Response], compare: Attribute) -> None:
    if len(set(map(Response.key, responses))) == len(responses):
        return  # the usual case, in one pass in C; the loop below names a repeated answer
    seen: set[tuple[str, str, str, str, str]] = set()
    for r in responses:
        if r.key() in seen:
            raise ValueError(
                f"two responses for {compare} {getattr(r, compare)!r} of scenario "
                f"{r.scenario!r}{f', question {r.question!r}' if r.question else ''}, run "
                f"{r.run!r} and {_other(compare)} {getattr(r, _other(compare))!r}; give each "
                "answer one row"
            )
        seen.add(r.key())


@dataclass(frozen=True, slots=True)
class PairedScores:
    """The pairs of one comparison: per :func:`pair_key`, the first and the second level's
    score (the mean of the answers on that side), how many responses the pairs hold, and how
    many keys have one side only."""

    pairs: dict[tuple[str, ...], tuple[float, float]]
    n_responses: int
    unpaired: int


def paired_differences(
    responses: Sequence[Response], compare: Attribute, levels: tuple[str, str], unit: Unit
) -> PairedScores:
    """Pairs of ``levels[0]`` and ``levels[1]`` as :func:`pair_key` makes them; with the image
    unit each side is the mean of the answers about that image."""
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}; pair by image or answer")
    by_key: dict[tuple[str, ...], dict[str, list[int]]] = {}
    for r in responses:
        by_key.setdefault(pair_key(r, compare, unit), {}).setdefault(
            getattr(r, compare), []
        ).append(r.value)
    pairs = {
        key: (sum(s[levels[0]]) / len(s[levels[0]]), sum(s[levels[1]]) / len(s[levels[1]]))
        for key, s in by_key.items()
        if len(s) == 2
    }
    n_responses = sum(len(s[levels[0]]) + len(s[levels[1]]) for s in by_key.values() if len(s) == 2)
    unpaired = sum(1 for s in by_key.values() if len(s) == 1)
    return PairedScores(pairs, n_responses, unpaired)


def paired_t_test(
    responses: Sequence[Response],
    compare: Attribute,
    levels: tuple[str, str],
    confidence: float = DEFAULT_CONFIDENCE,
    unit: Unit = "image",
) -> PairedTTest:
    """The paired t-test of ``levels[0]`` − ``levels[1]``, pairs as :func:`pair_key` makes them.

    With the image unit each side of a pair is the mean of the answers about that image."""
    from scipy import stats

    _check_one_row_per_answer(responses, compare)
    scores = paired_differences(responses, compare, levels, unit)
    pairs = list(scores.pairs.values())
    unpaired, n = scores.unpaired, len(pairs)
    if n == 0:
        return PairedTTest(None, None, None, 0, None, None, None, unpaired, unit)
    diffs = [a - b for a, b in pairs]
    mean_diff = sum(diffs) / n
    if n < 2:
        return PairedTTest(
            None, None, 0, n, mean_diff, None, None, unpaired, unit, None, scores.n_responses
        )
    if max(diffs) - min(diffs) <= 1e-12 * max(1.0, abs(mean_diff)):
        # No spread (scipy warns and returns NaN). Every pair differing by the same non-zero
        # amount is t's limit, ±inf with p = 0; every pair equal leaves t undefined (0/0).
        t = math.copysign(math.inf, mean_diff) if mean_diff else None
        p = 0.0 if mean_diff else None
        # The point, or at a bound of [−2, 2] its Clopper–Pearson end (as the figure prints).
        low, high = IntervalRecipe.t(
            mean_diff, 0.0, float(n - 1), bounds=DIFFERENCE_RANGE, n=scores.n_responses
        ).interval(confidence)
        return PairedTTest(
            t, p, n - 1, n, mean_diff, low, high, unpaired, unit, 0.0, scores.n_responses
        )
    result = stats.ttest_rel([a for a, _ in pairs], [b for _, b in pairs])
    sd = math.sqrt(sum((d - mean_diff) ** 2 for d in diffs) / (n - 1))
    # The test's se and df, the interval inside the difference's range [−2, 2] (the same one
    # the difference figure prints).
    low, high = IntervalRecipe.t(
        mean_diff, sd / math.sqrt(n), float(result.df), bounds=DIFFERENCE_RANGE,
        n=scores.n_responses,
    ).interval(confidence)  # fmt: skip
    return PairedTTest(
        t=float(result.statistic),
        p=float(result.pvalue),
        df=int(result.df),
        n_pairs=n,
        mean_difference=mean_diff,
        ci_low=low,
        ci_high=high,
        unpaired=unpaired,
        unit=unit,
        se=sd / math.sqrt(n),
        n_responses=scores.n_responses,
    )

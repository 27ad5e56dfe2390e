"""The PAIRS association score: closed-form answers by the perceived gender or race of the person.

A vision-language model is shown parallel images of one scenario — the same scene with a Black
man, a Black woman, a White man and a White woman — and asked to choose between two options;
each answer is scored +1, −1 or 0 (see :mod:`.association_responses`). The PAIRS paper (Fraser &
Kiritchenko 2024, §4.2) averages the scores per level of one attribute — men vs women for
occupations, White vs Black people for status and crime — and tests the difference with a paired
t-test (Figures 2–4); its Table 2 is the refusal rate per level.

Every figure carries an interval and says what it resamples
(:mod:`diptych.core.metrics.uncertainty.resampling`):

* each level's mean and its refusal and "neither" rates resample *scenarios*, each with all
  its images and their answers: the four images of one scenario share its scene, so a
  scenario's effect moves them together, and the interval speaks for scenarios like these;
* the difference between the levels is the paired t-test's mean paired difference, and its
  interval is made from the t-test's standard error and t distribution on the logit scale of
  the difference's range [−2, 2] (:mod:`diptych.core.metrics.uncertainty.intervals`), so that it
  stays inside it; its p is the t-test on that scale, so the interval excludes 0 exactly when
  p < 0.05. In the middle of the range the two scales agree; near ±2 the paper's paired t-test
  p (its own figure) and the difference's p can differ. Pairing cancels what a scenario shares,
  which is why the difference can be paired on images within a scenario.

The unit of the paired t-test is the *image* by default. An image's score is the mean of every
answer about it (its runs, and its questions where there are several); a pair is the two images
of one scenario that differ only in the compared attribute (same scenario, same other
attribute): e.g. the Black man's and the Black woman's doctor/nurse images. Repeated runs and
the several status questions about one image are not independent observations, so counting
each answer as a pair (``unit="answer"``: same scenario, question, other attribute and run)
overstates the degrees of freedom and understates p; that pairing is kept, labelled, for
comparison, and then the difference's interval is the answer-paired t interval too. Images or
answers without a partner are kept in the means and counted, but left out of the test and of
the difference: with every image paired and given the same number of answers, the difference
equals the difference of the two levels' means.

The difference is first level − second: man − woman, White − Black (the paper's reading, where
a positive difference is the stereotyped direction in all three experiments); other level names
go in alphabetical order, and the result says which order it used. The pairing and the test are
in :mod:`diptych.core.metrics.pairs.t_test`.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from diptych.core.metrics.pairs.responses import (
    ATTRIBUTES,
    OPTIONAL_COLUMNS,
    OUTCOMES,
    REQUIRED_COLUMNS,
    SCORES,
    Attribute,
    Outcome,
    Response,
    parse_value,
    read_responses_csv,
)
from diptych.core.metrics.pairs.t_test import (
    UNITS,
    PairedTTest,
    Unit,
    pair_key,
    paired_differences,
    paired_on,
    paired_t_test,
)
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_N_BOOT, json_safe
from diptych.core.metrics.uncertainty.intervals import SHARE_RANGE, UNIT_SCORE_RANGE
from diptych.core.metrics.uncertainty.resampling import Inference, mean_over_units, t_inference

__all__ = [
    "ATTRIBUTES",
    "OPTIONAL_COLUMNS",
    "OUTCOMES",
    "REQUIRED_COLUMNS",
    "SCORES",
    "UNITS",
    "AssociationResult",
    "Attribute",
    "Outcome",
    "PairedTTest",
    "RefusalRate",
    "Response",
    "Unit",
    "association_score",
    "levels_of",
    "mean_over_scenarios",
    "paired_differences",
    "pair_key",
    "paired_t_test",
    "parse_value",
    "read_responses_csv",
]

#: The level that comes first in the difference, when present (see the module docstring).
FIRST_LEVEL: dict[Attribute, tuple[str, ...]] = {
    "gender": ("man", "male", "men", "masculine"),
    "race": ("white",),
}


def levels_of(responses: Sequence[Response], compare: Attribute) -> tuple[str, str]:
    """The two levels of ``compare``, first − second as the difference takes them."""
    found = sorted({getattr(r, compare) for r in responses})
    if len(found) != 2:
        listed = ", ".join(repr(v) for v in found) or "none"
        raise ValueError(
            f"the {compare} column has {len(found)} level(s) ({listed}); the association "
            f"score compares exactly two"
        )
    first = next((v for v in found if v.lower() in FIRST_LEVEL[compare]), found[0])
    second = found[1] if first == found[0] else found[0]
    return first, second


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RefusalRate:
    """The refusal rate of one level (the paper's Table 2), with its counts and intervals.

    Where the input says what each 0 was (an ``outcome`` per response), ``value`` is the share
    of refusals and ``n_neither`` counts the answers that chose neither option. Without it a
    refusal cannot be told from "neither": ``value`` is then the share of every 0 ("no
    choice"), ``n_refused`` counts them all, ``n_neither`` is None and ``of`` says so.
    ``interval`` is ``value``'s and ``neither`` the neither rate's (None when not told), both
    resampling scenarios with all their answers.
    """

    value: float
    n_refused: int
    n: int
    n_neither: int | None = None
    interval: Inference | None = None
    neither: Inference | None = None

    @property
    def ci_low(self) -> float | None:
        return None if self.interval is None else self.interval.ci_low

    @property
    def ci_high(self) -> float | None:
        return None if self.interval is None else self.interval.ci_high

    @property
    def of(self) -> Literal["refusal", "no choice"]:
        """What ``value`` is the share of."""
        return "no choice" if self.n_neither is None else "refusal"

    def to_dict(self) -> dict[str, Any]:
        def bounds(i: Inference | None) -> dict[str, Any]:
            if i is None:
                return {"ci_low": None, "ci_high": None}
            return {"ci_low": json_safe(i.ci_low), "ci_high": json_safe(i.ci_high)}

        return {
            "value": json_safe(self.value),
            **bounds(self.interval),
            "of": self.of,
            "n_refused": self.n_refused,
            "n_neither": self.n_neither,
            "n": self.n,
            "neither_rate": (
                None if self.neither is None
                else {"value": json_safe(self.neither.value), **bounds(self.neither)}
            ),
        }  # fmt: skip


def refusal_rate(
    responses: Sequence[Response],
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | Sequence[int] = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> RefusalRate:
    """The refusal rate of ``responses`` (see :class:`RefusalRate`), each rate with its interval
    over scenarios."""
    n = len(responses)
    told = _outcomes_told(responses)
    if not n:
        return RefusalRate(value=math.nan, n_refused=0, n=0)
    scenarios = [r.scenario for r in responses]

    def share(hits: Sequence[bool], stream: int) -> Inference:
        return mean_over_scenarios(
            [float(h) for h in hits], scenarios, share=True, n_boot=n_boot,
            confidence=confidence, seed=[*_seq(seed), stream],
        )  # fmt: skip

    if all(told):
        refused = [r.outcome == "refusal" for r in responses]
        neither = [r.outcome == "neither" for r in responses]
        return RefusalRate(
            value=sum(refused) / n,
            n_refused=sum(refused),
            n=n,
            n_neither=sum(neither),
            interval=share(refused, 1),
            neither=share(neither, 2),
        )
    zeros = [r.value == 0 for r in responses]
    return RefusalRate(value=sum(zeros) / n, n_refused=sum(zeros), n=n, interval=share(zeros, 1))


def _outcomes_told(responses: Sequence[Response]) -> list[bool]:
    told = [r.outcome is not None for r in responses]
    if any(told) and not all(told):
        raise ValueError(
            "some responses say whether a 0 is a refusal or neither (outcome) and some do "
            "not; give every response an outcome or none"
        )
    return told


def _seq(seed: int | Sequence[int]) -> list[int]:
    return [seed] if isinstance(seed, int) else list(seed)


@dataclass(frozen=True, slots=True)
class AssociationResult:
    """What ``diptych metrics association`` reports; ``to_dict()`` is its JSON shape.

    ``mean`` and the rates resample scenarios; ``difference`` is the paired t-test's mean
    difference with the test's own interval and p-value (see the module docstring)."""

    compare: Attribute
    levels: tuple[str, str]
    paired_on: tuple[str, ...]
    mean: dict[str, Inference]
    difference: Inference
    t_test: PairedTTest
    refusal_rate: dict[str, RefusalRate]
    n: int
    n_boot: int = DEFAULT_N_BOOT
    confidence: float = DEFAULT_CONFIDENCE
    seed: int = 0

    @property
    def unit(self) -> Unit:
        return self.t_test.unit

    def to_dict(self) -> dict[str, Any]:
        first, second = self.levels
        return {
            "compare": self.compare,
            "levels": list(self.levels),
            "mean": {level: e.to_dict() for level, e in self.mean.items()},
            "difference": {
                "of": f"{first} - {second}",
                "paired_by": self.unit,
                **self.difference.to_dict(),
            },
            "t_test": {"paired_on": list(self.paired_on), **self.t_test.to_dict()},
            "refusal_rate": {level: r.to_dict() for level, r in self.refusal_rate.items()},
            "n": self.n,
            "bootstrap": {
                "over": "scenario",
                "of": "each level's mean, refusal rate and neither rate",
                "n_boot": self.n_boot,
                "confidence": self.confidence,
                "seed": self.seed,
            },
        }


# --- computation ------------------------------------------------------------------------------


def _stream(seed: int, name: str) -> list[int]:
    # One stream per figure (as in sts.py): a level's interval does not move when the other
    # level's data change.
    return [seed, zlib.crc32(name.encode("utf-8"))]


def mean_over_scenarios(
    values: Sequence[float],
    scenarios: Sequence[str],
    *,
    share: bool = False,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | Sequence[int] = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Inference:
    """The mean of answers' ``values`` (scores, or 0/1 for a ``share``) with its interval over
    the answers' ``scenarios``, each resampled with all its images and answers.

    A score's interval is the t interval on the logit scale of its place in [−1, 1] (the delta
    method, :mod:`diptych.core.metrics.uncertainty.intervals`), which stays inside the range. A
    share's is the same t and se on the variance-stabilising angular scale of a proportion (asin √p
    ± t·se / (2 √(p(1 − p))), mapped back), which stays in [0, 1] and is not fooled by the skew of
    rates near 0 — refusal rates often are — where the symmetric interval covers far less than
    95% (0.87 for a rate near 0.03 over 20 scenarios of 6 answers, against 0.96 on this scale;
    the logit scale over-covers moderate rates). A share has no test (its p-value is NaN). A
    share of exactly 0 or 1 (nothing varies) has the Jeffreys interval of its count among all
    the answers as its bound on the open side."""
    if not share:
        return mean_over_units(
            values, {"scenario": scenarios}, n_boot=n_boot, confidence=confidence,
            seed=_seq(seed), bounds=UNIT_SCORE_RANGE,
        )  # fmt: skip
    inference = mean_over_units(
        values, {"scenario": scenarios}, n_boot=n_boot, confidence=confidence, seed=_seq(seed)
    )
    return _share_interval(inference, round(sum(values)))


def _share_interval(inference: Inference, hits: int) -> Inference:
    """The share's interval on the angular scale (its number carries the count, which makes
    its Jeffreys bound at 0 or 1 again at any level)."""
    if not inference.has_interval:
        return replace(inference, p_value=math.nan)
    angular = t_inference(
        inference.value, inference.se, inference.df, n=inference.n, units=inference.units,
        design=inference.design, confidence=inference.confidence, bounds=SHARE_RANGE,
        transform="arcsine", count=hits,
    )  # fmt: skip
    return replace(angular, p_value=math.nan)


def _level_mean(rows: Sequence[Response], name: str, boot: _Boot) -> Inference:
    return mean_over_scenarios(
        [r.value for r in rows],
        [r.scenario for r in rows],
        n_boot=boot.n_boot,
        confidence=boot.confidence,
        seed=_stream(boot.seed, name),
    )


@dataclass(frozen=True, slots=True)
class _Boot:
    n_boot: int
    confidence: float
    seed: int


def association_score(
    responses: Iterable[Response],
    compare: Attribute,
    *,
    unit: Unit = "image",
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> AssociationResult:
    """Mean score per level of ``compare``, their paired difference with the paired t-test
    (each image one observation unless ``unit="answer"``) and the refusal and neither rates per
    level, each with its interval. Raises ValueError when ``compare`` does not have exactly two
    levels, when two responses share every key column, when only some responses have an
    outcome, or when there are no responses."""
    if compare not in ATTRIBUTES:
        raise ValueError(f"unknown attribute {compare!r}; compare gender or race")
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    rows = list(responses)
    if not rows:
        raise ValueError("no responses to score")
    levels = levels_of(rows, compare)
    boot = _Boot(n_boot, confidence, seed)
    t_test = paired_t_test(rows, compare, levels, confidence, unit)  # checks repeated answers
    by_level = {level: [r for r in rows if getattr(r, compare) == level] for level in levels}
    _outcomes_told(rows)  # one check over every row: outcomes given for all or none
    return AssociationResult(
        compare=compare,
        levels=levels,
        paired_on=paired_on(compare, unit, has_question=any(r.question for r in rows)),
        mean={level: _level_mean(got, f"mean/{level}", boot) for level, got in by_level.items()},
        difference=t_test.inference(confidence),
        t_test=t_test,
        refusal_rate={
            level: refusal_rate(
                got, n_boot=n_boot, seed=_stream(seed, f"rates/{level}"), confidence=confidence
            )
            for level, got in by_level.items()
        },
        n=len(rows),
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
    )

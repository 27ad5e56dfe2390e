"""Decisions on a figure looked at after every batch of a design bought in random order, valid
however many looks there were: the anytime-valid interval of a sequential gate.

**What it covers.** A release gate reads the figure's interval over its design's units — for
the STS, both identity lists resampled (:mod:`diptych.core.metrics.uncertainty.resampling`): it
speaks for
*identities like these*, the population the identities were drawn from, not for the finite
design's own mean. A sequential gate keeps that target. Were it to cover the design's value
instead (the mean the complete design would give, as a confidence sequence for sampling without
replacement does), a model whose population value sits exactly at the limit would pass about
half the time — whenever its identities happened to fall below it — which is the coin flip
that gates on point estimates make and that a gate exists to avoid.

**Looks.** The design is bought in batches in a random order fixed by the run's seed, so every
prefix is a random part of it. After batch j the figure is analysed as it stands, with the
interval of its own design, which gives a one-sided p-value p_j for each side of a limit.

**Spending the level** (Lan & DeMets 1983, *Biometrika* 70(3)). A gate at one-sided level a
spends a share w_j of a at look j, Σ w_j ≤ 1, and decides at the first look where p_j ≤ a·w_j.
By the union bound, the chance of a false decision at any look is at most Σ_j a·w_j ≤ a,
*whatever the dependence between the looks* — and the looks of one design are strongly
dependent. The shares follow the Pocock-type spending function g(t) = ln(1 + (e − 1)·t) of
the information fraction t, w_j = g(t_j) − g(t_{j−1}); the last look, at the complete design,
spends what is left (t = 1). Equivalently, the gate holds the **anytime-valid p-value**
p̃ = min_j p_j / w_j — a valid p-value at every level at once, which only falls as looks come —
and the **anytime-valid interval**, the intersection over looks of each look's interval at
one-sided level a·w_j. Holm's step-down across the gates of an audit is applied to the p̃
(valid p-values under any dependence): as each p̃ only falls, a gate once decided stays decided.

**A floor for the complete design.** The looks before the complete design spend together no
more than 1 − :data:`FINAL_FLOOR` of the level (a partial look's g(t) is held there: with the
Pocock-type g, its information fraction at most (e^0.75 − 1)/(e − 1) = 0.650), so the complete
design, if reached, always spends at least a quarter of it. Without the floor a look whose
standard error did not shrink from the one before — the identities holding all the variance,
or an se estimated noisily on few units — reads an information fraction near 1 and spends
nearly the whole level early; the complete design is then left almost nothing, and a gate a
fixed design would decide stays undecided with every trial bought. The shares still sum to at
most 1, so the union bound above holds as before. Once the partial looks have spent
1 − floor, the partial looks after them spend nothing and decide nothing new: what is left
waits for the complete design. The floor was measured on
``bench/sequential/figures.py``'s designs (4,000 audits at the limit, 600 at each distance,
the same audits for every rule; chance to pass / mean share of the design bought), the truth
2, 3 and 4 complete-design standard errors below the limit:

========  ==================  =============  =============  =============
floor     false pass at L     2 SE           3 SE           4 SE
========  ==================  =============  =============  =============
none      0.0140              0.247 / 0.830  0.577 / 0.604  0.822 / 0.400
0.1       0.0138              0.273 / 0.834  0.617 / 0.617  0.880 / 0.408
0.25      0.0150              0.337 / 0.848  0.678 / 0.644  0.910 / 0.434
0.5       0.0202              0.402 / 0.880  0.753 / 0.715  0.943 / 0.515
========  ==================  =============  =============  =============

A quarter buys nine to ten points of the chance to decide at every distance for two to four
points more of the design; a half buys six more points at 2 SE but costs a fifth more of the
design at 4 SE, where most gates are decided early and the floor is paid for by every audit.

**Why the information fraction, not the share of trials.** A crossed design bought in random
order reaches every identity in its first batch, and the identities' part of the variance does
not shrink with more scenes: often most of what the complete design will know is known after a
tenth of it. Spending by the share of trials would keep most of the level for looks that add
little, leaving the early looks — the ones that save money — almost no level. The fraction is
t_j = V_full / V_j, V_j the figure's variance (se²) at look j and V_full the variance the complete
design is expected to have: the looks so far are fitted as V = A + B / f (f the share of the
design bought; A ≥ 0 the part more trials cannot shrink, B ≥ 0 the part they do) and
V_full = A + B. With one look A and B cannot be told apart and A = 0 is taken (t = f, the most
cautious). t is kept between f and 1 and never falls. The shares depend on the standard errors
only, never on where the figure lies against a limit: the bench measures that the error stays
within its level when they are estimated (``bench/sequential/figures.py``).

**What it costs.** The complete design read this way gives a wider interval than the fixed
design's (the last look has only what the earlier ones left): a gate that will not be decided
early is decided less often. No valid procedure can beat the fixed design's power at the
complete design, so with the truth 2 standard errors of the complete design from a limit — where
the fixed design decides about half the time — no sequential gate can stop, on average, before
half the design (see ``docs/gates.md`` for the measured figures at 2, 3 and 4 standard errors).

**Alternatives weighed.** Exact group-sequential boundaries (recursive integration over the
looks' joint normal law, correlations √(V_k / V_j)) would spend the level less cautiously where
the looks are nearly independent, but rest on that law holding for a t-statistic whose se is
estimated at each look; the union bound needs no such assumption. Betting confidence sequences
(Waudby-Smith & Ramdas 2023; the ``confseq`` package) take a stream of exchangeable
observations in [0, 1]: the answers of one crossed design share identities and are not
exchangeable, and without replacement they cover the finite pool's mean — the design's value —
which is the target argued against above. ``confseq`` 0.0.11 is also published only as source
that needs a C++ build with Boost; diptych's own code is the few lines below.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol


class LookInterval(Protocol):
    """What a look's figure must offer: its interval at a level and its one-sided p-values
    (an :class:`~diptych.core.metrics.uncertainty.intervals.IntervalRecipe` does)."""

    def interval(self, confidence: float) -> tuple[float, float]: ...

    def p_below(self, limit: float) -> float: ...

    def p_above(self, limit: float) -> float: ...


def pocock_spending(t: float) -> float:
    """The share of the level spent by information fraction ``t``: Lan & DeMets's Pocock-type
    function ln(1 + (e − 1)·t), 0 at t = 0 and 1 at t = 1. It spends early, where a crossed
    design bought in random order already knows most of what it will."""
    t = min(max(t, 0.0), 1.0)
    return math.log1p((math.e - 1.0) * t)


Spending = Callable[[float], float]

#: The share of the level the complete design always keeps: the partial looks together spend at
#: most 1 − FINAL_FLOOR, whatever their information fractions read (module docstring).
FINAL_FLOOR = 0.25


def information_fraction(fractions: Sequence[float], variances: Sequence[float]) -> float:
    """The information fraction at the last of the looks: V_full / V_last, with the looks'
    variances fitted as V = A + B / f (A, B ≥ 0, least squares; see the module docstring) and
    V_full = A + B, kept within [f_last, 1]. One look gives f_last."""
    if len(fractions) != len(variances) or not fractions:
        raise ValueError("one variance per look, at least one look")
    last_f, last_v = fractions[-1], variances[-1]
    if last_f >= 1.0:
        return 1.0
    if len(fractions) < 2 or not last_v > 0:
        return max(last_f, 0.0)
    xs = [1.0 / f for f in fractions]
    n = len(xs)
    mean_x, mean_v = sum(xs) / n, sum(variances) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    sxv = sum((x - mean_x) * (v - mean_v) for x, v in zip(xs, variances, strict=True))
    slope = sxv / sxx if sxx > 0 else 0.0
    level = mean_v - slope * mean_x
    if slope < 0:
        # More trials did not shrink the variance at all: the identities hold all of it.
        level, slope = mean_v, 0.0
    elif level < 0:
        # Nothing that more trials cannot shrink: the variance falls as 1 / f through 0.
        level = 0.0
        slope = sum(x * v for x, v in zip(xs, variances, strict=True)) / sum(x * x for x in xs)
    full = level + slope
    return min(max(full / last_v, last_f), 1.0)


def spending_shares(
    fractions: Sequence[float],
    variances: Sequence[float | None],
    *,
    final: bool = False,
    spending: Spending = pocock_spending,
    floor: float = FINAL_FLOOR,
) -> list[float]:
    """The share of the level each look spends. ``fractions`` are the shares of the design
    bought at each look (rising), ``variances`` the figure's se² there (None where the look had
    no interval: it spends nothing); ``final`` says the last look is the complete design, which
    spends what is left — at least ``floor``: the looks before it spend together no more than
    1 − ``floor``. The shares sum to at most 1."""
    if not 0.0 <= floor < 1.0:
        raise ValueError("the complete design's floor is a share of the level in [0, 1)")
    if len(fractions) != len(variances):
        raise ValueError("one variance per look")
    shares: list[float] = []
    seen_f: list[float] = []
    seen_v: list[float] = []
    spent_t = spent = 0.0
    for j, (f, v) in enumerate(zip(fractions, variances, strict=True)):
        last = final and j == len(fractions) - 1
        if v is None or not math.isfinite(v):
            # No interval at this look (too few units yet): nothing is tested, nothing spent.
            shares.append(0.0)
            continue
        seen_f.append(f)
        seen_v.append(v)
        t = 1.0 if last else information_fraction(seen_f, seen_v)
        t = max(t, spent_t)
        # A partial look's fraction can read near 1 where its se did not shrink (noise, or
        # the identities holding all the variance); held to 1 − floor, the complete design is
        # never left with too little of the level to decide what a fixed design would.
        upto = spending(t) if last else min(spending(t), 1.0 - floor)
        upto = max(upto, spent)
        shares.append(upto - spent)
        spent_t, spent = t, upto
    return shares


@dataclass(frozen=True)
class AnytimeInterval:
    """A figure looked at several times: each look's own interval (``looks``) and the share
    of the level it spends (``shares``). It answers as one interval does — at a level, and as
    one-sided p-values — with the anytime-valid versions: the intersection of the looks'
    intervals at their spent levels, and p̃ = min_j p_j / w_j (module docstring)."""

    looks: tuple[LookInterval, ...]
    shares: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.looks) != len(self.shares) or not self.looks:
            raise ValueError("one share per look, at least one look")
        if sum(self.shares) > 1.0 + 1e-9 or min(self.shares) < 0.0:
            raise ValueError("the shares of the level must be at least 0 and sum to at most 1")

    def _tested(self) -> list[tuple[LookInterval, float]]:
        return [(look, w) for look, w in zip(self.looks, self.shares, strict=True) if w > 0]

    def p_below(self, limit: float) -> float:
        """Anytime-valid p of "the truth is at or above ``limit``" (small: shown below)."""
        return min([1.0] + [min(1.0, look.p_below(limit) / w) for look, w in self._tested()])

    def p_above(self, limit: float) -> float:
        """Anytime-valid p of "the truth is at or below ``limit``" (small: shown above)."""
        return min([1.0] + [min(1.0, look.p_above(limit) / w) for look, w in self._tested()])

    def interval(self, confidence: float) -> tuple[float, float]:
        """The intersection of every look's interval at two-sided level 1 − (1 − confidence)·w:
        it holds the truth at every look at once with probability at least ``confidence``."""
        alpha = (1.0 - confidence) / 2.0
        low, high = -math.inf, math.inf
        for look, w in self._tested():
            level = 1.0 - 2.0 * alpha * w
            if level >= 1.0:
                continue  # a share too small to tell from 0: its interval is the whole range
            lo, hi = look.interval(level)
            low, high = max(low, lo), min(high, hi)
        if low > high:
            # Looks that contradict one another (a chance the level bounds): the point where
            # their intervals meet, so that neither side is claimed beyond what each look says.
            low = high = (low + high) / 2.0
        return low, high

    @property
    def spent(self) -> float:
        """The share of the level spent so far."""
        return sum(self.shares)

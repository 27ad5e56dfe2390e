"""A figure whose run was decided at an early look, in the standings: the interval its decision
used, and pairwise tests no more confident than that interval.

A run bought batch by batch until its gates were decided (``audit run --until-decided``) stopped
because of what its looks showed. Its gated figure's interval is the anytime-valid one over the
looks (:mod:`diptych.core.metrics.uncertainty.sequential`): at look 1 of 10 it spends a small
share of the level and is much wider than the fixed-design interval of the same answers, which
does not hold for a design stopped on what it saw. A page shows one interval per figure, the one
its decision used, named; so the standings show the anytime-valid interval
(:class:`DecidedInterval`) and read the figure's spread from it. A figure no gate read, of a
design stopped early, stopped on what the gated figures showed: its fixed-design interval does
not hold either, and it carries the anytime-valid interval of its own looks, as ``diptych show``
prints it (bench ``sequential.stopped_coverage``).

**The spread a test reads.** The interval was made on the scale of its figure's range (the logit
of an STS's place in [−100, 100]), so its half-width there, divided by the normal quantile of its
level and mapped back by the scale's slope at the value, is the standard error that makes a
95% interval of the same width — the wider side's, so that the symmetric interval this se makes
holds every value the anytime-valid interval holds (a look's interval is centred on its value on
that scale; an intersection of several looks need not be). A pair's difference keeps the
covariance its matched scenes give and replaces the decided figure's own variance by this se²:
var(B − A) + se*² − se² (never less than var(B − A)). Its test then calls a pair different only
where the decided figure's anytime-valid interval, read as a 95% one, would let it, and the rank
intervals built on those tests are no more confident either (bench
``standings.rank_interval_coverage_decided``).

**A run bought on past its stop.** Its figure is read as its looks read it at the stop, and its
pairs read the same trials: those the look read, rebuilt from the run (the first requests of
the seeded order the audit bought it in, as many as the look had bought:
:mod:`diptych.core.workspace.look_trials`), so that B − A is the difference of the values
shown and its interval is made of the trials the decision read. Where the look's trials cannot
be rebuilt (a request failed before the look and was answered since: ``bought_on_all``), the
pair's point value is still the difference of the values shown, its spread that of all the
trials the runs hold raised to the look's as above, and the table's note says so. A figure its
look recorded without an interval (too few units then: ``bought_on_none``) is read as the look
read it, its value and why it had none, as ``diptych show`` prints it: no interval is made of
the trials stored since, and, as for any figure without an interval, its pairs have none either
(no test is done: no p), so no test tells it apart from another model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import Literal

from diptych.core.metrics.run_difference import RunDifference
from diptych.core.metrics.uncertainty.inference import Inference, t_inference
from diptych.core.metrics.uncertainty.intervals import default_transform
from diptych.core.metrics.uncertainty.scales import scale_slope, to_scale

#: Which interval of a design stopped early on its gates a figure carries: the one its gate
#: decided on (``gated``), the anytime-valid one of its own looks for a figure no gate read
#: (``stopped``), its fixed-design one named as not holding after the stop, where its looks
#: did not record it (``fixed``), or, the run bought on past the stop, the one its looks read
#: at the stop, named with its value on all the trials stored since (``bought_on``; its sample
#: then holds the trials that look read), or the same where the look's trials could not be
#: rebuilt from the run (``bought_on_all``; its sample holds all the run's trials), or, where
#: that look recorded the figure without an interval, its value then and no interval
#: (``bought_on_none``; its sample the trials that look read where they can be rebuilt).
DecidedKind = Literal[
    "gated", "read", "stopped", "fixed", "bought_on", "bought_on_all", "bought_on_none"
]


@dataclass(frozen=True)
class DecidedInterval:
    """The figure and interval of a run whose design its gates stopped early, as ``diptych
    show`` prints them: the look's value, its anytime-valid interval and its name ("95%
    anytime-valid interval, look 1 of 10"); or, for a figure its looks did not record, its
    fixed-design value and interval named as not holding after the stop."""

    value: float
    ci_low: float
    ci_high: float
    name: str
    #: Where the interval its looks were made of fell to its floor, what it rests on
    #: (report.json's ``floor``): a decided interval can be a floored one too.
    floor: str | None = None
    kind: DecidedKind = "gated"
    #: Why the look had no interval (``bought_on_none``: "one masculine identity only: no
    #: interval"), as a figure without one says it; None for any other kind.
    reason: str | None = None


def implied_se(decided: DecidedInterval, figure: Inference) -> float:
    """The standard error whose 95% interval (normal, on the scale of ``figure``'s range) holds
    the whole of ``decided``'s interval (see the module)."""
    z = NormalDist().inv_cdf(0.5 + figure.confidence / 2)
    v, low, high = decided.value, decided.ci_low, decided.ci_high
    transform = figure.transform or default_transform(figure.bounds)
    lo_b, hi_b = figure.bounds
    if transform is not None and lo_b < low <= v <= high < hi_b:
        u = to_scale(v, figure.bounds, transform)
        half = max(u - to_scale(low, figure.bounds, transform),
                   to_scale(high, figure.bounds, transform) - u)  # fmt: skip
        return half / (z * scale_slope(v, figure.bounds, transform))
    # An interval reaching its range's end (infinite on that scale), or a value outside its
    # interval (looks that contradicted one another): the wider side on the figure's own scale.
    return max(abs(v - low), abs(high - v)) / z


def decided_figure(figure: Inference, decided: DecidedInterval) -> Inference:
    """``figure`` as its decision read it: the look's value and anytime-valid interval, its se
    the implied one (:func:`implied_se`) and its p the test of that se; the look's value with
    no interval, as any figure without one (se inf, p 1), where the look recorded none."""
    if decided.kind == "bought_on_none":
        return replace(
            figure, value=decided.value, ci_low=-math.inf, ci_high=math.inf, p_value=1.0,
            se=math.inf, df=0.0, reason=decided.reason or figure.reason, floor=None,
        )  # fmt: skip
    se = implied_se(decided, figure)
    test = t_inference(
        decided.value, se, math.inf, n=figure.n, units=figure.units, design=figure.design,
        null=figure.null, confidence=figure.confidence, bounds=figure.bounds,
        transform=figure.transform,
    )  # fmt: skip
    return replace(
        figure, value=decided.value, ci_low=decided.ci_low, ci_high=decided.ci_high,
        p_value=test.p_value, se=se, df=math.inf, floor=decided.floor,
    )  # fmt: skip


def decided_difference(
    d: RunDifference, a: DecidedInterval | None, b: DecidedInterval | None
) -> RunDifference:
    """B − A with each decided figure's variance the one its anytime-valid interval implies, the
    matched scenes' covariance kept (see the module); ``d`` itself where neither is decided.
    Where a figure's sample is not the trials its look read (``bought_on_all``), B − A is the
    difference of the values shown (see the module); where its look had no interval
    (``bought_on_none``), that difference with none, as any pair of a figure without one."""
    if a is None and b is None:
        return d
    none = [x for x in (a, b) if x is not None and x.kind == "bought_on_none"]
    if none:
        return _without_interval(d, a, b, none[0].reason)
    extra = 0.0
    for decided, own in ((a, d.a), (b, d.b)):
        if decided is not None and math.isfinite(own.se):
            extra += max(0.0, implied_se(decided, own) ** 2 - own.se**2)
    i = d.inference
    value = i.value
    if any(x is not None and x.kind == "bought_on_all" for x in (a, b)):
        shown_a = a.value if a is not None else d.a.value
        value = (b.value if b is not None else d.b.value) - shown_a
    if (extra == 0.0 and value == i.value) or not math.isfinite(i.se):
        return d
    tested = t_inference(
        value, math.sqrt(i.se**2 + extra), i.df, n=i.n, units=i.units, design=i.design,
        null=i.null, confidence=i.confidence, bounds=i.bounds, transform=i.transform,
    )  # fmt: skip
    return replace(d, inference=tested)


def _without_interval(
    d: RunDifference, a: DecidedInterval | None, b: DecidedInterval | None, reason: str | None
) -> RunDifference:
    """B − A of a pair one of whose figures its look read without an interval: the difference
    of the values shown, with no interval and p 1 (``d`` itself where it is already that)."""
    i = d.inference
    value = (b.value if b is not None else d.b.value) - (a.value if a is not None else d.a.value)
    if not i.has_interval and value == i.value:
        return d
    tested = t_inference(
        value, math.inf, 0.0, n=i.n, units=i.units, design=i.design, null=i.null,
        confidence=i.confidence, reason=i.reason or reason or "no interval", bounds=i.bounds,
        transform=i.transform,
    )  # fmt: skip
    return replace(d, inference=tested)

"""Sequential gates: an audit bought batch by batch, its gates decided after every batch.

``diptych audit run FILE --until-decided`` buys each gated part's design in batches, in a random
order fixed by the part's seed (every prefix a random part of the design; a resume continues the
same order), and after each batch records a **look**: the share of the design bought and the
gated figures as the part's analysis gives them then. The gates are decided on the
anytime-valid interval of those looks (:mod:`diptych.core.metrics.uncertainty.sequential`),
Holm-adjusted across the audit's gates as the fixed design's are, so that looking after every batch
keeps the stated error; the audit stops when every gate is decided, when its budget is spent, or
when the design is complete.

The looks are kept with the part in the recorded audit (``PartRecord.detail["sequential"]``), so
that ``audit gate`` and the report decide exactly what the run decided, and a rerun continues
from the last look. A rerun without ``--until-decided`` buys the rest of the design in the same
order and reads it as the last look of the same spending plan, with what is left of the level:
once an audit has looked, no later verdict on its gates reads the fixed design's full level,
which would spend more than the level over the looks and the complete design together.

A look is tested only when it holds enough for its interval to be trusted at the small level it
spends (:func:`look_interval`); one that does not is skipped and spends nothing — the latest look
too, so that an audit with too few units yet is undecided, never stuck.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from diptych.core.audit.gates import GateFigure, GateResult
from diptych.core.cost import Cost, answered
from diptych.core.digits import percent_text
from diptych.core.metrics.uncertainty.intervals import IntervalRecipe

# The least units of each kind a look must hold before it is tested: kept beside the number a
# figure's own interval needs for a finding, so that a reader sees why the two differ.
from diptych.core.metrics.uncertainty.precision import LOOK_MIN_UNITS
from diptych.core.metrics.uncertainty.sequential import AnytimeInterval, spending_shares

#: Why a sequential audit stopped buying.
StopReason = Literal["decided", "max-cost", "complete", "interrupted"]

#: The batches a design is bought in unless asked otherwise.
DEFAULT_BATCHES = 10

#: What the gates' output calls the method, beside the figure's own.
ANYTIME = "anytime-valid over looks (Pocock-type spending of the level by information)"

STOP_TEXT: dict[str, str] = {
    "decided": "every gate decided",
    "max-cost": "the budget (--max-cost) was reached",
    "complete": "the design was complete",
    "interrupted": "a model stopped answering; rerun to continue",
}


@dataclass(frozen=True)
class Look:
    """One look at a gated part: after batch ``batch``, ``bought`` of the design's ``planned``
    distinct requests had a stored outcome, and the part's gated figures were ``numbers`` (each
    as the report carries it, so that its interval can be made again)."""

    batch: int
    bought: int
    planned: int
    numbers: Mapping[str, Mapping[str, Any]]

    @property
    def fraction(self) -> float:
        return self.bought / self.planned if self.planned else 1.0

    @property
    def complete(self) -> bool:
        return self.bought >= self.planned

    def to_dict(self) -> dict[str, Any]:
        return {
            "batch": self.batch,
            "bought": self.bought,
            "planned": self.planned,
            "numbers": {k: dict(v) for k, v in self.numbers.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Look:
        return cls(
            int(data["batch"]),
            int(data["bought"]),
            int(data["planned"]),
            {str(k): dict(v) for k, v in (data.get("numbers") or {}).items()},
        )


@dataclass
class PartLooks:
    """The sequential record of one gated part: how its design is bought (``batches`` equal
    shares in the order ``order_seed`` fixes), its looks so far, why it stopped (None while it
    runs), and whether its gates read the looks (``active``; a record of an earlier version
    could turn them off, after which the gates read the fixed design's intervals)."""

    batches: int
    order_seed: int
    looks: list[Look] = field(default_factory=list)
    stop: StopReason | None = None
    active: bool = True

    KEY = "sequential"
    #: Where a part's detail keeps its order's seed from the start of its first batch, before
    #: it has any look (:meth:`order_seed_of`).
    ORDER_KEY = "order_seed"

    @property
    def last(self) -> Look | None:
        return self.looks[-1] if self.looks else None

    @property
    def at(self) -> str:
        """The last look, as every surface names it (:func:`look_text`)."""
        last = self.last
        return look_text(len(self.looks), self.batches, last is not None and last.complete)

    def to_dict(self) -> dict[str, Any]:
        return {
            "batches": self.batches,
            "order_seed": self.order_seed,
            "looks": [look.to_dict() for look in self.looks],
            "stop": self.stop,
            "active": self.active,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PartLooks:
        stop = data.get("stop")
        return cls(
            int(data.get("batches") or DEFAULT_BATCHES),
            int(data.get("order_seed") or 0),
            [Look.from_dict(look) for look in data.get("looks") or []],
            stop if stop in STOP_TEXT else None,
            bool(data.get("active", True)),
        )

    @classmethod
    def of(cls, detail: Mapping[str, Any]) -> PartLooks | None:
        """The record a part's detail keeps, if any."""
        found = detail.get(cls.KEY)
        return cls.from_dict(found) if isinstance(found, Mapping) else None

    @classmethod
    def order_seed_of(cls, detail: Mapping[str, Any]) -> int | None:
        """The seed of the order a part's run is bought in, from its looks or, before its first
        look, from the start of its first batch; None for a part not bought batch by batch."""
        looks = cls.of(detail)
        if looks is not None:
            return looks.order_seed
        seed = detail.get(cls.ORDER_KEY)
        return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


#: The normal quantile of a two-sided 95% interval.
_Z95 = 1.959963984540054


@dataclass(frozen=True)
class Untested:
    """What a gate reads where no look has held enough to be tested yet: no interval (the
    figure's whole range at every level) and p = 1 on either side, so nothing is decided."""

    bounds: tuple[float, float] = (-math.inf, math.inf)

    def interval(self, confidence: float) -> tuple[float, float]:
        return self.bounds

    def p_below(self, limit: float) -> float:
        return 1.0

    def p_above(self, limit: float) -> float:
        return 1.0


def look_interval(fig: GateFigure | None, *, complete: bool = False) -> IntervalRecipe | None:
    """The interval a look's figure is tested on, or None where the look cannot be trusted at
    the small levels a look spends — it is then skipped and spends nothing:

    * fewer than :data:`LOOK_MIN_UNITS` units of a kind its interval resamples (``fig.units``; the
      observations where the figure names no units);
    * a resampling (percentile) interval is replaced by the t interval of the same units: the
      replicates' spread as the standard error, made unbiased by √(u/(u − 1)), with u − 1
      degrees of freedom, on the figure's range's scale. The percentile interval of a few units
      is too short (its spread is biased down and its tails are the normal's, not the t's),
      most of all in the far tails where early looks test; on a range bound it is one point;
    * a t interval of a partial design has no more degrees of freedom than its fewest units
      less one (:func:`_partial`);
    * an interval of zero width, or none: a figure whose units all gave one value off its
      range's bounds has nothing to read its spread from.
    """
    if fig is None:
        return None
    counts = dict(fig.units) if fig.units else ({"observation": fig.n} if fig.n else {})
    if counts and min(counts.values()) < LOOK_MIN_UNITS:
        return None
    own = fig._made()
    if not isinstance(own, IntervalRecipe):
        return None
    made: IntervalRecipe | None = own
    if own.method == "percentile":
        made = _studentized(own, min(counts.values()) if counts else 0)
    elif own.method == "t" and not complete:
        made = _partial(fig, own)
    if made is None or made.method == "t" and not _varies(made):
        return None
    low, high = made.interval(0.95)
    if not (math.isfinite(low) and math.isfinite(high)) or not low < high:
        return None
    return made


def _studentized(recipe: IntervalRecipe, units: int) -> IntervalRecipe | None:
    """The t interval of a percentile figure's ``units`` (see :func:`look_interval`)."""
    reps = recipe.replicates
    if reps is None or reps.size < 2 or units < 2:
        return None
    spread = float(reps.std(ddof=1)) * math.sqrt(units / (units - 1))
    return IntervalRecipe.t(recipe.value, spread, float(units - 1), bounds=recipe.bounds, n=units)


def _varies(recipe: IntervalRecipe) -> bool:
    """Whether a t recipe has a spread to read: a finite se above 0, or a value on a finite
    bound of its range (where the interval is Clopper–Pearson's open end)."""
    if not math.isfinite(recipe.se):
        return False
    return recipe.se > 0 or recipe.value in recipe.bounds


def anytime_figure(looks: Sequence[tuple[Look, GateFigure | None]]) -> GateFigure | None:
    """One gate's figure over its part's looks (each look's figure, None where that look gave
    none): the latest value, with the anytime-valid interval of the looks that hold enough to
    be tested (:func:`look_interval`; the others spend nothing); None when no look gave a figure.
    A last look at the complete design spends what is left of the level."""
    given = [(look, fig) for look, fig in looks if fig is not None]
    if not given:
        return None
    made = [(look, look_interval(fig, complete=look.complete)) for look, fig in given]
    final = looks[-1][0].complete and looks[-1][1] is not None
    shares = spending_shares(
        [look.fraction for look, _ in made],
        [_variance(m) for _, m in made],
        final=final,
    )
    latest = given[-1][1]
    tested = [m for _, m in made if m is not None]
    if not tested:
        untested = GateFigure(
            latest.value, math.inf, 0.0,
            f"{ANYTIME}; no look yet holds {LOOK_MIN_UNITS} units of each kind with an interval, "
            "so none is tested", latest.n, Untested(), latest.units,
        )  # fmt: skip
        return untested
    kept = tuple(m if m is not None else Untested() for _, m in made)
    anytime = AnytimeInterval(kept, tuple(shares))
    return GateFigure(
        latest.value,
        latest.se,
        latest.df,
        f"{ANYTIME}; each look: {tested[-1].description}",
        latest.n,
        anytime,
        latest.units,
    )


def _variance(recipe: IntervalRecipe | None) -> float | None:
    """A tested look's se² (what its information fraction reads); None for a skipped look."""
    if recipe is None:
        return None
    if recipe.method == "t":
        return recipe.se**2 if math.isfinite(recipe.se) else None
    low, high = recipe.interval(0.95)
    return ((high - low) / (2 * _Z95)) ** 2


def _partial(fig: GateFigure, recipe: IntervalRecipe) -> IntervalRecipe:
    """A partial design's interval, its degrees of freedom no more than its fewest units less
    one. Where a crossed design's estimator sees no identity effect it counts its scenes as the
    units (K − 1 df); early in a design bought in random order each identity has met few
    partners, that judgement rests on little, and the small one-sided levels of early looks sit
    in the tails where a t with too many df is too narrow (measured:
    ``bench/sequential/figures.py``)."""
    if not fig.units:
        return recipe
    fewest = min(fig.units.values()) - 1
    return replace(recipe, df=min(recipe.df, float(fewest))) if fewest >= 1 else recipe


def undecided_note(looks: Sequence[Look]) -> str:
    """What an inconclusive sequential gate says instead of "about N more units"."""
    last = looks[-1]
    where = f"{len(looks)} look{'s' if len(looks) != 1 else ''} ({last.bought:,} of " \
        f"{last.planned:,} requests, {percent_text(last.fraction)})"  # fmt: skip
    if last.complete:
        return f"not decided after {where}: the design is complete"
    return f"not decided after {where}; another batch may decide it"


def with_sequential_notes(
    results: Sequence[GateResult], looks_of: Mapping[str, Sequence[Look]]
) -> list[GateResult]:
    """The gates' results with the notes of a sequential decision: an inconclusive gate says
    after how many looks it stands undecided (the fixed design's "about N more units" does not
    hold where the level is spent over looks). ``looks_of`` maps a gate's label to its looks."""
    out = []
    for r in results:
        looks = looks_of.get(r.label)
        if looks and r.verdict == "inconclusive" and not r.note.startswith("Holm"):
            r = replace(r, note=undecided_note(looks), more_trials=None, more_units=None)
        out.append(r)
    return out


#: What a look that read the whole design is named by where the plan had more batches.
WHOLE_DESIGN = "the whole design"


def bought_words(bought: int, planned: int, asked: float | None, at: str = "") -> str:
    """What a sequential audit's gated designs hold, as its stop line says it (``at``: the
    looks that read them, :attr:`SequentialSummary.read_in`), with what this command asked
    (``asked``, a :class:`~diptych.core.cost.Cost`; a plain float or None: not known): "bought
    164 of 1,640 requests (10.0%) in 1 of 10 batches"; where it asked none, "read 164 of 1,640
    requests (10.0%) from the store in 1 of 10 batches, nothing bought"; where it asked some,
    how many of them."""
    share = f"({percent_text(bought / planned)})" if planned else ""
    counted = f"{bought:,} of {planned:,} requests {share}".rstrip()
    where = f" {at}" if at else ""
    now = answered(asked) if isinstance(asked, Cost) else None
    if now == 0:
        return f"read {counted} from the store{where}, nothing bought"
    if now is None or now >= bought:
        return f"bought {counted}{where}"
    return f"bought {counted}{where}, {now:,} of them now, the rest read from the store"


def look_text(look: int, batches: int, complete: bool = False) -> str:
    """A look as every surface names it: "look 1 of 10"; a look that read the whole design
    before the plan's last batch (``diptych resume --yes``, the audit run without
    ``--until-decided``) "the whole design read at look 2", without the plan's batches: "look
    2 of 10" would read as if 2 of its 10 batches were bought, with looks to come."""
    if complete and look < batches:
        return f"{WHOLE_DESIGN} read at look {look:,}"
    return f"look {look:,} of {batches:,}"


def status_at(status: str, at: str) -> str:
    """A part's status at a look (:func:`look_text`), as every surface joins them: "decided
    at look 1 of 10"; "complete: the whole design read at look 2"."""
    return f"{status}: {at}" if at.startswith(WHOLE_DESIGN) else f"{status} at {at}"


def own_stop(
    joined: Sequence[PartLooks], own: Sequence[PartLooks | None], results: Sequence[GateResult]
) -> StopReason | None:
    """Why an audit's looks stopped, as its own gates (``results``) read its runs' looks
    (``joined``: every record's): "complete" where the last looks read the designs whole (or
    "decided" where they were so recorded and every gate is); "decided" where every one of
    its gates is; else why its own record (``own``) stopped — the budget, a model that stopped
    answering — never another file's reason, which read other gates on the same looks."""
    decided = bool(results) and all(r.verdict != "inconclusive" for r in results)
    if joined and all(p.last is not None and p.last.complete for p in joined):
        recorded = SequentialSummary.of(joined)
        return "decided" if decided and recorded and recorded.stop == "decided" else "complete"
    if decided:
        return "decided"
    stops = {p.stop for p in own if p is not None}
    return next((s for s in ("max-cost", "interrupted") if s in stops), None)


@dataclass(frozen=True)
class SequentialSummary:
    """What a report and ``audit gate`` say of a sequential audit: why it stopped, after how
    many looks, and what of its gated parts' designs it bought."""

    stop: StopReason | None
    looks: int
    batches: int
    bought: int
    planned: int
    #: Where a gated part's run was bought on since its gates stopped it early: the requests
    #: of the gated designs with an outcome now, and the trials its bought-on runs were asked
    #: (what their figures are read from); None and 0 where none was.
    bought_now: int | None = None
    trials_now: int = 0
    #: Trials of the gated parts' runs stored as failed, by run: the design is not complete
    #: while any failed, whatever the looks counted (:meth:`with_failed`).
    failed: Mapping[str, int] = field(default_factory=dict)

    def with_failed(self, failed: Mapping[str, int]) -> SequentialSummary:
        """This summary, its gated parts' runs' failed trials (by run id) said."""
        return replace(self, failed={run: n for run, n in failed.items() if n})

    @property
    def saved(self) -> int:
        """The requests never bought: those the stop saved, less any bought on since."""
        return self.planned - (self.bought if self.bought_now is None else self.bought_now)

    @property
    def early(self) -> bool:
        return self.bought < self.planned

    @property
    def at(self) -> str:
        """The look its gates read, as every surface names it (:func:`look_text`)."""
        return look_text(self.looks, self.batches, not self.early and not self.failed)

    @property
    def read_in(self) -> str:
        """Where its gated designs' requests were read, as its stop line says it: "in 1 of 10
        batches" while each look read one batch more; where its last look read the whole
        design before the plan's last batch (bought whole since its gates stopped it, then
        audited again), that look: "at look 2, which read the whole design", never "in 2 of 10
        batches", as if 8 of them were not read."""
        if not self.early and self.looks < self.batches:
            return f"at look {self.looks:,}, which read the whole design"
        return f"in {self.looks:,} of {self.batches:,} batches"

    def sentence(self) -> str:
        why = STOP_TEXT.get(self.stop or "", "it was stopped")
        share = percent_text(self.bought / self.planned)
        bought = f"{self.bought:,} of {self.planned:,} requests ({share})"
        intervals = "its intervals are the anytime-valid ones"
        if self.failed:
            n = sum(self.failed.values())
            retry = " and ".join(f"diptych resume {run}" for run in self.failed)
            head = (
                f"The audit was looked at {self.looks} time{'s' if self.looks != 1 else ''}, "
                f"and its design is not complete: {n:,} trial{'s' if n != 1 else ''} failed "
                f"({retry} asks {'it' if n == 1 else 'them'} again)"
            )
        elif self.early:
            head = (
                f"The audit stopped early ({why}) after {bought}, at look {self.looks} of "
                f"{self.batches}"
            )
            if self.bought_now is not None:
                # Its history kept, and what holds now: its figures are read past the look.
                head += (
                    f"; it was bought on since ({self.bought_now:,} of {self.planned:,} "
                    f"requests now, {self.trials_now:,} trials its runs were asked); the "
                    f"gates below keep their reading at look {self.looks} of {self.batches}, "
                    "each gate's value and interval the look's; its runs' figures (in their "
                    "reports and diptych show) are read there too, each with its value on all "
                    "the trials since beside it, a value only"
                )
                intervals = "their intervals are the anytime-valid ones of its looks"
        else:
            times = f"{self.looks} time{'s' if self.looks != 1 else ''}"
            # Bought whole, its stop says no more than "its complete design" does.
            why = "" if self.stop == "complete" else f" ({why})"
            head = f"The audit was looked at {times}, the last at its complete design{why}"
        return f"{head}; {intervals}, which hold however many looks were taken."

    def to_dict(self) -> dict[str, Any]:
        return {
            "stop": self.stop,
            "looks": self.looks,
            "batches": self.batches,
            "bought": self.bought,
            "planned": self.planned,
            "saved": self.saved,
            "early": self.early,
            "bought_now": self.bought_now,
            "trials_now": self.trials_now,
            "failed": dict(self.failed),
            "sentence": self.sentence(),
        }

    @classmethod
    def of(cls, parts: Sequence[PartLooks]) -> SequentialSummary | None:
        active = [p for p in parts if p.active and p.looks]
        if not active:
            return None
        stops = [p.stop for p in active if p.stop is not None]
        # One reason for the audit: the budget where it stopped any part, else decided, else
        # the design complete.
        stop: StopReason | None = next(
            (s for s in ("max-cost", "interrupted", "decided", "complete") if s in stops), None
        )
        return cls(
            stop,
            max(len(p.looks) for p in active),
            max(p.batches for p in active),
            sum(p.looks[-1].bought for p in active),
            sum(p.looks[-1].planned for p in active),
        )

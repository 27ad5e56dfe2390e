"""Sequential gates: an audit bought batch by batch, its gates decided after every batch.

``diptych audit run FILE --until-decided`` buys each gated part's design in batches, in a random
order fixed by the part's seed (every prefix a random part of the design; a resume continues the
same order), and after each batch records a **look**: the share of the design bought and the
gated figures as the part's analysis gives them on the batches bought by then (answers other
runs stored for later batches are read when their batch comes). The gates are decided on the
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

#: The most batches a design is bought in: each look spends part of the error rate, and the
#: expected spend of a dry run simulates every look.
MAX_BATCHES = 100

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
    distinct requests in batches 1 to ``batch`` had a stored outcome, and the part's gated
    figures read on them were ``numbers`` (each as the report carries it, so that its interval
    can be made again). ``held``: the run's requests with an outcome then, those an unrelated
    run stored for later batches as well, which the look does not read (None: a look recorded
    before it was kept, read as ``bought``)."""

    batch: int
    bought: int
    planned: int
    numbers: Mapping[str, Mapping[str, Any]]
    held: int | None = None

    @property
    def fraction(self) -> float:
        return self.bought / self.planned if self.planned else 1.0

    @property
    def complete(self) -> bool:
        return self.bought >= self.planned

    @property
    def outcomes(self) -> int:
        """The run's requests with an outcome when the look was taken, read or not."""
        return self.bought if self.held is None else self.held

    def to_dict(self) -> dict[str, Any]:
        kept = {
            "batch": self.batch,
            "bought": self.bought,
            "planned": self.planned,
            "numbers": {k: dict(v) for k, v in self.numbers.items()},
        }
        if self.held is not None:
            kept["held"] = self.held
        return kept

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Look:
        held = data.get("held")
        return cls(
            int(data["batch"]),
            int(data["bought"]),
            int(data["planned"]),
            {str(k): dict(v) for k, v in (data.get("numbers") or {}).items()},
            int(held) if held is not None else None,
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
    #: Where it keeps the batches its design is bought in, beside the seed.
    BATCHES_KEY = "batches"

    @property
    def last(self) -> Look | None:
        return self.looks[-1] if self.looks else None

    @property
    def at(self) -> str:
        """The last look, as every surface names it (:func:`look_text`)."""
        last = self.last
        return look_text(len(self.looks), self.total, last is not None and last.complete)

    def next_batch(self) -> int:
        """The batch to buy next: the one after the last look's, or the same batch again where
        a budget or a stop cut it short (the look read fewer than its batches hold);
        ``batches + 1`` once the last batch is bought or the design is complete. Read from the
        look's own batch, never from its count alone: a look recorded before looks read their
        batches only counted answers other runs stored for later batches, which would skip
        batches."""
        last = self.last
        if last is None:
            return 1
        if last.complete:
            return self.batches + 1
        end = self._end(min(last.batch, self.batches), last.planned)
        if last.bought < end:
            return last.batch
        # More batches than requests: a batch that ends where the last one did buys nothing,
        # and a look with nothing new reads as a model that stopped answering. Skip to the
        # first batch that reaches a request more.
        following = last.batch + 1
        while following <= self.batches and self._end(following, last.planned) <= end:
            following += 1
        return min(following, self.batches + 1)

    def _end(self, batch: int, planned: int) -> int:
        """The requests batches 1 to ``batch`` hold (rounded up, as the purchase order cuts)."""
        return -(-batch * planned // self.batches)

    @property
    def total(self) -> int:
        """The looks its design is read in: those taken and one for each batch left to buy. A
        batch a budget cut short is looked at again when it is bought whole (by the next
        file, or a rerun), so a design of 4 batches cut in its third and continued is read in
        5 looks, "look 5 of 5", never "5 of 4"; ``batches`` while no batch was cut."""
        return max(self.batches, len(self.looks) + self.batches - self.next_batch() + 1)

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


def anytime_figure(
    looks: Sequence[tuple[Look, GateFigure | None]],
    tested_as: Sequence[IntervalRecipe | None] | None = None,
) -> GateFigure | None:
    """One gate's figure over its part's looks (each look's figure, None where that look gave
    none): the latest value, with the anytime-valid interval of the looks that hold enough to
    be tested (:func:`look_interval`; the others spend nothing); None when no look gave a figure.
    A last look at the complete design spends what is left of the level, never less than
    :data:`~diptych.core.metrics.uncertainty.sequential.FINAL_FLOOR`. ``tested_as``: the
    :func:`look_interval` of each look that gave a figure, where the caller kept them from the
    looks before (a look's own interval never changes as more looks come)."""
    given = [(look, fig) for look, fig in looks if fig is not None]
    if not given:
        return None
    if tested_as is None:
        tested_as = [look_interval(fig, complete=look.complete) for look, fig in given]
    if len(tested_as) != len(given):
        raise ValueError("one tested interval per look that gave a figure")
    made = [(look, m) for (look, _), m in zip(given, tested_as, strict=True)]
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

"""Standing among models: every audited model's figure side by side, with its interval, the
pairwise differences with Holm-corrected tests, and a rank with its interval.

Only figures of one design are ranked together (:attr:`FigureSample.design`: the same probe,
version and parameters, so the same identities asked in the same scenes); each design is its
own table. Within it:

* each model's figure is the mean over its observations with the interval of its units
  (:func:`~diptych.core.metrics.uncertainty.resampling.mean_over_units`); a figure its run's
  gates decided at an early look keeps the anytime-valid interval they decided on, and its
  pairs read the variance that interval implies (:mod:`.decided`); a run bought on since is
  handed over as that look read it (its sample the trials the look read), so that its pairs
  read the trials its figure does, and a figure that look read without an interval has none,
  nor have its pairs;
* each pair's difference is the runs' difference (:func:`~diptych.core.metrics.run_difference
  .run_difference`): matched per scene where both asked the same scenes, else independent, its
  interval and t-test from one resampling of the identities crossed in scenes — the units that
  vary, never rows. The pairs' p-values are adjusted by Holm's step-down over the table's pairs
  that have a test (a pair without an interval had none and is not of the family), so that
  "differs" holds for every pair at once with a family-wise error of at most α;
* a model's rank is 1 + the number of models whose figure is higher (rank 1: the highest
  figure), and its interval runs from 1 + the models *shown* higher (a Holm-significant
  difference) to the number of models less those shown lower. Every model's interval covers
  its true rank whenever no pair is wrongly called different, so all of them hold at once
  with probability at least 1 − α (the ranks' simultaneous intervals of Mogstad, Romano,
  Shaikh and Wilmer, "Inference for Ranks", 2024, built on the pairwise tests); bench
  ``standings.rank_interval_coverage`` measures it where it is tightest, every model equal.

A model measured again on another version or build (:class:`Succession`) is compared with its
predecessor alone: a change whose interval excludes 0 is distinguishable from noise.
"""

from __future__ import annotations

import math
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from diptych.core.digits import figure_text
from diptych.core.metrics.run_difference import RunDifference, cell_means, run_difference
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_N_BOOT
from diptych.core.metrics.uncertainty.inference import Inference
from diptych.core.metrics.uncertainty.resampling import holm, mean_over_units
from diptych.core.metrics.uncertainty.scales import ROUNDING
from diptych.core.standings.decided import DecidedInterval, decided_difference, decided_figure
from diptych.core.standings.samples import FigureSample


@dataclass(frozen=True)
class Measured:
    """A figure of one model in one run, with what says which model and build made it."""

    run: str
    created_at: float
    model_name: str
    version: str
    params: dict[str, Any]
    builds: tuple[str, ...]
    sample: FigureSample
    #: The run as a table shows it (its id without the probe, cut short), else its id.
    shown_run: str = ""
    #: The model as every surface names it: its plugin, with the version, build or parameters
    #: that set it apart from a namesake measured beside it (two builds of one model, two
    #: servers of one GGUF file: :func:`diptych.core.report.names.tell_apart`); else its id.
    shown: str = ""
    #: Where the run holds part of its design only (a sequential audit decided it at an early
    #: look), its share in words ("10% of its design (decided at look 1 of 10: 164 of 1,640
    #: requests, 1,476 saved)"); "" for a run bought whole.
    partial: str = ""
    #: Where the run's gates stopped its design at an early look, the interval ``diptych show``
    #: prints for this figure (anytime-valid over the looks: the gate's, or its own looks' for
    #: a figure no gate read): the standings show it and test no more confidently
    #: (:mod:`diptych.core.standings.decided`); None for a figure read on its fixed design.
    decided: DecidedInterval | None = None

    @property
    def name(self) -> str:
        """The model as the standings name it."""
        return self.shown or self.sample.model

    @property
    def label(self) -> str:
        """The model and the run it was measured in."""
        return f"{self.name} ({self.run})"

    @property
    def key(self) -> str:
        """The model's id and its run: what seeds its resampling and orders ties, the same
        whichever other models are ranked beside it (unlike its name, which is told apart
        from theirs)."""
        return f"{self.sample.model} ({self.run})"


@dataclass(frozen=True)
class Standing:
    measured: Measured
    figure: Inference
    rank: int
    rank_low: int
    rank_high: int

    def to_dict(self) -> dict[str, Any]:
        m = self.measured
        return {
            "run": m.run,
            "model": m.sample.model,
            "shown": m.name,
            "model_name": m.model_name,
            "version": m.version,
            "builds": list(m.builds),
            "figure": m.sample.figure,
            **{k: v for k, v in self.figure.to_dict().items() if k != "design"},
            "rank": self.rank,
            "rank_interval": [self.rank_low, self.rank_high],
            **({"note": m.sample.note} if m.sample.note else {}),
            **({"partial": m.partial} if m.partial else {}),
            **({"interval": m.decided.name} if m.decided is not None else {}),
            # A figure without an interval had no test: no p, and why (as a pair without one).
            **({} if self.figure.has_interval else _no_p(self.figure.reason)),
        }


@dataclass(frozen=True)
class PairDifference:
    """B − A of two models of one table, its test's p and Holm's adjusted p."""

    a: str
    b: str
    difference: RunDifference
    p_holm: float
    differs: bool
    #: The names of A's and B's intervals where their runs' gates decided them (their rows'
    #: ``interval``): a pair's sides are its rows' figures, named as the rows name them.
    named: tuple[str | None, str | None] = (None, None)

    @property
    def tested(self) -> bool:
        """Whether a test was done: a pair without an interval has no p (see :func:`untested`)."""
        return self.difference.inference.has_interval

    def to_dict(self) -> dict[str, Any]:
        return {**sides_dict(self.difference, self.named), "model_a": self.a,
                "model_b": self.b, "p_holm": self.p_holm if self.tested else None,
                "differs": self.differs}  # fmt: skip


@dataclass(frozen=True)
class Succession:
    """A model measured again (another version or build, or the run named as its predecessor)
    set against its predecessor: after − before, and whether that is distinguishable from the
    noise of resampling the units (its interval excludes 0)."""

    before: str
    after: str
    difference: RunDifference
    #: The names of the two figures' intervals where their runs' gates decided them.
    named: tuple[str | None, str | None] = (None, None)

    @property
    def distinguishable(self) -> bool:
        return self.difference.inference.excludes_null

    def to_dict(self) -> dict[str, Any]:
        return {**sides_dict(self.difference, self.named), "before": self.before,
                "after": self.after, "distinguishable": self.distinguishable}  # fmt: skip


def sides_dict(d: RunDifference, named: tuple[str | None, str | None]) -> dict[str, Any]:
    """B − A as JSON, each side its row's figure with its interval's name where it has one,
    and no p where no test was done (a figure without an interval): null, with the reason."""
    out = d.to_dict()
    for side, name in zip(("a", "b"), named, strict=True):
        if name is not None:
            out[side] = {**out[side], "interval": name}
    for side, figure in (("a", d.a), ("b", d.b)):
        if not figure.has_interval:
            out[side] = {**out[side], **_no_p(figure.reason)}
    if not d.inference.has_interval:
        out["p_value"] = out["inference"]["p_value"] = None
        out["p_reason"] = untested(d)
    return out


def _no_p(reason: str | None) -> dict[str, Any]:
    """A figure's JSON where it has no interval: no test, so no p (null), and why."""
    return {"p_value": None, "p_reason": f"no test: {reason or 'no interval'}"}


def untested(d: RunDifference) -> str:
    """Why a pair has no p: no interval, so no test tells its two figures apart."""
    return f"no test tells them apart ({d.inference.reason or 'no interval'})"


@dataclass(frozen=True)
class Reference:
    """A figure a method paper published for this figure: another design (its models, prompts
    and annotators), shown for context and never ranked."""

    source: str
    where: str
    measured_on: str
    what: str
    values: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "where": self.where, "measured_on": self.measured_on,
                "what": self.what, "values": self.values, "design": "other design"}  # fmt: skip


@dataclass
class DesignTable:
    """The standings of one design: its models ranked, their pairs, successions, and the
    papers' published figures beside them."""

    figure: str
    design: str
    design_label: str
    unit_words: str
    standings: list[Standing]
    pairs: list[PairDifference]
    successions: list[Succession] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)

    @property
    def holm_family(self) -> int:
        """How many pairs Holm adjusts over: those with a test (an untested pair is none)."""
        return sum(p.tested for p in self.pairs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "figure": self.figure,
            "design": self.design_label,
            "units": self.unit_words,
            "standings": [s.to_dict() for s in self.standings],
            "pairs": [p.to_dict() for p in self.pairs],
            "holm_family": self.holm_family,
            "successions": [s.to_dict() for s in self.successions],
            "references": [r.to_dict() for r in self.references],
        }


@dataclass
class Standings:
    tables: list[DesignTable]
    n_boot: int = DEFAULT_N_BOOT
    seed: int = 0
    confidence: float = DEFAULT_CONFIDENCE

    @property
    def method(self) -> str:
        level = round(100 * self.confidence)
        return (
            f"Each figure with its {level}% interval over its units (a figure of a design its "
            "run's gates stopped at an early look with the anytime-valid interval they decided "
            "on, or, for a figure no gate read, that of its own looks, named); "
            "each pair's difference matched per scene where both runs asked the same scenes "
            "(else independent), its interval and t-test from one resampling of those units "
            "(a decided figure's variance the one its anytime-valid interval implies, a run "
            "bought on past its stop read on the trials its look read); p "
            "adjusted by Holm over a table's pairs that have a test. Rank 1 is the highest "
            "figure; a rank's interval runs over the models no Holm-adjusted test at "
            f"{figure_text(1 - self.confidence)} tells apart "
            "from it, so every rank interval of a table holds at once with probability ≥ "
            f"{level}%. Only runs of one design are ranked together; published figures are "
            "another design."
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "tables": [t.to_dict() for t in self.tables],
            "method": self.method,
            "n_boot": self.n_boot,
            "seed": self.seed,
            "confidence": self.confidence,
        }


def difference_of(
    a: FigureSample, b: FigureSample, *, n_boot: int, seed: int, confidence: float
) -> RunDifference:
    """B − A of one figure of two models: matched per cell when both asked the same cells."""
    matched = None
    if set(a.cells) == set(b.cells):
        matched = (cell_means(a.values, a.cells), cell_means(b.values, b.cells))
    units = {**b.cell_units, **a.cell_units}
    found = run_difference(
        (a.values, a.units), (b.values, b.units), matched, lambda cell: units[cell],
        name=f"{a.figure}/{a.model}/{b.model}", scale=a.scale, n_boot=n_boot, seed=seed,
        confidence=confidence, bounds=a.bounds,
    )  # fmt: skip
    assert found is not None  # a FigureSample always holds an observation
    return found


def row_figure(m: Measured, *, n_boot: int, seed: int, confidence: float) -> Inference:
    """The figure a row shows for ``m``: the mean over its units with their interval, or, its
    run decided at an early look, as that decision read it (:mod:`.decided`). A pair's sides
    are these figures, never another interval of them."""
    fixed = mean_over_units(
        m.sample.values, m.sample.units, scale=m.sample.scale, confidence=confidence,
        n_boot=n_boot, seed=[zlib.crc32(m.key.encode()), seed], bounds=m.sample.bounds,
    )  # fmt: skip
    return fixed if m.decided is None else decided_figure(fixed, m.decided)


def _name_of(m: Measured) -> str | None:
    return None if m.decided is None else m.decided.name


def rank_table(
    measured: Sequence[Measured],
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[list[Standing], list[PairDifference]]:
    """The standings and pairwise differences of figures of one design (see the module)."""
    alpha = 1 - confidence
    # A model measured in one run of the table is named by the model alone.
    times = Counter(m.name for m in measured)
    names = [m.name if times[m.name] == 1 else m.label for m in measured]
    # A figure decided at an early look is read on the interval its decision used.
    figures = [row_figure(m, n_boot=n_boot, seed=seed, confidence=confidence) for m in measured]
    n = len(measured)
    ranks = [
        1 + sum(_higher(other.value, fig.value, m.sample.bounds) for other in figures)
        for m, fig in zip(measured, figures, strict=True)
    ]
    found: list[tuple[int, int, RunDifference]] = []
    # Pairs in the order of the figures, highest first: a table reads #1 − #2, #1 − #3 ...
    order = sorted(range(n), key=lambda k: (ranks[k], measured[k].key))
    for x, i in enumerate(order):
        for j in order[x + 1 :]:
            d = difference_of(
                measured[i].sample, measured[j].sample, n_boot=n_boot, seed=seed,
                confidence=confidence,
            )  # fmt: skip
            d = decided_difference(d, measured[i].decided, measured[j].decided)
            # Its sides are the rows' figures: one interval per figure in one document.
            found.append((i, j, replace(d, a=figures[i], b=figures[j])))
    # A pair without an interval had no test: it is no member of Holm's family (counted at
    # p = 1 it would raise every other pair's adjusted p), and its own Holm p is 1.
    tested = [k for k, (_, _, d) in enumerate(found) if d.inference.has_interval]
    adjusted = [1.0] * len(found)
    for k, p in zip(tested, holm([found[k][2].p_value for k in tested]), strict=True):
        adjusted[k] = p
    pairs: list[PairDifference] = []
    above = [0] * len(measured)  # models shown higher
    below = [0] * len(measured)  # models shown lower
    for (i, j, d), p in zip(found, adjusted, strict=True):
        differs = p < alpha
        named = (_name_of(measured[i]), _name_of(measured[j]))
        pairs.append(PairDifference(names[i], names[j], d, p, differs, named))
        if differs:
            hi, lo = (j, i) if d.difference > 0 else (i, j)
            above[lo] += 1
            below[hi] += 1
    standings = [
        Standing(
            measured=m,
            figure=fig,
            rank=ranks[k],
            rank_low=1 + above[k],
            rank_high=n - below[k],
        )
        for k, (m, fig) in enumerate(zip(measured, figures, strict=True))
    ]
    standings.sort(key=lambda s: (s.rank, s.measured.key))
    return standings, pairs


def _higher(a: float, b: float, bounds: tuple[float, float]) -> bool:
    """Whether figure ``a`` is above ``b`` by more than rounding: two models that gave the same
    observations, summed in another order, differ in their last digits and share a rank."""
    span = bounds[1] - bounds[0]
    scale = span if math.isfinite(span) else max(abs(a), abs(b), 1.0)
    return a - b > ROUNDING * scale


def _succession_key(m: Measured) -> tuple[str, str, str]:
    # The same model is the same plugin with the same parameters, apart from its version.
    params = {k: v for k, v in m.params.items() if k != "version"}
    return (m.model_name, repr(sorted(params.items())), m.sample.design)


def successions(
    measured: Sequence[Measured],
    *,
    against: str | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> list[Succession]:
    """Each model measured again set against its predecessor: with ``against`` (a run id),
    every other figure of the design against that run's figure of the same model plugin (or
    its only figure); otherwise each figure against the last earlier one of the same model
    (plugin and parameters) made on another version or build."""
    pairs: list[tuple[Measured, Measured]] = []
    if against is not None:
        old = [m for m in measured if m.run == against]
        for m in measured:
            if m.run == against:
                continue
            same = [o for o in old if o.sample.design == m.sample.design]
            named = [o for o in same if o.model_name == m.model_name]
            chosen = named[0] if len(named) == 1 else same[0] if len(same) == 1 else None
            if chosen is not None:
                pairs.append((chosen, m))
    else:
        ordered = sorted(measured, key=lambda m: m.created_at)
        for k, m in enumerate(ordered):
            earlier = [
                o
                for o in ordered[:k]
                if _succession_key(o) == _succession_key(m)
                and (o.version != m.version or o.builds != m.builds)
            ]
            if earlier:
                pairs.append((earlier[-1], m))
    out = []
    for before, after in pairs:
        d = decided_difference(
            difference_of(
                before.sample, after.sample, n_boot=n_boot, seed=seed, confidence=confidence
            ),
            before.decided,
            after.decided,
        )
        # Its sides are the rows' figures, as a pair's are.
        a, b = (row_figure(m, n_boot=n_boot, seed=seed, confidence=confidence)
                for m in (before, after))  # fmt: skip
        names = (_name_of(before), _name_of(after))
        out.append(Succession(before.label, after.label, replace(d, a=a, b=b), names))
    return out


def standings(
    measured: Sequence[Measured],
    *,
    against: str | None = None,
    references: dict[str, list[Reference]] | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Standings:
    """Every design's table of ``measured`` (first seen first); ``references`` maps a design
    to the papers' published figures for it."""
    by_design: dict[str, list[Measured]] = {}
    for m in measured:
        by_design.setdefault(m.sample.design, []).append(m)
    tables = []
    for design, group in by_design.items():
        ranked, pairs = rank_table(group, n_boot=n_boot, seed=seed, confidence=confidence)
        first = group[0].sample
        tables.append(
            DesignTable(
                figure=first.figure,
                design=design,
                design_label=first.design_label,
                unit_words=first.unit_words,
                standings=ranked,
                pairs=pairs,
                successions=successions(
                    group, against=against, n_boot=n_boot, seed=seed, confidence=confidence
                ),
                references=(references or {}).get(design, []),
            )
        )
    return Standings(tables, n_boot=n_boot, seed=seed, confidence=confidence)

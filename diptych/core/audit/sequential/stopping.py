"""What an audit bought until decided says of its looks as a whole: why they stopped
(:func:`own_stop`), after how many, and what of its gated designs they bought
(:class:`SequentialSummary`), in the words of every surface (:mod:`.looks`); and which parts'
partial looks have spent their share of the level (:func:`capped_parts`), whose next decision
can only come at their complete design."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from diptych.core.audit.gates import GateFigure, GateResult
from diptych.core.audit.sequential.looks import STOP_TEXT, PartLooks, StopReason, look_text
from diptych.core.digits import percent_text
from diptych.core.metrics.uncertainty.sequential import FINAL_FLOOR, AnytimeInterval

#: The share of the level the looks before the complete design may spend together.
LOOKS_SHARE = 1.0 - FINAL_FLOOR


def looks_share_spent(fig: GateFigure | None) -> bool:
    """Whether a gate's figure over its looks has spent the partial looks' share of the level
    (:data:`LOOKS_SHARE`): a later look short of the complete design spends nothing, so it can
    decide nothing the looks before it did not."""
    recipe = fig.recipe if fig is not None else None
    return isinstance(recipe, AnytimeInterval) and recipe.spent >= LOOKS_SHARE - 1e-9


def capped_parts(
    looks: Mapping[str, PartLooks],
    results: Sequence[GateResult],
    figures: Mapping[tuple[str, str, str], GateFigure],
) -> dict[str, int]:
    """The parts, of ``looks``, whose every undecided gate has spent the partial looks' share
    (``figures`` by part, figure and rule, as the gates read them): the next decision on them
    is at their complete design, and buying batch by batch up to it would buy looks that
    cannot decide. By part, the requests the rest of its design holds."""
    out: dict[str, int] = {}
    for name, part in looks.items():
        last = part.last
        if last is None or last.complete:
            continue
        open_ = [r for r in results if r.part == name and r.verdict == "inconclusive"]
        spent = [looks_share_spent(figures.get((r.part, r.figure, r.rule))) for r in open_]
        if spent and all(spent):
            out[name] = last.planned - last.bought
    return out


def look_at(batch: int, batches: int, report: Any) -> str:
    """A look a gate report was decided at, as every surface names it while an audit buys
    (:func:`look_text`): "look 2 of 10"; the last look, where it read the whole design before
    the plan's last batch (the rest bought at once), "the whole design read at look 3"."""
    summary = getattr(report, "sequential", None)
    whole = summary is not None and not summary.early and not summary.failed
    return look_text(batch, batches, whole)


def rest_note(report: Any) -> tuple[str, bool]:
    """What a look says of the parts whose looks' share of the level is spent (a gate report's
    ``capped``), among those with a gate still undecided, and whether that is every such part:
    "" where none is; :func:`rest_words` where every one is; else each named ("pst-text: the
    looks' share …")."""
    capped: Mapping[str, int] = getattr(report, "capped", None) or {}
    if not capped:
        return "", False
    open_ = {r.part for r in report.results if r.verdict == "inconclusive"}
    held = {p: n for p, n in capped.items() if p in open_}
    if not held:
        return "", False
    if set(held) == open_:
        return rest_words(sum(held.values())), True
    return "; ".join(f"{p}: {rest_words(n)}" for p, n in held.items()), False


def rest_words(requests: int) -> str:
    """Why an audit bought until decided buys the rest of a design at once: "the looks' share
    of the level is spent: the next decision is at the whole design, buying the rest (1,312
    requests)"."""
    noun = "request" if requests == 1 else "requests"
    return (
        "the looks' share of the level is spent: the next decision is at the whole design, "
        f"buying the rest ({requests:,} {noun})"
    )


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
                f"The audit was looked at {_looked(self.looks)}, "
                f"and its design is not complete: {n:,} trial{'s' if n != 1 else ''} failed "
                f"({retry} asks {'it' if n == 1 else 'them'} again)"
            )
        elif self.early and self.stop is None:
            # No stop yet: still bought batch by batch, as its status ("running") says.
            head = f"The audit has bought {bought} so far, at look {self.looks} of {self.batches}"
        elif self.early:
            head = (
                f"The audit stopped early ({why}) after {bought}, at look {self.looks:,} of "
                f"{self.batches:,}"
            )
            if self.bought_now is not None:
                # Its history kept, and what holds now: its figures are read past the look.
                head += (
                    f"; it was bought on since ({self.bought_now:,} of {self.planned:,} "
                    f"requests stored now, {self.trials_now:,} trials its runs were asked); the "
                    f"gates below keep their reading at look {self.looks:,} of {self.batches:,}, "
                    "each gate's value and interval the look's; its runs' figures (in their "
                    "reports and diptych show) are read there too, each with its value on all "
                    "the trials since beside it, a value only"
                )
                intervals = "their intervals are the anytime-valid ones of its looks"
        else:
            times = "once, at" if self.looks == 1 else f"{_looked(self.looks)}, the last at"
            # Bought whole, its stop says no more than "its complete design" does.
            why = "" if self.stop == "complete" else f" ({why})"
            head = f"The audit was looked at {times} its complete design{why}"
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
            max(p.total for p in active),
            sum(p.looks[-1].bought for p in active),
            sum(p.looks[-1].planned for p in active),
        )


def _looked(looks: int) -> str:
    """How often an audit was looked at: "once", "3 times" ("1 time" reads as a count of
    several)."""
    return "once" if looks == 1 else f"{looks:,} times"

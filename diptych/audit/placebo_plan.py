"""What an identity search's placebo words take of its trials, as its plan says it.

A search measures made-up words before it scores its first proposal, and more at each held-out
test (:mod:`diptych.agent.placebo.words`); a budget smaller than those scores nothing. The agent
plans the figures (:func:`diptych.agent.placebo.trials.placebo_trials`: the audit runner
imports no agent); the plan carries them, and every front end says them in these words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from diptych.core.report.formatting import counted, fmt


@dataclass(frozen=True)
class TrialCount:
    """Trials planned and already stored, and the requests left to run: what a search's budget
    counts as its trials."""

    planned: int
    stored: int
    to_run: int

    def to_dict(self) -> dict[str, int]:
        return {"planned": self.planned, "stored": self.stored, "to_run": self.to_run}


@dataclass(frozen=True)
class PlaceboTrials:
    """The placebo words of an identity search's design, on both sides, before its first
    proposal is scored (``search``); one proposal's own search measurement after them
    (``proposal``); the held-out test's placebo words per side a proposal reaches it on
    (``heldout``); and the search's own trial budget."""

    search: TrialCount
    proposal: TrialCount
    heldout: dict[str, TrialCount]
    max_trials: int | None

    @property
    def needed(self) -> int:
        """The fewest trials that score one proposal: the placebo words and its search."""
        return self.search.to_run + self.proposal.to_run

    @property
    def over_budget(self) -> bool:
        """Whether the search's ``max_requests`` is too small to score any proposal."""
        return self.max_trials is not None and self.max_trials < self.needed

    def to_dict(self) -> dict[str, Any]:
        return {
            "search": self.search.to_dict(),
            "proposal": self.proposal.to_dict(),
            "heldout": {side: c.to_dict() for side, c in self.heldout.items()},
            "max_trials": self.max_trials,
            "needed": self.needed,
        }


def placebo_cell(placebo: PlaceboTrials | None) -> str:
    """A search's trials cell in a plan's table: at least its placebo words', where planned."""
    if placebo is None:
        return "agent decides"
    return f"≥ {fmt(placebo.search.planned)} (placebo words)"


def search_stored_cell(placebo: PlaceboTrials | None, session_trials: int | None) -> str:
    """A search's "trials stored" cell in a plan's table: every trial its session holds (its
    placebo words', its scored proposals', its held-out tests'); before its session made any,
    its placebo words' stored, which it would reuse; "—" where neither is known."""
    if session_trials:
        return fmt(session_trials)
    return fmt(placebo.search.stored) if placebo is not None else "—"


#: A finished search's requests to run: a run of its audit keeps it (its findings in the report).
NOTHING_LEFT = "nothing left"


def search_requests_cell(placebo: PlaceboTrials | None, done: bool = False) -> str:
    """A search's "requests to run" cell in a plan's table: none for one finished (``done``);
    at least its placebo words' still to run; where those are stored, what the agent decides
    (never "≥ 0", a bound that says nothing)."""
    if done:
        return NOTHING_LEFT
    if placebo is None or not placebo.search.to_run:
        return "agent decides"
    return f"≥ {fmt(placebo.search.to_run)}"


def placebo_lines(name: str, placebo: PlaceboTrials) -> list[str]:
    """What the search ``name``'s placebo words take of its trials, and, where its max_trials
    cannot score a proposal, what to do."""
    s = placebo.search
    of = f" of its {fmt(placebo.max_trials)}" if placebo.max_trials is not None else ""
    stored = f" ({fmt(s.stored)} of them stored, {fmt(s.to_run)} to run)" if s.stored else ""
    sides = {c.to_run for c in placebo.heldout.values()}
    if len(sides) == 1:
        held = f"{fmt(sides.pop())} more per side tested"
    else:
        held = ", ".join(f"{fmt(c.to_run)} more on the {side} side"
                         for side, c in placebo.heldout.items())  # fmt: skip
    lines = [
        f"search {name}: its placebo words take {counted(s.planned, 'trial')}{of}{stored} "
        f"before a proposal is scored; its held-out test's take {held}"
    ]
    if placebo.over_budget:
        lines.append(
            f"search {name}: max_requests {fmt(placebo.max_trials)} scores no proposal (placebo "
            f"words {fmt(s.to_run)}, a proposal's search {fmt(placebo.proposal.to_run)}); "
            f"raise max_requests to at least {fmt(placebo.needed)}"
        )
    return lines

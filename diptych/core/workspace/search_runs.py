"""How many runs and trials an agent search holds: the one count that ``diptych runs`` (its
table and ``--json``), ``diptych show SESSION``, the Runs screen's session row and the line under
it, and an audit plan's search row all read.

A search's runs are those it made (recorded as its own while it ran: :mod:`.sessions`) and those
it found stored by an earlier session or by the user and read again (scored proposals, placebo
words, held-out tests), which its saved findings name. Each run is counted once, and each trial
once with it: a trial belongs to one run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from diptych.core.workspace.records import RunSummary

#: The outcomes a run's trials are counted by (:attr:`RunSummary.counts`).
OUTCOMES = ("done", "refused", "failed", "pending")


@dataclass(frozen=True)
class SearchRuns:
    """An agent search's runs, the ones it made first, then the ones it reused; each once."""

    session: str
    runs: tuple[RunSummary, ...]
    #: How many of :attr:`runs` (the first ones) the search made itself.
    made: int

    @property
    def reused(self) -> int:
        """Runs stored before the search (by another session, or the user) that it read."""
        return len(self.runs) - self.made

    @property
    def trials(self) -> int:
        return sum(r.run.n_trials for r in self.runs)

    def total(self, outcome: str) -> int:
        """Its runs' trials with ``outcome`` (one of :data:`OUTCOMES`)."""
        return sum(r.counts.get(outcome, 0) for r in self.runs)

    @property
    def counts(self) -> dict[str, int]:
        return {outcome: self.total(outcome) for outcome in OUTCOMES}

    @property
    def finished(self) -> int:
        """Trials with an outcome, as a run's progress counts them (answered or refused: a
        failed trial is asked again on resume)."""
        return self.total("done") + self.total("refused")

    @property
    def flagged(self) -> int:
        return sum(r.flagged for r in self.runs)


def search_runs(
    summaries: Iterable[RunSummary], saved: Mapping[str, Iterable[str]]
) -> dict[str, SearchRuns]:
    """Every agent search of ``summaries`` (the workspace's runs, as ``Runs.list`` gives them)
    with its runs: those recorded as its own, then those its saved findings name (``saved``:
    session id → run ids) that it did not make; a run id no longer stored is left out."""
    listed = list(summaries)
    made: dict[str, list[RunSummary]] = {}
    for summary in listed:
        if summary.session is not None:
            made.setdefault(summary.session, []).append(summary)
    out: dict[str, SearchRuns] = {}
    for session in dict.fromkeys([*made, *saved]):
        own = made.get(session, [])
        mine = {s.run.id for s in own}
        named = dict.fromkeys(str(r) for r in saved.get(session, ()))
        # In the listing's order (oldest first), as the runs it made are.
        read = [s for s in listed if s.run.id in named and s.run.id not in mine]
        if own or read:
            out[session] = SearchRuns(session, (*own, *read), len(own))
    return out


def saved_runs(saved: Iterable[Mapping[str, object]]) -> dict[str, list[str]]:
    """The run ids each saved session's findings name, by session id."""
    out: dict[str, list[str]] = {}
    for record in saved:
        session, runs = record.get("session"), record.get("runs")
        if isinstance(session, str) and isinstance(runs, list | tuple):
            out[session] = [str(r) for r in runs]
    return out

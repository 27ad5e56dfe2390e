"""Which runs a session made: an agent session (or an audit's search) starts many small runs of
its own, and a listing shows them under their session rather than among the user's runs.

A run is recorded as its session's when the session starts it (:meth:`Runs.made_by` around
the session's work); a run the session only found again by its fingerprint keeps its place.
The record is one preferences entry per run, ``run_session:<run id>`` → the session id.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from diptych.core.engine import NullReporter, Reporter
from diptych.core.errors import UsageError
from diptych.core.report.formatting import tally
from diptych.core.store import RunRecord, Store
from diptych.core.workspace.records import RunSummary
from diptych.core.workspace.search_runs import SearchRuns

#: The preferences key of a run's session is this prefix and the run id.
RUN_SESSION_KEY = "run_session:"


@dataclass(frozen=True)
class MakingSession:
    """The session whose runs are being recorded, and since when (a run created earlier is
    another's)."""

    session: str
    since: float


#: An audit search's session: "audit-<audit name>-<its 10-digit hash>-<part>".
_AUDIT_SESSION = re.compile(r"audit-.+-([0-9a-f]{10})-([^-].*)")


def session_label(session: str) -> str:
    """A session as a listing's row names it, whole at 60 columns as a run's short id is: an
    audit search's by its part and the start of its audit's hash ("identities 5c3667"), another
    by its id; the listing names it in full under the table."""
    found = _AUDIT_SESSION.fullmatch(session)
    return f"{found.group(2)} {found.group(1)[:6]}" if found else session


def session_status(statuses: Iterable[str]) -> str:
    """A session's status from its runs' ("complete"; "16 complete, 1 running" while they
    differ, the most runs first): the one wording of ``diptych runs`` and the Runs screen."""
    counts = Counter(statuses)
    if len(counts) == 1:
        return next(iter(counts))
    return ", ".join(f"{n} {status}" for status, n in counts.most_common())


def sessions_of_runs(store: Store) -> dict[str, str]:
    """The session of every run a session made, by run id."""
    return {
        key.removeprefix(RUN_SESSION_KEY): str(value)
        for key, value in store.preferences_under(RUN_SESSION_KEY).items()
        if isinstance(value, str)
    }


def record_run(store: Store, making: MakingSession, run: RunRecord) -> None:
    """Record ``run`` as made by ``making.session`` when the session created it."""
    key = RUN_SESSION_KEY + run.id
    if run.created_at >= making.since and store.preference(key) is None:
        store.set_preference(key, making.session)


#: Who hears of a session's runs started with no reporter of their own (an agent search's):
#: set by :func:`watching` around the search, in its thread.
_WATCHER: ContextVar[Reporter | None] = ContextVar("session_watcher", default=None)


@contextmanager
def watching(reporter: Reporter | None, part: str) -> Iterator[None]:
    """Inside this block (this thread, and the event loops it starts) each run a session
    finishes is told to ``reporter`` as one note, "search identities: run pst-text-… finished:
    48 done (3 runs so far)": an audit's search, which starts many small runs, is seen to work."""
    token = _WATCHER.set(RunLines(reporter, part) if reporter is not None else None)
    try:
        yield
    finally:
        _WATCHER.reset(token)


def session_watcher() -> Reporter | None:
    """The reporter :func:`watching` set for this thread's session runs, if any."""
    return _WATCHER.get()


class RunLines(NullReporter):
    """A reporter that tells ``inner`` one note per run finished, and nothing of its trials."""

    def __init__(self, inner: Reporter, part: str) -> None:
        self._inner, self._part, self._runs = inner, part, 0

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None:
        self._runs += 1
        so_far = f"{self._runs:,} run{'s' if self._runs != 1 else ''} so far"
        told = tally(counts) or "no trials"
        self._inner.note(f"search {self._part}: run {run.id} {run.status}: {told} ({so_far})")


class SessionReporter:
    """The reporter a run started inside a session reports to: records the run as the
    session's when it starts, and passes every event on."""

    def __init__(self, inner: Reporter | None, store: Store, making: MakingSession) -> None:
        self._inner: Reporter = inner or NullReporter()
        self._store = store
        self._making = making

    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None:
        record_run(self._store, self._making, run)
        self._inner.run_started(run, total, cached, to_run)

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        self._inner.trial_finished(model_id, status, error)

    def note(self, text: str) -> None:
        self._inner.note(text)

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None:
        self._inner.run_finished(run, counts)

    def __getattr__(self, name: str) -> Any:
        # What a reporter may have besides the protocol (``warn``) is the inner one's.
        return getattr(self._inner, name)


def making(session: str) -> MakingSession:
    # A run's ``created_at`` is the store's clock, seconds since the epoch, as this is.
    return MakingSession(session, time.time())


def session_names(session: str) -> tuple[str, ...]:
    """Every name of ``session`` a listing prints: its id, its row's label ("identities d96780")
    and, for an audit's search, the start of its audit's hash alone ("d96780") and that hash
    whole ("d9678019c4", as the audit's id prints it), so that a longer start of it names the
    session too."""
    label = session_label(session)
    found = _AUDIT_SESSION.fullmatch(session)
    whole = (found.group(1),) if found else ()
    return tuple(dict.fromkeys((session, label, *label.split(" ")[1:], *whole)))


def sessions_named(sessions: Iterable[str], ref: str) -> list[str]:
    """The sessions ``ref`` stands for: the one it names whole (:func:`session_names`), else
    every one with a name that starts with it."""
    known = list(dict.fromkeys(sessions))
    exact = [s for s in known if ref in session_names(s)]
    if exact:
        return exact
    return [s for s in known if any(n.startswith(ref) for n in session_names(s))] if ref else []


def several_sessions(ref: str, named: Iterable[str]) -> UsageError:
    """The one line refusing ``ref`` where it starts the ids of several sessions, as a start
    of several runs' ids is refused."""
    listed = list(named)
    return UsageError(
        f"'{ref}' names {len(listed)} agent sessions ({', '.join(listed)}); give more of the id"
    )


@dataclass(frozen=True)
class SessionDetail:
    """An agent session as ``diptych show`` shows it: its runs (those it made and those it
    reused, counted as every listing counts them: :class:`SearchRuns`) and, once it ended, what
    it saved (:meth:`~diptych.core.workspace.findings.Findings.save`; None before)."""

    session: str
    search: SearchRuns
    saved: dict[str, Any] | None
    #: The settings it started with, where it is known from its start alone (no run yet).
    started: dict[str, Any] | None = None

    @property
    def runs(self) -> list[RunSummary]:
        return list(self.search.runs)

    @property
    def audit(self) -> tuple[str, str] | None:
        """The audit whose search the session is and the search's part ("smollm2-offline-
        d9678019c4", "identities"); None for a session of its own."""
        found = _AUDIT_SESSION.fullmatch(self.session)
        if found is None:
            return None
        audit = self.session.removeprefix("audit-").removesuffix(f"-{found.group(2)}")
        return audit, found.group(2)

    @property
    def kind(self) -> str:
        """What the session searches, in words ("identity search", "mitigation search"), and
        the audit whose search it is."""
        kind = str((self.saved or {}).get("kind") or "")
        if not kind and self.started is not None:
            kind = "mitigation" if "baseline" in self.started else "identities"
        if self.audit is not None:
            audit, part = self.audit
            return f"identity search, part {part} of audit {audit}"
        return {"identities": "identity search", "mitigation": "mitigation search"}.get(
            kind, "agent session"
        )

    @property
    def status(self) -> str:
        """Ended (its findings saved, with why it stopped), running (a run of it is), or
        stopped before its end."""
        if self.saved is not None:
            why = self.saved.get("stop_reason")
            return f"ended: {why}" if why else "ended"
        if any(r.run.status == "running" for r in self.runs):
            return "running"
        return "not ended: stopped before its end, or its process has not saved it yet"

    @property
    def tally(self) -> str:
        """Its proposals and findings as its end saved them ("" before it ended)."""
        if self.saved is None:
            return ""
        decision = self.saved.get("decision") or {}
        rejected = int(self.saved.get("rejected") or 0)
        text = str(decision.get("text") or f"{len(self.saved.get('findings') or []):,} proposals")
        return text + (f"; {rejected:,} rejected" if rejected else "")

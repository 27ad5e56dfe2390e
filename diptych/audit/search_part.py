"""An audit's agent search part: run in a worker thread, stopped with the audit.

A search drives event loops of its own (its probe runs', its agent's calls'), which cannot run
inside the audit's, so it runs in a worker thread; the audit's Ctrl-C (or the terminal app's
stop) cancels the audit's loop only. The search is handed a :class:`threading.Event` that the
cancel sets: its probe runs and agent calls await their work against it, so it stops at its
next trial, keeping what finished, and the audit stops once it has.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from dataclasses import replace
from typing import Any, Protocol

from diptych.audit.plan import Part, PartPlan
from diptych.audit.spend import SEARCHED_AT
from diptych.core.audit import PartRecord
from diptych.core.workspace import Reporter, Workspace
from diptych.core.workspace.sessions import watching


class SearchRunner(Protocol):
    """Runs one agent search part: given the workspace, the part, the audit's models by name
    as (plugin, params), the session id, the money left (None: no limit), the baseline part's
    run id (mitigation searches) and the event set when the user stops the audit (the search
    then stops at its next trial or agent call), returns a summary with ``spent`` (USD) and
    ``stop_reason``."""

    def __call__(
        self,
        ws: Workspace,
        part: Part,
        models: dict[str, tuple[str, dict[str, Any]]],
        session: str,
        remaining: float | None,
        baseline_run: str | None,
        stop: threading.Event | None = None,
    ) -> dict[str, Any]: ...


def bounded(part: Part, max_requests: int | None, asked: int) -> Part:
    """The search ``part`` under the requests the audit's ``budget.max_requests`` (None: no
    limit) leaves after the ``asked`` of the parts before it: it runs with the smaller of that
    and its own ``max_requests``, both counting requests bought."""
    search = part.search
    if max_requests is None or search is None:
        return part
    left = max(max_requests - asked, 0)
    own = left if search.max_requests is None else min(search.max_requests, left)
    return replace(part, search=search.model_copy(update={"max_requests": own}))


def trials_asked(planned: PartPlan, outcome: PartRecord) -> int:
    """The requests a part run now made, as ``budget.max_requests`` counts them: a run's
    planned to run, a search's trials as it counted them."""
    if planned.part.kind == "search":
        return int(outcome.detail.get("trials") or 0)
    return planned.estimate.to_run if planned.estimate is not None else 0


async def run_search_part(
    ws: Workspace,
    searches: SearchRunner,
    part: Part,
    models: dict[str, tuple[str, dict[str, Any]]],
    session: str,
    remaining: float | None,
    baseline: str | None,
    reporter: Reporter | None = None,
) -> PartRecord:
    """The search ``part`` run to its end (its record), or stopped with the audit: a cancel
    sets the search's stop and waits for the search to stop (at its next trial or agent call)
    before it goes on, so nothing is bought after it. ``reporter`` hears one note per run
    the search finishes (:func:`~diptych.core.workspace.sessions.watching`)."""
    stop = threading.Event()
    searching = asyncio.ensure_future(
        asyncio.to_thread(_search_apart, ws, searches, part, models, session, remaining, baseline,
                          stop, reporter)
    )  # fmt: skip
    try:
        summary = await asyncio.shield(searching)
    except asyncio.CancelledError:
        stop.set()
        # Whatever the search stopped with (its own "stopped"), the audit's stop is what
        # goes on up.
        with contextlib.suppress(BaseException):
            await searching
        raise
    # When it ended: its agent calls are this command's (:func:`~diptych.audit.spend.answered_now`).
    summary = {**summary, SEARCHED_AT: time.time()}
    stopped = str(summary.get("stop_reason", ""))
    state = "over-budget" if "budget" in stopped and remaining == 0 else "complete"
    return PartRecord(
        part.position, part.name, part.kind, None, state, float(summary.get("spent") or 0.0),
        summary,
    )  # fmt: skip


def _search_apart(
    ws: Workspace,
    searches: SearchRunner,
    part: Part,
    models: dict[str, tuple[str, dict[str, Any]]],
    session: str,
    remaining: float | None,
    baseline: str | None,
    stop: threading.Event,
    reporter: Reporter | None = None,
) -> dict[str, Any]:
    """Run one agent search in the calling (worker) thread on a Workspace of its own: a store's
    SQLite connection serves only the thread that opened it, so the search opens the same
    workspace again."""
    with (
        Workspace.open(ws.path, create=False, chroma_url=ws.chroma_url) as own,
        watching(reporter, part.name),
    ):
        return searches(own, part, models, session, remaining, baseline, stop)

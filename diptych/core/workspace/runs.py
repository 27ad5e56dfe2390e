"""``Workspace.runs``: the stored runs — list them, show one, who holds it, its trials as rows —
and running probes: plan, fingerprint, run, resume and finish a run."""

from __future__ import annotations

import asyncio
import builtins
import os
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from diptych.core.audit.record import list_audits
from diptych.core.audit.run_status import (
    decided_said,
    listed_status,
    looks_by_run,
    status_said,
)
from diptych.core.audit.stopped import stopped_look
from diptych.core.builds import builds_by_model
from diptych.core.engine import (
    Estimate,
    ModelSlot,
    Reporter,
    RunOptions,
    bind_probe,
    estimate,
    finish_run,
    probe_and_models_of,
    run_async,
    run_fingerprint,
    settled,
)
from diptych.core.errors import RunNotFoundError
from diptych.core.labels import TONE
from diptych.core.plugins import get_probe
from diptych.core.probe import Probe
from diptych.core.run_names import short_names
from diptych.core.runview import RunView
from diptych.core.store import Lease, RunRecord
from diptych.core.workspace import export as _export
from diptych.core.workspace.base import ModelSpec, Namespace, Params, ProbeSpec
from diptych.core.workspace.findings import Findings
from diptych.core.workspace.look_trials import look_keys, lost_at_look
from diptych.core.workspace.plugins import build_model, build_probe
from diptych.core.workspace.precision import precision_plan
from diptych.core.workspace.records import Failure, RunDetail, RunSummary
from diptych.core.workspace.search_runs import SearchRuns, saved_runs, search_runs
from diptych.core.workspace.sessions import (
    MakingSession,
    SessionDetail,
    SessionReporter,
    making,
    session_watcher,
    sessions_named,
    sessions_of_runs,
    several_sessions,
)


class Runs(Namespace):
    """The workspace's runs: what is stored, who holds a run, its trials as rows; and running a
    probe on models — what it would do, running it, continuing or settling a stopped one.

    Every method that takes a ``run_id`` accepts a unique prefix of it. Probes and models are
    named (with parameters as a mapping or as ``key=value`` strings) or given as instances."""

    #: The session whose runs are being recorded (:meth:`made_by`), if any.
    _making: MakingSession | None = None

    # --- reading ------------------------------------------------------------------------------

    def list(self) -> builtins.list[RunSummary]:
        """Every run of the workspace, oldest first, with its outcome counts and flags, and
        the session that made it (an agent session's runs; None for the user's own)."""
        store = self._store
        sessions = sessions_of_runs(store)
        looks = looks_by_run(list_audits(store))
        out: builtins.list[RunSummary] = []
        runs = store.list_runs()
        names = short_names(runs)
        for run in runs:
            shown = self._shown(run)
            out.append(
                RunSummary(
                    shown,
                    store.status_counts(run.id),
                    store.flagged_subject_count(run.id),
                    sessions.get(run.id),
                    status_said(store, shown, looks.get(run.id)),
                    names[run.id],
                    listed_status(store, shown, looks.get(run.id)),
                )
            )
        return out

    def of_session(self, session: str) -> builtins.list[str]:
        """The ids of the runs ``session`` (an agent session, an audit's search) made."""
        return [run for run, made in sessions_of_runs(self._store).items() if made == session]

    def searches(self, summaries: builtins.list[RunSummary] | None = None) -> dict[str, SearchRuns]:
        """Every agent search with the runs it made and those it reused, each once: the one
        count of a search's runs and trials every listing reads (:mod:`.search_runs`);
        ``summaries`` are :meth:`list`'s, where the caller has them already."""
        listed = self.list() if summaries is None else summaries
        return search_runs(listed, saved_runs(Findings(self._kernel).list()))

    def session_trials(self, session: str) -> int:
        """The trials of ``session``'s runs (those it made and those it reused) with an outcome
        (done or refused, as a plan counts a run's stored ones): 0 for a session with none."""
        found = self.searches().get(session)
        return found.finished if found is not None else 0

    def status_text(self, run_id: str) -> str:
        """The run's status in words, as listings show it: a run a sequential audit stopped
        once its gates were decided says at which look and what it saved ("decided at look 1
        of 10: 164 of 1,640 requests, 1,476 saved"), and what it holds where it was bought on
        since; see :mod:`diptych.core.audit.run_status`."""
        run = self._shown(self.get(run_id))
        return status_said(self._store, run, looks_by_run(list_audits(self._store)).get(run.id))

    def decided_text(self, run_id: str) -> str:
        """Where a run's gates decided it, in :meth:`status_text`'s words, whatever its status
        now (:func:`~diptych.core.audit.run_status.decided_said`): what a question before
        buying its rest names it by."""
        run = self._shown(self.get(run_id))
        return decided_said(self._store, run, looks_by_run(list_audits(self._store)).get(run.id))

    def listed_status(self, run_id: str) -> str:
        """The run's status in short, as a listing's status column says it: "decided, bought on"
        for a decided run bought on since (:func:`~diptych.core.audit.run_status.listed_status`)."""
        run = self._shown(self.get(run_id))
        looks = looks_by_run(list_audits(self._store)).get(run.id)
        return listed_status(self._store, run, looks)

    def settle(self, run_id: str, status: str) -> RunRecord:
        """Say why a ``partial`` run's untried trials stay unbought once the sequential audit
        that bought it batch by batch stops: ``decided`` (its gates were decided on the part
        bought), ``over-budget`` or ``interrupted`` (a model stopped answering, or the audit was
        stopped). An ``interrupted`` run whose audit's gates are decided on what is stored is
        ``decided`` again (a resume of the decided run was stopped: rerunning the audit says
        so). A run in any other status is left as it is; a resume buys the rest."""
        if status not in ("decided", "over-budget", "interrupted"):
            raise ValueError(f"a partial run is settled as decided, over-budget or interrupted, "
                             f"not {status!r}")  # fmt: skip
        self._kernel.writing("settle a run")
        run = self.get(run_id)
        if run.status == "partial" or (run.status == "interrupted" and status == "decided"):
            self._store.set_run_status(run.id, status)
        return self._store.get_run(run.id)

    @contextmanager
    def made_by(self, session: str) -> Iterator[None]:
        """Inside this block every run started through :meth:`run` is recorded as made by
        ``session`` (an agent session), so listings show it under that session. A run the
        block only finds again (by its fingerprint, created before) keeps its place."""
        previous = self._making
        self._making = making(session)
        try:
            yield
        finally:
            self._making = previous

    def _shown(self, run: RunRecord) -> RunRecord:
        """The run as a reader should see it: ``running`` with no live process holding its
        lease (killed, or its machine gone) is ``stale``, ready to be taken over by a resume;
        one stopped short whose trials all have an outcome since is finished
        (:func:`~diptych.core.engine.settled`)."""
        if run.status == "running" and self._store.live_lease(run.id) is None:
            return replace(run, status="stale")
        return settled(self._store, run)

    def session(self, ref: str) -> SessionDetail:
        """The agent session ``ref`` names — its id, the label a listing gives its row
        ("identities d96780"), or a unique start of either (:func:`sessions_named`) — with its
        runs as :meth:`list` lists them and what it saved when it ended.

        Raises :class:`RunNotFoundError` when none does and :class:`UsageError` listing them
        when several do."""
        runs = self.list()
        findings = Findings(self._kernel)
        saved = [str(s.get("session")) for s in findings.list() if s.get("session")]
        known = [*(r.session for r in runs if r.session is not None), *saved]
        named = sessions_named(known, ref)
        if not named:
            raise RunNotFoundError(
                f"no run or agent session '{ref}' in {self._kernel.path}; 'diptych runs' "
                "lists them there"
            )
        if len(named) > 1:
            raise several_sessions(ref, named)
        (session,) = named
        found = search_runs(runs, saved_runs(findings.list())).get(session)
        return SessionDetail(session, found or SearchRuns(session, (), 0), findings.get(session))

    def get(self, run_id: str) -> RunRecord:
        """The run whose id is ``run_id`` or, failing that, starts with it.

        Raises :class:`RunNotFoundError` when none does and :class:`UsageError` listing them
        when several do."""
        return self._kernel.get_run(run_id)

    def view(self, run_id: str) -> RunView:
        """A read-only view of the run's trials, results and labels."""
        return self._kernel.view(run_id)

    def show(self, run_id: str) -> RunDetail:
        """One run in full: its record, outcomes overall and per model, labels per annotator,
        and each refused or failed trial with its message."""
        view = self.view(run_id)
        per_model: dict[str, Counter[str]] = {m: Counter() for m in view.model_ids()}
        failures: builtins.list[Failure] = []
        for trial in view.trials:
            result = view.results.get(trial.key)
            status = result.status if result is not None else "pending"
            per_model.setdefault(trial.model_id, Counter())[status] += 1
            if result is not None and status in ("refused", "failed"):
                failures.append(Failure(trial.idx, trial.model_id, status, result.error))
        labels = Counter(lab.annotator for lab in view.labels())
        tones = Counter(lab.annotator for lab in view.labels(dimension=TONE))
        # Bought on since its stop: its figures read the look's trials, so do its labels' counts.
        keys = look_keys(self._store, view.id)
        looked = {t.idx for t in view.trials if t.key in keys} if keys is not None else set()
        at_look = Counter(lab.annotator for lab in view.labels() if lab.trial_idx in looked)
        shown = self._shown(view.run)
        return RunDetail(
            run=shown,
            counts=view.status_counts(),
            per_model={m: dict(c) for m, c in per_model.items()},
            labels=dict(labels),
            failures=failures,
            builds=builds_by_model(view.results.values()),
            status_text=status_said(
                self._store, shown, looks_by_run(list_audits(self._store)).get(shown.id)
            ),
            tone_labels=dict(tones),
            requests=len({t.key for t in view.trials}),
            look=stopped_look(self._store, view.id) if keys is not None else "",
            labels_at_look=dict(at_look),
        )

    def builds(self, run_id: str) -> dict[str, builtins.list[str]]:
        """Per model id, the backend builds the run's results came from, first used first
        (more than one: the run mixes builds; see :mod:`diptych.core.builds`)."""
        return builds_by_model(self.view(run_id).results.values())

    def counts(self, run_id: str) -> dict[str, int]:
        """The run's trials per outcome: ``done``, ``refused``, ``failed``, ``pending``."""
        return self._store.status_counts(self.get(run_id).id)

    def lease(self, run_id: str) -> Lease | None:
        """Who is executing the run now (process, host, since when), or None."""
        return self._store.live_lease(self.get(run_id).id)

    def probe(self, run_id: str) -> Probe:
        """The run's probe, rebuilt from the parameters it recorded."""
        run = self.get(run_id)
        return get_probe(run.probe, run.params)

    def subjects(self, run_id: str) -> builtins.list[dict[str, Any]]:
        """Every person of the run in plan order, with its trial and the trial's outcome (see
        :meth:`Store.run_subjects`)."""
        return self._store.run_subjects(self.get(run_id).id)

    def export(
        self,
        run_id: str | Sequence[str],
        fmt: _export.ExportFormat,
        out: str | os.PathLike[str] | TextIO,
    ) -> int:
        """Write every trial with its result and labels to ``out`` (a path or an open text
        file) as JSON lines (``jsonl``) or CSV; return the number of rows. Several runs (an
        agent session's) are written one after another, each row naming its run."""
        ids = [run_id] if isinstance(run_id, str) else builtins.list(run_id)
        rows = [row for one in ids for row in _export.trial_rows(self.view(one))]
        if isinstance(out, str | os.PathLike):
            with Path(out).open("w", newline="", encoding="utf-8") as handle:
                return _export.write_rows(rows, fmt, handle)
        return _export.write_rows(rows, fmt, out)

    # --- running ------------------------------------------------------------------------------

    def plan(
        self,
        probe: ProbeSpec,
        models: Sequence[ModelSpec],
        *,
        params: Params | None = None,
        options: RunOptions | None = None,
        precision: bool = False,
        target_width: float | None = None,
    ) -> Estimate:
        """What running ``probe`` on ``models`` with ``options`` would do: trials planned,
        already stored, to run (stored paid failures within ``options.paid_retries``), and the
        estimated price of the rest. Stores nothing and calls no model.

        With ``precision`` (or a ``target_width``) it also states the expected half-width of
        each headline figure's interval, warns of designs too small to decide anything and,
        for ``target_width``, names the smallest design expected to reach that half-width
        (:mod:`diptych.core.workspace.precision`)."""
        built = build_probe(probe, params)
        resolved = [build_model(m) for m in models]
        est = estimate(
            self._store,
            built,
            resolved,
            paid_retries=(options or RunOptions()).paid_retries,
        )
        if not precision and target_width is None:
            return est
        planned = precision_plan(
            self._store,
            bind_probe(built, self._store),
            [ModelSlot.of(m).ref.model_id for m in resolved],
            target_width=target_width,
            chroma_url=self._kernel.chroma_url,
        )
        return replace(est, precision=planned)

    def bound(self, probe: ProbeSpec, *, params: Params | None = None) -> Probe:
        """``probe`` bound to this workspace (:meth:`~diptych.core.probe.Probe.bind`): what it
        would plan here, e.g. the most biased identities of the earlier run it names."""
        return bind_probe(build_probe(probe, params), self._store)

    def fingerprint(
        self, probe: ProbeSpec, models: Sequence[ModelSpec], *, params: Params | None = None
    ) -> str:
        """The identity of the run ``probe`` on ``models`` would be (its record's
        ``fingerprint``): equal for two requests that would run the same trials."""
        bound = bind_probe(build_probe(probe, params), self._store)
        return run_fingerprint(bound, [ModelSlot.of(build_model(m)).ref for m in models])

    async def run(
        self,
        probe: ProbeSpec,
        models: Sequence[ModelSpec],
        *,
        params: Params | None = None,
        options: RunOptions | None = None,
        reporter: Reporter | None = None,
    ) -> RunRecord:
        """Run ``probe`` on ``models`` and return the run's record.

        Running the same probe, parameters and models again continues the stored run (unless
        ``options.new``); every trial with a stored result is skipped, whichever run stored it.
        Cancelling the task that awaits this stops the run: calls in flight are abandoned, what
        finished stays stored, and the run is stored as ``interrupted``, ready to resume."""
        self._kernel.writing("run a probe")
        built = build_probe(probe, params)
        resolved = [build_model(m) for m in models]
        if self._making is not None:
            inner = reporter if reporter is not None else session_watcher()
            reporter = SessionReporter(inner, self._store, self._making)
        return await run_async(self._store, built, resolved, options=options, reporter=reporter)

    def run_sync(
        self,
        probe: ProbeSpec,
        models: Sequence[ModelSpec],
        *,
        params: Params | None = None,
        options: RunOptions | None = None,
        reporter: Reporter | None = None,
    ) -> RunRecord:
        """:meth:`run` on an event loop of its own (Ctrl-C stops the run as a cancel does)."""
        return asyncio.run(
            self.run(probe, models, params=params, options=options, reporter=reporter)
        )

    async def resume(
        self,
        run_id: str,
        *,
        options: RunOptions | None = None,
        reporter: Reporter | None = None,
    ) -> RunRecord:
        """Finish a stopped run with the probe and models it recorded, without redoing any
        trial that has a stored result."""
        self._kernel.writing("resume a run")
        run = self.get(run_id)
        probe, models = probe_and_models_of(run)
        options = replace(options or RunOptions(), run_id=run.id, new=False)
        return await run_async(self._store, probe, models, options=options, reporter=reporter)

    def lost_answers(self, run_id: str) -> builtins.list[str]:
        """The requests a decided run's last look read whose stored answer is gone since
        (:func:`~diptych.core.workspace.look_trials.lost_at_look`); empty for any other run."""
        return lost_at_look(self._store, self.get(run_id).id)

    def ask_lost(
        self,
        run_id: str,
        *,
        options: RunOptions | None = None,
        reporter: Reporter | None = None,
    ) -> builtins.list[str]:
        """Ask again, and only, the answers of :meth:`lost_answers`: the look's figures rest on
        every trial it says again, nothing stored is bought twice and the rest of the design
        stays unbought, so the run is still decided. The requests asked (none: nothing runs)."""
        self._kernel.writing("resume a run")
        run = self.get(run_id)
        lost = lost_at_look(self._store, run.id)
        if not lost:
            return []
        probe, models = probe_and_models_of(run)
        options = replace(
            options or RunOptions(), run_id=run.id, new=False, only_keys=frozenset(lost)
        )
        record = asyncio.run(
            run_async(self._store, probe, models, options=options, reporter=reporter)
        )
        # Every lost answer stored again: the rest was left by the gates' decision, as before.
        if record.status == "partial":
            self._store.set_run_status(run.id, "decided")
        return lost

    def plan_resume(self, run_id: str, *, options: RunOptions | None = None) -> Estimate:
        """What :meth:`resume` would buy: the run's trials, those already stored, the requests
        to run and their estimated price (a decided run's rest, asked before it is bought).
        Stores nothing and calls no model."""
        run = self.get(run_id)
        probe, models = probe_and_models_of(run)
        paid_retries = (options or RunOptions()).paid_retries
        return estimate(self._store, probe, models, paid_retries=paid_retries)

    def resume_sync(
        self,
        run_id: str,
        *,
        options: RunOptions | None = None,
        reporter: Reporter | None = None,
    ) -> RunRecord:
        """:meth:`resume` on an event loop of its own."""
        return asyncio.run(self.resume(run_id, options=options, reporter=reporter))

    def finish(self, run_id: str) -> RunRecord:
        """Bring a stopped run's status, self labels and review flags in line with what is
        stored (a stop that landed while the engine was cleaning up leaves it ``running``).
        Safe on any run that is not executing; returns its record."""
        self._kernel.writing("finish a run")
        return finish_run(self._store, self.get(run_id).id)

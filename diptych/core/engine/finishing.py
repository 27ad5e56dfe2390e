"""Finishing a run: what the engine derives from its stored results once execution stops.

After every execution, whether it finished, ran out of budget, was cancelled or raised, a run's
stored status, the labels its probe reads off the models' own answers ("self" labels) and its
review flags are brought in line with the results that made it to the store. Each step reads
only the store and is idempotent, so a run stopped before its clean-up ended (a kill, a second
cancel) is finished later by :func:`finish_run` with the same outcome.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from diptych.core.capabilities import Capability
from diptych.core.engine.pacing import Budget
from diptych.core.engine.planning import bind_probe
from diptych.core.errors import UnknownPluginError
from diptych.core.labels import Label
from diptych.core.plugins import get_probe
from diptych.core.probe import Probe
from diptych.core.runview import RunView
from diptych.core.store import RunRecord, Store
from diptych.core.trials import Subject, TrialSpec


def derive_self_labels(store: Store, run: RunRecord, probe: Probe) -> int:
    """Store the labels a probe reads off its models' own answers, for every finished trial
    that has none yet. Idempotent, so a resumed run catches up on what a kill skipped."""
    rows = store.subjects_missing_label(run.id, probe.self_annotator)
    if not rows:
        return 0
    # A probe labels a trial's subjects together (a story names both people), so each trial
    # is rebuilt with all its subjects, in plan order, and only the missing labels are kept.
    missing: dict[int, dict[str, int]] = {}
    for row in rows:
        missing.setdefault(row["trial_idx"], {})[row["position"]] = row["subject_id"]
    subjects = store.subjects_by_trial(run.id)
    trials = {t.idx: t for t in store.trials(run.id) if t.idx in missing}
    results = store.run_results(run.id)
    out: list[tuple[int, str, Label]] = []
    for idx, wanted in missing.items():
        trial = trials[idx]
        spec = TrialSpec(
            Capability(trial.capability),
            trial.payload,
            sample=trial.sample,
            meta=trial.meta,
            subjects=tuple(Subject(pos, meta) for pos, meta in subjects[idx]),
        )
        output = results[trial.key].output or {}
        for label in probe.self_labels(spec, output, trial.key):
            if label.position in wanted:
                out.append((wanted[label.position], probe.self_annotator, label))
    return store.save_annotations(out)


def refresh_flags(store: Store, run_id: str, probe: Probe) -> int:
    """Recompute and store the probe's review flags for the run."""
    flags = probe.review_flags(RunView(store, store.get_run(run_id)))
    return store.replace_flags(
        run_id, ((f.trial_idx, f.position, f.reason, f.detail) for f in flags)
    )


#: Statuses of a run whose trials left to run were left on purpose: the budget ran out
#: (``over-budget``), the share of its design it was asked for is bought and the rest waits
#: for a sequential audit's next look (``partial``), or that audit's gates were decided on
#: the part bought, so the rest is not needed (``decided``). Each says why the trials are left,
#: so finishing the run again without a new reason keeps it; a resume buys the rest.
LEFT_ON_PURPOSE = ("over-budget", "partial", "decided")


def final_status(
    counts: dict[str, int], budget: Budget | None = None, *, batch_bought: bool = False
) -> str:
    """A stopped run's status from its outcome counts: ``complete``, ``incomplete`` (some
    trials failed), ``over-budget``, ``partial`` (``batch_bought``: every trial this execution
    was asked for has an outcome, the rest of the design was not asked for) or
    ``interrupted`` (trials left that were asked for: a user's stop or a fault)."""
    if counts["pending"]:
        if budget is not None and budget.exhausted:
            return "over-budget"
        return "partial" if batch_bought else "interrupted"
    return "incomplete" if counts["failed"] else "complete"


def finish_run(
    store: Store,
    run_id: str,
    *,
    probe: Probe | None = None,
    budget: Budget | None = None,
    asked: Collection[str] | None = None,
    started: tuple[str, int] | None = None,
) -> RunRecord:
    """Bring a stopped run's status, self labels and review flags in line with what is stored,
    and return its record.

    ``probe`` is the run's probe, bound to this store, where the caller holds it (else it is
    rebuilt from the run's record and bound); ``budget`` is the spending guard of the execution
    that stopped, if any; ``asked`` the keys of the trials that execution was asked to buy
    where it was asked for a share of the design only (a batch of a sequential audit). Without
    either, a run stored with trials left on purpose (:data:`LEFT_ON_PURPOSE`) keeps that
    status: nothing since says it stopped for another reason. ``started`` is the status and the
    trials left of a run at the start of the execution that stopped: a run left on purpose
    that is resumed and stopped before any new trial has an outcome keeps that status too (a
    decided run whose resume was cancelled at once is still decided; one that bought more is
    ``interrupted``). Safe to call on any run that is not executing.
    """
    run = store.get_run(run_id)
    bound = probe if probe is not None else bind_probe(get_probe(run.probe, run.params), store)
    derive_self_labels(store, run, bound)
    refresh_flags(store, run.id, bound)
    counts = store.status_counts(run.id, live=True)
    batch_bought = False
    if asked is not None:
        stored = store.run_results(run.id)
        batch_bought = all(key in stored for key in asked)
    status = final_status(counts, budget, batch_bought=batch_bought)
    if (
        budget is None
        and asked is None
        and run.status in LEFT_ON_PURPOSE
        and status == "interrupted"
    ):
        status = run.status
    elif (
        started is not None
        and asked is None
        and started[0] in LEFT_ON_PURPOSE
        and status == "interrupted"
        and counts["pending"] == started[1]
    ):
        status = started[0]
    store.set_run_status(run.id, status)
    return store.get_run(run.id)


#: Statuses of a run stopped with trials left that were asked for: a user's stop or a fault
#: (``interrupted``), the spending guard (``over-budget``). Results are shared by request, so
#: another run can store the rest; with nothing pending, such a run is finished
#: (:func:`settled`, :func:`finish_sharing`).
STOPPED_SHORT = ("interrupted", "over-budget")


def settled(store: Store, run: RunRecord) -> RunRecord:
    """``run`` as its stored results say it is now: one stopped short (:data:`STOPPED_SHORT`)
    whose trials all have an outcome since (another run stored the rest) reads ``complete``
    (``incomplete`` where some failed), not as if trials were left; any other as stored."""
    if run.status not in STOPPED_SHORT:
        return run
    counts = store.status_counts(run.id, live=True)
    return run if counts["pending"] else replace(run, status=final_status(counts))


def finish_sharing(store: Store, run_id: str) -> list[str]:
    """Finish (:func:`finish_run`) every run stopped short (:data:`STOPPED_SHORT`) that shares
    a request with ``run_id``, executes nowhere and has no trial pending now that ``run_id``
    stored its results: its status, self labels and flags as a resume of it would leave them.
    Returns their ids."""
    out: list[str] = []
    for other in store.runs_sharing(run_id, STOPPED_SHORT):
        if store.live_lease(other) is not None:
            continue
        if store.status_counts(other, live=True)["pending"]:
            continue
        try:
            out.append(finish_run(store, other).id)
        except UnknownPluginError:
            continue  # its probe is not installed here: it reads complete (:func:`settled`)
    return out

"""What a run's status says to a reader, in every listing: ``diptych runs``, ``diptych show``,
the run output, the report and the terminal app.

A run bought batch by batch for a sequential audit (``--until-decided``) stops on purpose: its
stored status is ``partial`` while the audit looks at what it bought, and ``decided`` once the
audit's gates are decided on it; the rest of its design was never asked for. Its looks are kept
with the audit's part (:class:`~diptych.core.audit.sequential.PartLooks`), so the words name the
look it stopped at and what stopping there saved: "decided at look 1 of 10: 164 of 1,640
requests, 1,476 saved". ``interrupted`` is left for a stop a user (Ctrl-C, SIGTERM) or a fault
caused.

A decided run can be bought on afterwards (``diptych resume``, a plain run of its design); it
keeps its history, but never reads as if it still held only its look's requests: "decided at
look 1 of 10, bought on since: 700 of 1,640 requests, 940 not bought" (940 pending where a
stopped buy-on left it interrupted, in every listing and question), and in short (a
listing's status column: the Runs table's, ``diptych audit list``'s) :data:`BOUGHT_ON`, "decided,
bought on", or with its look where there is room for it, "decided at look 1 of 10, bought on"
(:func:`bought_on_words`). Rerunning the audit decides it again on the same looks and does not
change that.

A trial with no outcome has one name at each moment, in every listing (:func:`unasked_word`):
"not bought" while its run is decided (its gates decided it need not be bought; a resume asks
before it buys), "pending" once a user chose to buy it and has not got it yet (a buy-on running,
or stopped: the next ``diptych resume`` asks it without a question).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from diptych.core.audit.record import AuditRecord
from diptych.core.audit.sequential import Look, PartLooks
from diptych.core.cost import cost_text

if TYPE_CHECKING:
    from diptych.core.store import RunRecord, Store

#: The trials of a decided run that no request was sent for: the listings' word for them,
#: where "pending" would say they wait to be bought.
NOT_BOUGHT = "not bought"

#: The trials of any other run with no outcome: the next resume (or look) asks them.
PENDING = "pending"

#: A decided run bought on since its gates decided it, in short: a listing's status column. It
#: says "decided" as every longer form does (:func:`status_text`, :func:`bought_on_words`).
BOUGHT_ON = "decided, bought on"


def unasked_word(status: str) -> str:
    """What a run with ``status`` calls its trials with no outcome, in every listing:
    :data:`NOT_BOUGHT` for a decided run (:data:`BOUGHT_ON` too, in short), :data:`PENDING`
    for any other (a buy-on of a decided run that is running or was stopped is waiting to get
    them)."""
    return NOT_BOUGHT if status in ("decided", BOUGHT_ON) else PENDING


def bought_on_words(looks: PartLooks | None) -> str:
    """:data:`BOUGHT_ON` with the look that decided the run, where a listing has room for a few
    words (``diptych audit list``): "decided at look 1 of 10, bought on"."""
    if looks is None or not looks.looks:
        return BOUGHT_ON
    return f"decided at look {len(looks.looks):,} of {looks.total:,}, bought on"


def looks_by_run(audits: Sequence[AuditRecord]) -> dict[str, PartLooks]:
    """Each run's looks joined from every audit that bought it batch by batch
    (:func:`joined_looks`), by run id."""
    runs = dict.fromkeys(p.run_id for a in audits for p in a.parts if p.run_id)
    found = {run: joined_looks(audits, run) for run in runs if run}
    return {run: looks for run, looks in found.items() if looks is not None}


def joined_looks(audits: Sequence[AuditRecord], run_id: str) -> PartLooks | None:
    """The looks ``run_id``'s answers were taken at, joined from every audit record of
    ``audits`` that bought it batch by batch: its data was peeked at each of them, whichever
    record reads it now, so every gate on it spends its level over all of them. A run's
    answers only grow, so the looks are ordered by the requests each read, which is the order
    they were taken in; a look at requests already looked at (a record reading a look another
    took, an audit run again deciding on the same look) is counted once, the first recorded.
    The plan (its batches and order) is the one the first look was taken under, which every
    later look continues; the stop the last look's record's. None for a run no record looked
    at."""
    records = []
    for audit in sorted(audits, key=lambda a: a.updated_at):
        for part in audit.parts:
            looks = PartLooks.of(part.detail) if part.run_id == run_id else None
            if looks is not None and looks.active and looks.looks:
                records.append(looks)
    if not records:
        return None
    taken: dict[int, tuple[Look, PartLooks]] = {}
    for looks in records:
        for look in looks.looks:
            taken.setdefault(look.bought, (look, looks))
    ordered = [taken[bought] for bought in sorted(taken)]
    # The newest record holding the last look says why the looks stopped there.
    stop = next(r.stop for r in reversed(records) if r.looks[-1].bought == ordered[-1][0].bought)
    return replace(ordered[0][1], looks=[look for look, _ in ordered], stop=stop)


def decided_words(parts: Sequence[PartLooks | None]) -> str | None:
    """An audit its gates decided, in its decided runs' words (:func:`status_text`): the look
    it stopped at and the requests of its gated parts bought and saved ("decided at look 1 of
    10: 164 of 1,640 requests, 1,476 saved"); None where no part recorded a look."""
    looked = [p for p in parts if p is not None and p.last is not None]
    if not looked:
        return None
    if len(looked) == 1:
        return status_text("decided", looked[0])
    bought = sum(p.last.bought for p in looked if p.last is not None)
    planned = sum(p.last.planned for p in looked if p.last is not None)
    at = max(len(p.looks) for p in looked)
    total = max(p.total for p in looked)
    return (
        f"decided at look {at:,} of {total:,}: {bought:,} of {planned:,} requests, "
        f"{planned - bought:,} saved"
    )


def bought_on_since(status: str, looks: PartLooks | None, answered: int | None) -> bool:
    """Whether a run its audit's gates decided short of its whole design was bought on since:
    it has an outcome for more of its requests (``answered``, as its looks count them) than
    it had at the last look (those another run stored for later batches, which the look did not
    read, included: they were not bought on since). A partial run is between two looks of its
    audit, not bought on; a run whose design was read whole since has that as its last look."""
    last = looks.last if looks is not None else None
    if looks is None or last is None or answered is None:
        return False
    early = looks.stop == "decided" and not last.complete
    return early and status != "partial" and answered > last.outcomes


def status_said(store: Store, run: RunRecord, looks: PartLooks | None) -> str:
    """``run``'s status in words (:func:`status_text`) as every listing says it, its requests
    with an outcome read from ``store`` now."""
    answered = store.requests_held(run.id) if looks is not None else None
    return status_text(run.status, looks, answered)


def listed_status(store: Store, run: RunRecord, looks: PartLooks | None) -> str:
    """``run``'s status in short, as a listing's status column shows it: a decided run
    bought on since (:func:`bought_on_since`) is :data:`BOUGHT_ON`, any other its status."""
    if run.status != "decided" or looks is None:
        return run.status
    answered = store.requests_held(run.id)
    return BOUGHT_ON if bought_on_since(run.status, looks, answered) else run.status


def status_text(
    status: str,
    looks: PartLooks | None = None,
    answered: int | None = None,
    held_as: str | None = None,
) -> str:
    """The run's status in words: a decided run names the look it stopped at, the requests it
    bought and those it saved; a partial one the look it is at; any other its status. A run
    the gates decided and that was bought on since (``answered``: its requests with an
    outcome now; :func:`bought_on_since`) names the look and what it holds now, the requests
    not bought the only ones left unsaid: "decided at look 1 of 10, bought on since: 700 of
    1,640 requests stored, 940 not bought" (its status first where it is not ``decided``, and
    the rest :data:`PENDING` there: "interrupted: decided at look 1 of 10, bought on since: 700
    of 1,640 requests stored, 940 pending"; its status alone once its design was bought
    whole). ``held_as``: the status the run is in now, where ``status`` says where its gates left it
    (:func:`decided_said`): the rest is named as the run's own listings name it."""
    last = looks.last if looks is not None else None
    if bought_on_since(status, looks, answered):
        assert looks is not None and last is not None and answered is not None
        at = f"decided at look {len(looks.looks):,} of {looks.total:,}, bought on since"
        rest = max(last.planned - answered, 0)
        if not rest and status != "decided":
            return status  # bought whole since ("complete"): nothing of the look holds
        # Stored, not bought: another run asking the same requests answers them in the store.
        held = f"{answered:,} of {last.planned:,} requests stored" + (
            f", {rest:,} {unasked_word(held_as or status)}" if rest else ""
        )
        return f"{'' if status == 'decided' else f'{status}: '}{at}: {held}"
    if looks is None or last is None:
        if status == "decided":
            return "decided: its gates were decided before the design was bought whole"
        if status == "partial":
            return "partial: bought batch by batch, the rest waits for the next look"
        return status
    at = f"look {len(looks.looks):,} of {looks.total:,}"
    if status == "decided":
        saved = last.planned - last.bought
        return f"decided at {at}: {last.bought:,} of {last.planned:,} requests, {saved:,} saved"
    if status == "partial":
        return f"partial: {at} undecided, {last.bought:,} of {last.planned:,} requests"
    return status


def outcome_words(status: str, counts: Mapping[str, int]) -> dict[str, int]:
    """The run's trials by outcome as a listing names them: those with no outcome by
    :func:`unasked_word` (a decided run's are ``not bought``: nothing is waiting to buy them)."""
    word = unasked_word(status)
    return {(word if k == PENDING else k): v for k, v in counts.items()}


def listed_counts(status: str, counts: Mapping[str, int]) -> dict[str, int]:
    """The run's trials by outcome as every JSON listing gives them (``diptych runs --json``,
    a part's ``counts`` in ``diptych audit list --json``), in the table's words
    (:func:`outcome_words`) with ``_`` for a space: ``pending`` and ``not_bought`` both
    present, so a decided run reads 0 pending and its untried trials not bought."""
    named = {k.replace(" ", "_"): v for k, v in outcome_words(status, counts).items()}
    unasked = (PENDING, NOT_BOUGHT.replace(" ", "_"))
    # The outcomes in the store's order, then the two kinds of trial without one.
    return {
        **{k: v for k, v in named.items() if k not in unasked},
        **{k: named.get(k, 0) for k in unasked},
    }


def outcome_line(status: str, counts: Mapping[str, int], sep: str = " · ") -> str:
    """The run's trials by outcome on one line, each count with its thousands separators:
    "done 656 · refused 0 · failed 0 · not bought 5,904" (:func:`outcome_words`)."""
    return sep.join(f"{k} {v:,}" for k, v in outcome_words(status, counts).items())


def trials_asked(counts: Mapping[str, int]) -> int:
    """The trials a run asked its models: every one with an outcome. A decided run's trials
    never bought, and a partial run's still waiting, were never asked, so no exclusion is out
    of them."""
    return sum(n for k, n in counts.items() if k not in (PENDING, NOT_BOUGHT))


def decided_at(said: str) -> str:
    """Where a decided run stopped, from its status in words (:func:`status_text`): "decided
    at look 1 of 10", without what stopping saved (the rest is said with its price instead)
    or what was bought on since."""
    return said.partition(":")[0].partition(", bought on since")[0]


def remaining(trials: int, requests: int, cost: float) -> str:
    """What resuming a decided run buys, in the one wording of the terminal app's ``p`` and
    ``u`` and of ``diptych resume``: "the remaining 1,476 requests (1,476 trials), estimated
    cost $0.59"."""
    # A count and its noun are joined by a no-break space: a wrapped line never parts them.
    return (
        f"the remaining {requests:,}\u00a0{'request' if requests == 1 else 'requests'} "
        f"({trials:,}\u00a0{'trial' if trials == 1 else 'trials'}), "
        f"estimated cost {cost_text(cost)}"
    )


def rest_to_buy(
    run_id: str, said: str, trials: int, requests: int, cost: float, lost: int = 0
) -> str:
    """The question before a decided run is resumed (the terminal app's ``u`` and ``ctrl+r``,
    ``diptych resume``, ``diptych audit run``): its gates were decided (``said``:
    :func:`decided_said`), so the rest of its design is bought on purpose only, once its
    trials, requests and estimated cost are said. ``lost``: the answers its look read that are
    gone from the store since (:func:`lost_said`), which resuming asks again with the rest."""
    gone = f" {lost_said(lost)}, asked again with the rest." if lost else ""
    return (
        f"{run_id} is {said}; its gates were decided on the trials bought.{gone} Resuming buys "
        f"{remaining(trials, requests, cost)}."
    )


def lost_said(lost: int) -> str:
    """The answers a decided run's look read that are gone from the store since, in the one
    wording of ``diptych show``, ``diptych resume`` and the terminal app's questions."""
    these = "answer" if lost == 1 else "answers"
    return f"{lost:,} {these} its gates were decided on had gone from the store"


def decided_said(store: Store, run: RunRecord, looks: PartLooks | None) -> str:
    """Where ``run``'s gates decided it, whatever its status now, in the words of
    :func:`status_text` (the look, what it bought and saved, or what it holds where it was
    bought on since): a run bought on and stopped part way is "interrupted" by that stop, but
    what resuming it buys is the rest its gates decided on, not a rest a stop left. Its trials
    not had are named as its own listings name them: "pending" once a buy-on was stopped."""
    answered = store.requests_held(run.id) if looks is not None else None
    return status_text("decided", looks, answered, held_as=run.status)


def rest_line(at: str, trials: int, requests: int, cost: float, how: str) -> str:
    """A decided run's state where it is not running (the terminal app's ``p`` and ``c``):
    "decided at look 1 of 10; u buys the remaining 1,476 requests (1,476 trials), estimated
    cost $0.59", ``how`` the key or command that buys them."""
    return f"{at}; {how} buys {remaining(trials, requests, cost)}"

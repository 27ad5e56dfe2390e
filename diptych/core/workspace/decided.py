"""The figures of a run that an audit's gates decided on its looks, as every listing of the run
shows them (``diptych show``, the terminal app's run detail and review line).

A run bought batch by batch until its gates were decided (``audit run --until-decided``) has
two intervals for a gated figure: the anytime-valid one over its looks, which the gate decided
on, and the fixed-design one an analysis of its answers makes now. A page shows one interval
per figure: the gate's, named, with the value and count of the look it was decided at.

Every other figure of a design that stopped early on its gates stopped where its gates saw
enough: its fixed-design interval does not hold after that stop (a stop chosen on what the
looks showed). It gets the anytime-valid interval of its own looks at the same look, made by
the machinery the gates use at the 95% level, where every look recorded it; where one did not
(an audit recorded before looks kept every figure), its fixed-design interval is named as not
holding after the stop. A design read whole was not stopped on what it showed: its other
figures keep their fixed-design intervals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from diptych.core.audit.gates import GateFigure
from diptych.core.audit.run_status import trials_asked
from diptych.core.audit.sequential import Look, Untested, anytime_figure
from diptych.core.audit.stopped import NOT_HOLDING, continued, looked, stopped_name
from diptych.core.errors import DiptychError
from diptych.core.report.formatting import decided_name, figure_text, interval, why_no_interval
from diptych.core.report.gates import interval_kind
from diptych.core.workspace.gates import audit_gates
from diptych.core.workspace.look_trials import trials_at_look

if TYPE_CHECKING:
    from diptych.core.store import Store
    from diptych.core.workspace.analysis import Analysis


def decided_numbers(analysis: Analysis, store: Store, run_id: str) -> dict[str, dict[str, Any]]:
    """Each figure of ``run_id`` a gate read on the looks of the newest audit that bought the
    run batch by batch: the number as the gate's last look had it, its interval the gate's
    (``ci_low``, ``ci_high``) and named (``interval_name``: "95% anytime-valid interval, look
    1 of 10"). Empty for a run no such audit bought, or whose gates cannot be decided now."""
    found = looked(store, run_id)
    if found is None or continued(store, run_id, found[2]):
        return {}  # bought on since its stop: no look describes its trials
    return gate_readings(analysis, store, run_id)


def gate_readings(analysis: Analysis, store: Store, run_id: str) -> dict[str, dict[str, Any]]:
    """:func:`decided_numbers` as the gates read them at their last look, whether or not the
    run was bought on since (then the figures are read from all its trials, and this is what
    the gates read at the look they stopped at)."""
    found = looked(store, run_id)
    if found is None:
        return {}
    audit, part_name, looks = found
    try:
        report = audit_gates(analysis, store, audit.id)
    except (DiptychError, ValueError):
        return {}
    last = looks.last
    assert last is not None
    look = looks.at
    out: dict[str, dict[str, Any]] = {}
    for r in report.results:
        if r.part != part_name or r.rule == "no_regression":
            continue
        if r.ci_low is None or r.ci_high is None:
            continue
        number: dict[str, Any] = dict(last.numbers.get(r.figure) or {"value": r.value})
        number.update(
            ci_low=r.ci_low,
            ci_high=r.ci_high,
            interval_name=decided_name(r.confidence, interval_kind(r.method), look),
            # What the gate made of it: an inconclusive one read the interval, deciding nothing.
            gate_verdict=r.verdict,
        )
        out.setdefault(r.figure, number)
    return out


#: The level of a figure no gate read: the report's own.
CONFIDENCE = 0.95


def stopped_numbers(
    store: Store, run_id: str, numbers: Mapping[str, Mapping[str, Any]], decided: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    """Each figure of ``numbers`` no gate decided (not in ``decided``), of a run whose design an
    audit stopped early on its gates: with the anytime-valid interval of its looks at the same
    look (named "95% anytime-valid interval, look 1 of 10"), or, where its looks did not record
    it, its own interval named as not holding ("fixed-design; does not hold after the stop at
    look 1"); each with the look it stopped at (``stopped_at``) and which of the two it carries
    (``stopped_interval``), by which the report's Limitations say so, and ``bought_on`` where
    the run was bought on since its stop (its figures from all its trials). Empty for a run no such
    audit stopped early."""
    found = looked(store, run_id)
    if found is None:
        return {}
    looks = found[2]
    last = looks.last
    if last is None or last.complete:
        return {}
    at = f"look {len(looks.looks):,} of {looks.total:,}"
    # Bought on since its stop and not whole: every figure from all its trials (the last look
    # read fewer), each interval fixed-design and named as not holding after the stop.
    after = continued(store, run_id, looks)
    out: dict[str, dict[str, Any]] = {}
    for name, number in numbers.items():
        if name in decided or not isinstance(number, Mapping):
            continue
        made = None if after else anytime_interval(name, looks.looks)
        if made is not None:
            out[name] = {
                **last.numbers[name],
                **made,
                "interval_name": _anytime_name(at),
                "stopped_at": at,
                "stopped_interval": "anytime-valid",
            }
        elif interval(dict(number)).startswith("["):
            out[name] = {
                **number,
                "interval_name": stopped_name(at),
                "stopped_at": at,
                "stopped_interval": "fixed-design",
            }
            if after:  # read from all its trials, past the look: the Limitations say so
                out[name]["bought_on"] = True
    return out


def look_readings(
    analysis: Analysis, store: Store, run_id: str, figures: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """Each of ``figures`` as the looks of a run bought on since its gates stopped it early
    read it at the look they stopped at: the gate's value and interval where a gate read it
    (``gate``: True), else the 95% anytime-valid interval of its own looks; each with its
    ``interval_name`` ("95% anytime-valid interval") and the look (``at``). A figure its looks
    did not record is left out; empty for a run not bought on since such a stop."""
    found = looked(store, run_id)
    if found is None or not continued(store, run_id, found[2]):
        return {}
    looks = found[2]
    last = looks.last
    assert last is not None
    at = looks.at
    gated = gate_readings(analysis, store, run_id)
    out: dict[str, dict[str, Any]] = {}
    for name in figures:
        number = gated.get(name)
        if number is not None and _finite(number, "value", "ci_low", "ci_high"):
            said = str(number["interval_name"]).removesuffix(f", {at}")
            out[name] = {**number, "interval_name": said, "at": at, "gate": True}
        elif name in last.numbers and (made := anytime_interval(name, looks.looks)):
            value = last.numbers[name].get("value")
            if _finite({"value": value}, "value"):
                said = decided_name(CONFIDENCE, "anytime-valid")
                out[name] = {**last.numbers[name], **made, "interval_name": said, "at": at}
        elif name in last.numbers and _finite(last.numbers[name], "value"):
            # Recorded by the look without an interval (too few units then): it reads as the
            # look read it, no interval and why, never with one made of the trials since.
            read = {k: v for k, v in last.numbers[name].items() if k not in _BOUNDS}
            out[name] = {**read, "at": at}
    return out


#: The keys of a number's interval and its name.
_BOUNDS = ("ci_low", "ci_high", "interval_name")


def bought_on_numbers(
    analysis: Analysis, store: Store, run_id: str, numbers: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Each figure of ``numbers`` (read from all the trials of a run bought on since its gates
    stopped it early) as its looks read it at the look they stopped at, the one interval a page
    prints for it: the gate's where a gate read it, else the 95% anytime-valid one of its own
    looks, named with the look and with the figure's value on all the trials beside it, a
    value only ("95% anytime-valid interval, look 1 of 10; 11.5 on all 1,424 trials, 656 at
    look 1 and 768 stored since", :func:`value_since`). The looks' intervals hold at the looks
    of their spending plan only: a fixed-design interval of the trials stored since has no
    coverage after the stop, and no interval is made of them. A figure a gate read keeps
    ``gate``: True (its interval is the gate's). A figure its looks did not record is left out
    (it keeps its own interval named as not holding, :func:`stopped_numbers`); empty for a run
    not bought on."""
    read = look_readings(analysis, store, run_id, list(numbers))
    if not read:
        return {}
    trials = trials_asked(store.status_counts(run_id))
    at_look = trials_at_look(store, run_id)
    out: dict[str, dict[str, Any]] = {}
    for name, reading in read.items():
        now = numbers.get(name) or {}
        since = ""
        if _finite(now, "value"):
            since = f"; {value_since(now['value'], trials, at_look, str(reading['at']))}"
        number = {k: v for k, v in reading.items() if k not in ("at", "p")}
        if "interval_name" not in reading:
            # No interval at the look: its reason says so, with the look and the value since;
            # its bounds are None, as a figure's without an interval are, so that it stays a
            # figure of the kind that has one (a headline figure among the Findings).
            why = why_no_interval(reading.get("reason")) or "none at the look"
            number.update(
                ci_low=None,
                ci_high=None,
                reason=f"{why}, {reading['at']}{since}",
                stopped_interval="none",
            )
        else:
            number.update(
                interval_name=f"{reading['interval_name']}, {reading['at']}{since}",
                stopped_interval="anytime-valid",
            )
        number.update(
            stopped_at=reading["at"],
            bought_on=True,
            value_since=now.get("value"),
            trials_since=trials,
        )
        out[name] = number
    return out


def value_since(value: float, trials: int, at_look: int | None, at: str) -> str:
    """A figure's value on all the trials of a run bought on since its stop, with how many of
    them its look read and how many were stored after it: "11.0 on all 1,168 trials, 656 at
    look 1 and 512 stored since" (``at``: the look, "look 1 of 10"); where the look's trials
    are not known, "11.0 on all 1,168 trials stored since". Stored, not bought: another run
    asking the same requests answers them for this one too."""
    said = f"{figure_text(value)} on all {trials:,} trials"
    if at_look is None:
        return f"{said} stored since"
    look = at.split(" of ")[0]
    return f"{said}, {at_look:,} at {look} and {trials - at_look:,} stored since"


def look_reason(number: Mapping[str, Any]) -> str | None:
    """Why the look had no interval for a figure :func:`bought_on_numbers` gave without one, as
    a figure without one says it ("one masculine identity only: no interval"); None for a
    figure with an interval."""
    if number.get("stopped_interval") != "none":
        return None
    said, at = str(number.get("reason") or ""), str(number.get("stopped_at") or "")
    return f"{said.split(f', {at}', 1)[0] if at else said}: no interval"


def _finite(number: Mapping[str, Any], *keys: str) -> bool:
    """Whether each of ``keys`` of ``number`` is a finite number (a look that read the figure)."""
    return all(isinstance(number.get(k), int | float) and math.isfinite(number[k]) for k in keys)


def fixed_beside(
    numbers: Mapping[str, Mapping[str, Any]], named: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Each figure of ``numbers`` with an interval no gate or stop named, beside figures whose
    intervals are named (``named``: :func:`decided_numbers` and :func:`stopped_numbers`), named
    "95% fixed-design interval": a design read whole after its gates' looks keeps its
    fixed-design intervals, and says so, so that no interval stands unnamed beside an
    anytime-valid one. Empty where ``named`` is."""
    if not named:
        return {}
    return {
        name: {**number, "interval_name": decided_name(CONFIDENCE, "fixed-design")}
        for name, number in numbers.items()
        if name not in named
        and isinstance(number, Mapping)
        and not number.get("interval_name")
        and interval(dict(number)).startswith("[")
    }


def _anytime_name(at: str) -> str:
    return decided_name(CONFIDENCE, "anytime-valid", at)


def holds_after_stop(number: Mapping[str, Any]) -> bool:
    """Whether a number :func:`stopped_numbers` gave carries an interval that holds after the
    stop (the anytime-valid one of its looks), not its own named as not holding."""
    return not str(number.get("interval_name") or "").startswith(NOT_HOLDING)


def anytime_interval(name: str, looks: Sequence[Look]) -> dict[str, float] | None:
    """The 95% anytime-valid interval of figure ``name`` over ``looks`` (as the gates make theirs,
    :func:`~diptych.core.audit.sequential.anytime_figure`), or None where a look did not record
    the figure (its share of the level is unknown) or no look could be tested."""
    if any(name not in look.numbers for look in looks):
        return None
    found: list[tuple[Look, GateFigure | None]] = []
    for look in looks:
        fig = GateFigure.from_number(look.numbers[name])
        found.append((look, None if isinstance(fig, str) else fig))
    combined = anytime_figure(found)
    if combined is None or isinstance(combined.recipe, Untested):
        return None
    low, high = combined.interval(CONFIDENCE)
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    return {"ci_low": low, "ci_high": high}


def with_decided(
    numbers: Mapping[str, Mapping[str, Any]], decided: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """``numbers`` with each figure a gate decided replaced by the number it decided on."""
    return {k: dict(decided.get(k) or v) for k, v in numbers.items()}


def stopped_figures(
    analysis: Analysis, store: Store, run_id: str, numbers: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Each figure of ``run_id``'s ``numbers`` as every page of the run prints it, the one
    interval its decision used, named: a gated one as its gate read it at the look
    (:func:`decided_numbers`), so that report.json's numbers carry the interval its pages show,
    the others as :func:`stopped_numbers` leaves them; of a run bought on since its stop, every
    figure its looks recorded as they read it (:func:`bought_on_numbers`)."""
    decided = decided_numbers(analysis, store, run_id)
    out = {name: number for name, number in decided.items() if name in numbers}
    out.update(stopped_numbers(store, run_id, numbers, decided))
    out.update(bought_on_numbers(analysis, store, run_id, numbers))
    return out

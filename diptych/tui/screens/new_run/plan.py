"""What the New-run screen offers and shows beside its forms: the run's options (``diptych
run``'s of the same names), the probes and the models' form ids, and the plan's text (trials,
requests, cost and the figures' expected precision, as ``diptych run --dry-run`` counts them).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field
from rich.text import Text

from diptych.core.cost import Cost
from diptych.core.probe import Probe
from diptych.core.report.formatting import plural
from diptych.core.report.quick_look import QUICK_LOOK, planned_quick_look
from diptych.core.workspace import Estimate, Workspace
from diptych.tui.formatting import dollars

#: What a run of a design on too few units a side will be, before the caveat's reasons.
QUICK_PLAN = f"a run of this design is a {QUICK_LOOK}"

#: Seconds of quiet after an edit before the plan is estimated again.
DEBOUNCE = 0.3


class RunOptions(BaseModel):
    """How the engine runs the trials (``diptych run`` options of the same names)."""

    model_config = ConfigDict(extra="forbid")

    concurrency: int = Field(16, ge=1, description="most trials in flight at once")
    max_attempts: int = Field(6, ge=1, description="attempts per trial on transient faults")
    timeout: float | None = Field(None, gt=0, description="seconds per call before a retry")
    max_cost: float | None = Field(
        None, ge=0, description="USD: start no call past this estimated spend"
    )
    max_retry_wait: float = Field(
        300.0, ge=0, description="seconds of a service's Retry-After obeyed; longer fails"
    )
    paid_retries: int = Field(
        0, ge=0, description="unusable answers paid for to buy again (the estimate counts them)"
    )
    target_width: float | None = Field(
        None, gt=0, description="plan only: the smallest design expected to reach ±W"
    )


def probe_class(name: str) -> type[Probe]:
    """The installed probe ``name`` (one of the probes the screen offers)."""
    return Workspace.plugins.registry().probes[name]


def none_fit(probe: str | None, fitting: list[str], search: str) -> str:
    """Why the Models list is empty, in one line: no installed model has a capability the
    probe uses, or none of those that have one matches the search (they are named)."""
    if not probe:
        return ""
    needs = " or ".join(f"'{c}'" for c in sorted(probe_class(probe).capabilities))
    if not fitting:
        return f"no installed model fits {probe}: it needs {needs}"
    named = ", ".join(fitting[:3]) + (f" and {len(fitting) - 3} more" if len(fitting) > 3 else "")
    verb = "does" if len(fitting) == 1 else "do"
    return f"no model matching {search!r} fits {probe}'s {needs}; {named} {verb}"


def form_id(model: str) -> str:
    return "form-model-" + re.sub(r"[^A-Za-z0-9_-]", "_", model)


#: What the plan says under the design's warning where a ctrl+s, pressed before the plan was
#: in, waited for it: the warning is read before anything is bought.
AGAIN = "^s again starts the run"


def few_units_said(est: Estimate) -> str | None:
    """The line ``diptych run`` prints before it buys a design of too few units a side, word
    for word (``diptych.cli.precision.few_units_warning``: the same function of the design,
    with its "warning: "), or None."""
    said = est.precision.design_warning if est.precision is not None else None
    return None if said is None else f"warning: {said}"


def estimate_text(est: Estimate, max_cost: float | None, again: bool = False) -> Text:
    """The plan; ``again``: a ctrl+s waited for it, and the next one starts the run."""
    text = Text()
    quick = planned_quick_look(est.precision)
    warning = few_units_said(est)
    said = Text()
    if warning is not None:
        # The line `diptych run` prints before it buys the design, in its words.
        said.append("warning:", style="bold yellow")
        said.append(f"{warning[8:]}\n", style="yellow")
        if again:
            said.append(f"{AGAIN}\n", style="bold")
    if again:
        # A ctrl+s waits on it: the warning and what starts the run first, in view.
        text.append_text(said)
    if quick:
        # Read before ctrl+s (the figures' half-widths often run under the plan's edge): in
        # the words `diptych show` and the report will use of the run's figures.
        text.append(f"{QUICK_PLAN}: {quick}\n", style="bold yellow")
    if not again:
        text.append_text(said)
    # Counted as the CLI counts them (plan_counts): trials planned and stored, requests to run.
    text.append(f"{est.planned:,}", style="bold")
    text.append(f" {plural('trial', est.planned)} planned · ")
    text.append(f"{est.cached:,}", style="bold")
    text.append(" already stored · ")
    text.append(f"{est.to_run:,}", style="bold")
    text.append(f" {plural('request', est.to_run)} to run · estimated cost ")
    text.append(dollars(est.cost), style="bold")
    if est.unpriced and not isinstance(est.cost, Cost):
        # A Cost already names its unpriced requests ("not priced", "+ 300 requests not priced").
        text.append(f" ({est.unpriced:,} with no known price)")
    for model_id, tally in est.per_model.items():
        # Each count with its unit: a request may ask several trials, so trials planned and
        # requests to run are not one count at two moments.
        planned, to_run = int(tally["planned"]), int(tally["to_run"])
        text.append(
            f"\n  {model_id}: {planned:,} {plural('trial', planned)} planned, {to_run:,} "
            f"{plural('request', to_run)} to run, {dollars(tally['cost'])}",
            style="dim",
        )
    if est.paid_retries_left and est.to_run:
        text.append(
            f"\n  up to {est.paid_retries_left:,} paid retries of unusable answers: at most "
            f"{dollars(est.paid_retry_cost)} more"
        )
    if max_cost is not None:
        text.append(f"\n  stops before the estimated spend exceeds {dollars(max_cost)}")
    if est.precision is not None:
        # The figures' expected half-widths, so that a design too small to decide anything is
        # seen before it is paid for (the lines `diptych run --dry-run` prints).
        for line in est.precision.lines():
            if line == warning:
                continue  # said at the top
            if line.startswith("warning: "):
                text.append("\nwarning:", style="bold yellow")
                text.append(line[8:], style="yellow")
            else:
                text.append(f"\n{line}")
    return text

"""What buying an audit until its gates are decided is expected to cost, before anything is
bought (``audit run --dry-run --until-decided``): each gate's figure simulated from its part's
planned design (:mod:`diptych.core.audit.expected_spend`), with the requests stored for the
design counted as bought at no cost. Each look reads what is stored and the batches bought so
far, in the purchase order the audit would follow (``ws.audits.reads_ahead``), so that the share
and the money forecast are those the command would buy.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from diptych.audit.plan import AuditPlan, PartPlan
from diptych.audit.sequential import order_seed_of
from diptych.core.audit.expected_spend import ExpectedSpend, expected_spend
from diptych.core.audit.gates import GateRule
from diptych.core.audit.sequential import DEFAULT_BATCHES, SequentialSummary
from diptych.core.errors import DiptychError, UsageError
from diptych.core.metrics.uncertainty.precision import FigurePrecision
from diptych.core.workspace import Workspace


@dataclass
class GateCost:
    """A gate's part bought whole (``requests``, ``cost``) and, for each value its figure is
    assumed to take (with where the value comes from), what buying until decided is expected
    to take; ``note`` says why there is no expectation (the probe plans no such figure)."""

    label: str
    requests: int
    cost: float
    #: Of ``requests``, those stored already (free); ``cost`` prices the rest.
    stored: int = 0
    expected: list[tuple[str, ExpectedSpend]] = field(default_factory=list)
    note: str = ""


def _run_of_fingerprint(ws: Workspace, fingerprint: str | None) -> str | None:
    found = [s.run.id for s in ws.runs.list() if s.run.fingerprint == fingerprint]
    return found[-1] if found and fingerprint is not None else None


def _planned_figure(planned: PartPlan, figure: str) -> FigurePrecision | None:
    """The part's planned figure a gate reads (a figure of several models names its model
    first: ``model: STS paired``)."""
    precision = planned.estimate.precision if planned.estimate else None
    for fig in precision.figures if precision else []:
        if figure == fig.name or figure.endswith(f": {fig.name}"):
            return fig
    return None


def expected_costs(
    ws: Workspace,
    plan: AuditPlan,
    source: str | os.PathLike[str],
    *,
    assume: float | None = None,
    batches: int = DEFAULT_BATCHES,
) -> list[GateCost]:
    """Each gate's expected cost to a decision (``audit run --dry-run --until-decided``): for
    the value ``assume`` (else the plan's own assumption: a paper's published value or an
    earlier run's) and for the value the last recorded run of the same audit gave. ``plan``
    must be made with ``precision``."""
    gates = plan.audit.gates
    if gates is None or not gates.checks:
        return []
    last: dict[str, float] = {}
    try:
        for r in ws.audits.gates(source).results:
            if r.value is not None and r.rule != "no_regression":
                last[r.label] = r.value
    except DiptychError:
        pass  # never run here: only the assumed value
    by_name = {p.part.name: p for p in plan.parts}
    out = []
    for gate in gates.checks:
        planned = by_name[gate.part]
        estimate = planned.estimate
        found = _run_of_fingerprint(ws, planned.fingerprint)
        seed = order_seed_of(planned, plan.audit)
        held = ws.audits.reads_ahead(found, seed, batches) if found else None
        stored, total = (held.stored, held.total) if held else (0, 0)
        to_run = estimate.to_run if estimate else 0
        cost = GateCost(
            gate.label, max(total, stored + to_run), estimate.cost if estimate else 0.0, stored
        )
        out.append(cost)
        fig = _planned_figure(planned, gate.figure)
        if fig is None or gate.no_regression is not None:
            cost.note = "no expectation: the probe plans no such figure (or B − A of a baseline)"
            continue
        if assume is not None and not fig.low <= assume <= fig.high:
            raise UsageError(
                f"--assume {assume:g} is outside the range of {gate.figure} "
                f"[{fig.low:g}, {fig.high:g}]; give a value the figure can take"
            )
        rule = GateRule(gate.label, gate.part, gate.figure, gate.rule, gate.limit,
                        limit_high=gate.limit_high)  # fmt: skip
        truths = [(_assumed(fig, assume), assume if assume is not None else fig.components.centre)]
        if gate.label in last and math.isclose(last[gate.label], truths[0][1], abs_tol=1e-9):
            # The plan assumes the value of the run the audit last read: one scenario, said
            # with both its reasons, not the same forecast twice.
            truths[0] = (f"{truths[0][0]}; also the last recorded run of this audit", truths[0][1])
        elif gate.label in last:
            truths.append(("the last recorded run of this audit", last[gate.label]))
        on_store = held.shares() if held and held.total else (0.0, None)
        for said, truth in truths:
            spend = expected_spend(
                fig.design, fig.components, rule, truth, bounds=(fig.low, fig.high),
                batches=batches, confidence=gates.confidence,
                family=len(gates.checks) if gates.family == "holm" else 1,
                stored=on_store[0], reads=on_store[1],
            )  # fmt: skip
            cost.expected.append((said, spend))
    return out


def _assumed(fig: FigurePrecision, assume: float | None) -> str:
    """Where the value a forecast assumes comes from, said once: "assumed" (``--assume``),
    "assumed: run …" (a run of this design, a paper), "assumed from run …, another design …"."""
    if assume is not None:
        return "assumed"
    source = fig.components.source
    return source if source.startswith("assumed") else f"assumed: {source}"


def decided_on_stored(
    ws: Workspace, source: str | os.PathLike[str], costs: list[GateCost]
) -> SequentialSummary | None:
    """The looks at which every gate of ``costs`` is decided already, on the requests stored
    for the audit's designs (its last record's looks, read with the file's gates): buying
    until decided would buy nothing more, so a forecast of it would mislead. None where a gate
    is not decided there, or reads no stored run of its design."""
    try:
        report = ws.audits.gates(source)
    except DiptychError:
        return None  # never run here
    summary = report.sequential
    decided = {r.label for r in report.results if r.verdict != "inconclusive"}
    if summary is None or summary.stop != "decided" or len(decided) != len(report.results):
        return None
    if not summary.early:
        return None  # its designs stored whole: each gate says it has nothing to buy
    if not costs or any(not c.stored or c.label not in decided for c in costs):
        return None
    return summary

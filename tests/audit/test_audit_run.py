"""Running an audit file: plan, one budget across parts, a kill and a rerun that asks nothing
twice, the report naming the audit, and the recorded audit."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from diptych.audit import plan_audit, run_audit
from diptych.audit.runner import AuditOutcome, PartEvent
from diptych.core.engine import NullReporter
from diptych.core.store import RunRecord
from diptych.core.workspace import Workspace

AuditWriter = Callable[..., Path]
Asked = Callable[[Path], list[str]]

#: USD per scripted image (the audit file's price_per_call).
PRICE = 0.04
#: 1 carpenter × 1 nurse: 2 paired orders + 2 single identities, each 1 sample.
TRIALS_PER_PART = 4


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    with Workspace.open(tmp_path / "ws") as workspace:
        yield workspace


@pytest.fixture
def audit(tmp_path: Path, calls: Path, write_audit: AuditWriter) -> Path:
    """The small audit file as it is, without a budget."""
    return write_audit(tmp_path / "a.yaml", calls)


def run(ws: Workspace, path: Path, **options: Any) -> AuditOutcome:
    """The audit run to its end, its report written to ``rep`` beside the workspace."""
    return asyncio.run(run_audit(ws, path, out_dir=ws.path.parent / "rep", **options))


def noting(events: list[tuple[str, str]]) -> PartEvent:
    """An ``on_part`` that notes each part's (name, status)."""
    return lambda name, status, detail: events.append((name, status))


def test_the_plan_counts_trials_and_cost_per_part(
    ws: Workspace, audit: Path, calls: Path, image_requests: Asked
) -> None:
    plan = plan_audit(ws, audit)
    assert [(p.part.name, p.part.kind) for p in plan.parts] == [
        ("pst", "probe"),
        ("pst-table5", "mitigation"),
    ]
    assert plan.parts[1].part.params["intervention"] == "pst-table5"
    assert plan.planned == plan.to_run == 2 * TRIALS_PER_PART
    assert plan.cost == pytest.approx(2 * TRIALS_PER_PART * PRICE)
    assert image_requests(calls) == []  # nothing asked


def test_run_records_the_audit_and_the_report_names_it(
    tmp_path: Path, ws: Workspace, audit: Path, calls: Path, image_requests: Asked
) -> None:
    events: list[tuple[str, str]] = []
    outcome = run(ws, audit, on_part=noting(events))
    (recorded,) = ws.audits.list()
    assert outcome.status == "complete"
    assert outcome.spent == pytest.approx(2 * TRIALS_PER_PART * PRICE)
    assert events == [
        ("pst", "running"),
        ("pst", "complete"),
        ("pst-table5", "running"),
        ("pst-table5", "complete"),
    ]
    assert recorded.file_text == audit.read_text()
    assert [p.status for p in recorded.parts] == ["complete", "complete"]
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert report["scope"]["audit"] == "small"
    assert report["scope"]["file_hash"] == recorded.file_hash
    assert [r["run"] for r in report["runs"]] == recorded.run_ids
    assert recorded.file_hash in (tmp_path / "rep" / "report.md").read_text()
    # Rerun: every part is skipped, nothing asked again.
    asked = len(image_requests(calls))
    again = run(ws, audit, on_part=noting(events))
    assert again.audit_id == outcome.audit_id
    assert events[-2:] == [("pst", "skipped"), ("pst-table5", "skipped")]
    assert len(image_requests(calls)) == asked


class _KillAfter(NullReporter):
    """Cancels the audit's task after ``n`` finished trials: a kill in the middle of a part."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.task: asyncio.Task[object] | None = None

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        self.n -= 1
        if self.n == 0 and self.task is not None:
            self.task.cancel()

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None:
        pass


def test_a_killed_audit_continues_without_asking_any_trial_twice(
    tmp_path: Path, ws: Workspace, audit: Path, calls: Path, image_requests: Asked
) -> None:
    reporter = _KillAfter(TRIALS_PER_PART + 2)  # inside the second part

    async def killed() -> None:
        reporter.task = asyncio.current_task()
        await run_audit(ws, audit, out_dir=tmp_path / "rep", reporter=reporter)

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(killed())
    first = len(image_requests(calls))
    assert TRIALS_PER_PART < first < 2 * TRIALS_PER_PART
    events: list[tuple[str, str]] = []
    outcome = run(ws, audit, on_part=noting(events))
    assert outcome.status == "complete"
    assert ("pst", "skipped") in events or ("pst", "complete") in events
    prompts = image_requests(calls)
    # Every trial asked once, but for the one call in flight when the kill landed (its
    # answer never arrived, so it is asked again); no finished trial is asked twice.
    in_flight = prompts[first - 1]
    assert len(set(prompts)) == 2 * TRIALS_PER_PART
    assert {p for p, n in Counter(prompts).items() if n > 1} <= {in_flight}
    assert len(prompts) <= 2 * TRIALS_PER_PART + 1
    assert [p.status for p in ws.audits.list()[-1].parts] == ["complete", "complete"]


def test_one_budget_spans_every_part(
    tmp_path: Path,
    ws: Workspace,
    calls: Path,
    write_audit: AuditWriter,
    image_requests: Asked,
) -> None:
    # Room for the whole first part and one image of the second.
    budget = (TRIALS_PER_PART + 1) * PRICE + 0.001
    path = write_audit(tmp_path / "a.yaml", calls, budget={"max_cost": budget})
    remaining: list[float | None] = []
    outcome = run(
        ws,
        path,
        on_part=lambda n, s, d: remaining.append(d["remaining"]) if s == "running" else None,
    )
    assert outcome.status == "over-budget"
    assert outcome.report is None
    assert remaining == pytest.approx([budget, budget - TRIALS_PER_PART * PRICE])
    assert len(image_requests(calls)) == TRIALS_PER_PART + 1
    assert outcome.spent == pytest.approx((TRIALS_PER_PART + 1) * PRICE)
    assert outcome.spent <= budget
    # A rerun of the same file spends nothing more: the budget is the audit's, not the run's.
    again = run(ws, path)
    assert again.status == "over-budget"
    assert len(image_requests(calls)) == TRIALS_PER_PART + 1


def test_an_audit_file_names_its_organisations_frameworks(
    tmp_path: Path, ws: Workspace, calls: Path, write_audit: AuditWriter
) -> None:
    # The framework file is named from the audit file's folder, as the audit's other paths.
    (tmp_path / "policy.yaml").write_text(
        """version: "1"
frameworks:
  - id: acme
    name: ACME policy
    items:
      - id: acme-1
        source: {title: ACME policy, clause: "1", url: "https://example.org/p",
                 retrieved: "2026-01-05"}
        subject: Generated images are examined for stereotypes.
        evidenced_when: [measured]
        evidences: The STS of each part with its interval.
        does_not: Decide a release.
        sections: [results]
""",
        encoding="utf-8",
    )
    path = write_audit(
        tmp_path / "a.yaml", calls, report={"formats": ["json"], "frameworks": ["policy.yaml"]}
    )
    outcome = run(ws, path)
    assert outcome.status == "complete"
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    (own,) = [f for f in report["frameworks"] if f["framework"] == "ACME policy"]
    assert own["id"] == "acme-1" and own["sections"] == ["results"]
    # Nobody labelled the parts' images: no figure was measured, and the appendix says so.
    assert not own["evidenced"] and own["evidences"].startswith("Nothing in this report")

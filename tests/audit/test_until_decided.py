"""``run_audit(..., until_decided=True)``: the gated parts bought in batches in a random order,
the gates decided after each on the looks, a stop when they are decided (or at the budget, or
at the design's end), and a rerun without it that buys the rest in the same order."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from diptych.audit import run_audit
from diptych.audit.runner import AuditOutcome
from diptych.core.audit.sequential import PartLooks
from diptych.core.errors import UsageError
from diptych.core.workspace import Workspace
from tests.support.sequential_audits import FIGURE, planted_audit

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer", "driver", "sheriff"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher", "baker", "clerk"]
#: 8 × 8 scenes, both orders, both people: 256 distinct prompts, bought in 4 batches of 64.
REQUESTS = 256
BATCHES = 4


def _write(path: Path, calls: Path, gates: list[dict[str, Any]], **extra: Any) -> Path:
    return planted_audit(path, gates, MASC, FEM, name="seq", seed=11,
                         model_params={"calls_log": str(calls), "max_concurrency": 1},
                         **extra)  # fmt: skip


def _gate(**rule: Any) -> dict[str, Any]:
    return {"part": "pst-text", "figure": FIGURE, **rule}


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    with Workspace.open(tmp_path / "ws") as workspace:
        yield workspace


def _run(ws: Workspace, path: Path, **options: Any) -> AuditOutcome:
    return asyncio.run(run_audit(ws, path, out_dir=ws.path.parent / "rep", **options))


def _asked(calls: Path) -> list[str]:
    lines = calls.read_text(encoding="utf-8").splitlines() if calls.exists() else []
    return [json.loads(line)["text"] for line in lines]


def _value(tmp_path: Path) -> float:
    """The complete design's value, from the fixed audit in a workspace of its own."""
    path = _write(tmp_path / "ref.yaml", tmp_path / "ref-calls.jsonl", [_gate(below=100)])
    with Workspace.open(tmp_path / "ref-ws") as ref:
        outcome = asyncio.run(run_audit(ref, path, out_dir=tmp_path / "ref-rep"))
        value = ref.audits.gates(outcome.audit_id).results[0].value
    assert value is not None
    return value


def test_a_gate_far_from_its_limit_stops_the_audit_early(
    tmp_path: Path, ws: Workspace, calls: Path
) -> None:
    path = _write(tmp_path / "a.yaml", calls, [_gate(below=95, name="far")])
    looked: list[tuple[int, str]] = []
    outcome = _run(
        ws, path, until_decided=True, batches=BATCHES,
        on_look=lambda k, n, report: looked.append((k, report.results[0].verdict)),
    )  # fmt: skip
    assert outcome.status == "decided" and outcome.sequential is not None
    assert outcome.sequential.stop == "decided"
    (part,) = outcome.parts
    looks = PartLooks.of(part.detail)
    assert looks is not None and looks.stop == "decided" and looks.active
    # Each look came after a whole batch; the last one decided the gate, none before it.
    assert [look.bought for look in looks.looks] == [64 * k for k in range(1, len(looks.looks) + 1)]
    assert [v for _, v in looked] == ["inconclusive"] * (len(looked) - 1) + ["pass"]
    bought = looks.looks[-1].bought
    assert bought < REQUESTS and len(_asked(calls)) == bought
    assert part.status == "decided" and part.detail["counts"]["pending"] == REQUESTS - bought
    # The gates read again: the anytime-valid interval, the stop and what it saved.
    report = ws.audits.gates(outcome.audit_id)
    assert report.sequential is not None
    assert (report.sequential.bought, report.sequential.planned) == (bought, REQUESTS)
    (gate,) = report.results
    assert gate.verdict == "pass" and gate.method.startswith("anytime-valid")
    assert gate.ci_high is not None and gate.ci_high < 95
    # The last look is the part's analysis as it stands (nothing was bought after it).
    numbers = ws.analysis.analyze(part.run_id or "").numbers[FIGURE]
    assert looks.looks[-1].numbers[FIGURE]["value"] == pytest.approx(numbers["value"])
    assert looks.looks[-1].numbers[FIGURE]["se"] == pytest.approx(numbers["se"])
    written = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert written["scope"]["sequential"]["bought"] == bought
    assert "stopped early (every gate decided)" in written["gates"]["heading"]

    # Run again until decided: already decided, nothing bought.
    again = _run(ws, path, until_decided=True, batches=BATCHES)
    assert again.status == "decided" and len(_asked(calls)) == bought

    # Run without it: the rest of the design, in the same order, read as the last look of the
    # same spending plan (never the fixed interval at the full level: a second chance to err).
    whole = _run(ws, path)
    assert whole.status == "complete"
    view = ws.runs.view(part.run_id or "")
    prompt_of = {t.key: t.payload["prompt"] for t in view.trials}
    from diptych.core.engine.purchase import purchase_order  # the order the run was bought in

    order = [prompt_of[k] for k in purchase_order(list(prompt_of), looks.order_seed)]
    assert _asked(calls) == order
    after = ws.audits.gates(whole.audit_id)
    (read,) = after.results
    assert read.method.startswith("anytime-valid") and read.verdict == "pass"
    kept = PartLooks.of(whole.parts[0].detail)
    assert kept is not None and kept.active and kept.looks[:-1] == looks.looks
    last = kept.looks[-1]
    assert last.complete and last.bought == REQUESTS and kept.stop == "complete"
    numbers = ws.analysis.analyze(whole.parts[0].run_id or "").numbers[FIGURE]
    assert last.numbers[FIGURE]["value"] == pytest.approx(numbers["value"])
    assert read.value == pytest.approx(numbers["value"])
    assert after.sequential is not None and not after.sequential.early
    assert after.sequential.sentence().startswith(
        f"The audit was looked at {len(kept.looks)} times, the last at its complete design"
    )


def test_a_gate_on_its_limit_buys_the_design_and_stays_undecided(
    tmp_path: Path, ws: Workspace, calls: Path
) -> None:
    value = _value(tmp_path)
    path = _write(tmp_path / "a.yaml", calls, [_gate(below=value, on_inconclusive="warn")])
    outcome = _run(ws, path, until_decided=True, batches=BATCHES)
    assert outcome.status == "complete" and outcome.sequential is not None
    assert outcome.sequential.stop == "complete"
    assert len(_asked(calls)) == REQUESTS
    (gate,) = ws.audits.gates(outcome.audit_id).results
    assert gate.verdict == "inconclusive"
    assert gate.value == pytest.approx(value)
    assert gate.note == (
        f"not decided after {BATCHES} looks ({REQUESTS} of {REQUESTS} requests, 100.0%): the "
        "design is complete"
    )


def test_the_budget_stops_it_and_its_gates_read_the_looks_so_far(
    tmp_path: Path, ws: Workspace, calls: Path
) -> None:
    value = _value(tmp_path)
    path = _write(tmp_path / "a.yaml", calls, [_gate(below=value)], budget={"max_cost": 0.9})
    data = yaml.safe_load(path.read_text())
    data["models"]["target"]["params"]["price_per_call"] = 0.01
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    outcome = _run(ws, path, until_decided=True, batches=BATCHES)
    assert outcome.status == "over-budget" and outcome.sequential is not None
    assert outcome.sequential.stop == "max-cost"
    # $0.01 a request under $0.90: the first batch (64) and 26 of the second.
    assert len(_asked(calls)) == 90 and outcome.spent == pytest.approx(0.9)
    assert outcome.report is not None
    report = ws.audits.gates(outcome.audit_id)
    assert report.sequential is not None and report.sequential.stop == "max-cost"
    assert report.results[0].verdict == "inconclusive"


def test_only_the_gated_parts_are_bought_and_gates_are_needed(
    tmp_path: Path, ws: Workspace, calls: Path
) -> None:
    other = {"probe": "pst-text", "name": "other", "models": ["target"],
             "params": {"masculine": MASC[:2], "feminine": FEM[:2]}}  # fmt: skip
    path = _write(tmp_path / "a.yaml", calls, [_gate(below=95)])
    data = yaml.safe_load(path.read_text())
    data["probes"].append(other)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    outcome = _run(ws, path, until_decided=True, batches=BATCHES)
    assert outcome.skipped == ["other"]
    # The run and its record (``diptych audit list``) name the same parts not run.
    assert ws.audits.not_run(ws.audits.get(outcome.audit_id)) == outcome.skipped
    assert [p.name for p in outcome.parts] == ["pst-text"]
    assert len(ws.runs.list()) == 1
    ungated = _write(tmp_path / "b.yaml", calls, [])
    data = yaml.safe_load(ungated.read_text())
    del data["gates"]
    ungated.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(UsageError, match="this audit states none"):
        _run(ws, ungated, until_decided=True)


def test_one_prompt_a_look_decides_nothing_before_three_identities_a_side(
    tmp_path: Path, ws: Workspace, calls: Path
) -> None:
    # 3 × 3 scenes, both orders, both people: 36 prompts in 36 batches, a look after each. The
    # first looks hold one identity of a side: they used to stop the audit with "the figure
    # has no interval", and every rerun with it, the audit left running.
    path = planted_audit(
        tmp_path / "a.yaml", [_gate(below=95)], MASC[:3], FEM[:3], name="seq36", seed=11,
        model_params={"calls_log": str(calls), "max_concurrency": 1},
    )  # fmt: skip
    seen: list[tuple[int, str, float | None]] = []
    outcome = _run(
        ws, path, until_decided=True, batches=36,
        on_look=lambda k, n, r: seen.append((k, r.results[0].verdict, r.results[0].ci_high)),
    )  # fmt: skip
    assert outcome.status in ("decided", "complete") and outcome.report is not None
    (part,) = outcome.parts
    looks = PartLooks.of(part.detail)
    assert looks is not None and [look.bought for look in looks.looks][:3] == [1, 2, 3]
    for look, (_, verdict, high) in zip(looks.looks, seen, strict=True):
        units = look.numbers[FIGURE].get("units") or {}
        if min(units.values(), default=0) < 3:
            # Too few identities of a side: no interval, nothing decided.
            assert verdict == "inconclusive" and (high is None or not math.isfinite(high))
    assert ws.audits.get(outcome.audit_id).status == outcome.status


def test_an_audit_stuck_on_a_look_without_an_interval_resumes(
    tmp_path: Path, ws: Workspace, calls: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import diptych.core.workspace.gates as gates_module
    from diptych.core.errors import InputFileError

    path = planted_audit(
        tmp_path / "a.yaml", [_gate(below=95)], MASC[:3], FEM[:3], name="stuck", seed=11,
        model_params={"calls_log": str(calls), "max_concurrency": 1},
    )  # fmt: skip

    def stuck(*args: Any, **kwargs: Any) -> str:
        return f"gate '{FIGURE} below 95': the figure has no interval (one feminine identity only)"

    # The earlier version: the first look has no interval and the gates raise.
    monkeypatch.setattr(gates_module, "_looked_figure", stuck)
    with pytest.raises(InputFileError, match="has no interval"):
        _run(ws, path, until_decided=True, batches=36)
    (left,) = [a for a in ws.audits.list() if a.name == "stuck"]
    # Stopped by the error, recorded as its run was left: never "running" in a process that
    # lives on (the terminal app's) with nothing running it.
    assert left.status == "interrupted"
    monkeypatch.undo()
    again = _run(ws, path, until_decided=True, batches=36)
    assert again.audit_id == left.id and again.status in ("decided", "complete")
    assert ws.audits.get(again.audit_id).status == again.status
    looks = PartLooks.of(again.parts[0].detail)
    # The look the stuck run took is kept; the resume went on from it.
    assert looks is not None and looks.looks[0].bought == 1 and len(looks.looks) > 1

"""The Workspace: the one road into the core, driven here on scripted models."""

from __future__ import annotations

import asyncio
import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.stopped_runs import stopped_left_running

import diptych
from diptych.core.errors import RunNotFoundError, StoreError, UsageError
from diptych.core.workspace import RunOptions, RunRecord, Workspace
from diptych.core.workspace.base import Namespace

SCRIPTED = {"n": 12}
# carpenter × editor, both aspects (see tests/cli/test_annotate_import.py): the occupation
# aspect has 6 single images of one person each.
SMALL = {"masculine": ["carpenter"], "feminine": ["editor"]}
OTHER = {"masculine": "feminine", "feminine": "masculine"}


#: The Workspace's namespaces, one concern each (``ws.runs.list()``, ``ws.labels.save(...)``).
NAMESPACES = (
    "runs",
    "labels",
    "review",
    "measurement",
    "annotators",
    "analysis",
    "audits",
    "findings",
    "lists",
    "preferences",
    "plugins",
)


def test_the_workspace_is_small_and_its_steps_live_in_namespaces(tmp_path: Path) -> None:
    import inspect

    top = inspect.getsource(Workspace)
    assert top.count("def ") < 15, "the top class keeps open/close and a few essentials"
    with Workspace.open(tmp_path / "ws") as ws:
        for name in NAMESPACES:
            namespace = getattr(ws, name)
            doc = type(namespace).__doc__ or ""
            assert doc.strip() and doc != Namespace.__doc__, f"ws.{name} says what it is"
            public = [m for m in vars(type(namespace)) if not m.startswith("_")]
            assert public and not hasattr(Workspace, public[0]), f"ws.{name}.{public[0]}"
    # The plugins need no open workspace.
    assert "pst" in Workspace.plugins.registry().probes


class Events:
    """A Reporter that remembers what the engine told it."""

    def __init__(self) -> None:
        self.started: tuple[int, int, int] | None = None
        self.finished = 0
        self.first_trial = asyncio.Event()

    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None:
        self.started = (total, cached, to_run)

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        self.finished += 1
        if self.finished >= 3:
            self.first_trial.set()

    def note(self, text: str) -> None:
        pass

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None:
        pass


@pytest.fixture
def ws(tmp_path: Path, scripted: None) -> Iterator[Workspace]:
    with Workspace.open(tmp_path / "ws") as workspace:
        yield workspace


def test_exported_from_the_package(tmp_path: Path) -> None:
    assert diptych.Workspace is Workspace
    with pytest.raises(StoreError, match="no diptych workspace"):
        Workspace.open(tmp_path / "none", create=False)
    assert not (tmp_path / "none").exists()


def test_default_path_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPTYCH_STORE", str(tmp_path / "from-env"))
    with Workspace.open() as workspace:
        assert workspace.path == tmp_path / "from-env"
    assert (tmp_path / "from-env" / "diptych.db").is_file()


def test_plan_run_analyze_report(ws: Workspace, tmp_path: Path) -> None:
    model = ("scripted-likelihood", {"price_per_call": 0.5})
    estimate = ws.runs.plan("scripted", [model], params=SCRIPTED)
    assert (estimate.planned, estimate.cached, estimate.to_run) == (12, 0, 12)
    assert estimate.cost == pytest.approx(6.0)
    assert ws.runs.list() == []  # planning stores nothing

    record = ws.runs.run_sync("scripted", [model], params=["n=12"])
    assert record.status == "complete"
    assert ws.runs.counts(record.id) == {"done": 12, "refused": 0, "failed": 0, "pending": 0}
    (summary,) = ws.runs.list()
    assert summary.run.id == record.id and summary.counts["done"] == 12
    detail = ws.runs.show(record.id)
    assert detail.per_model == {record.models[0]["model_id"]: {"done": 12}}
    assert detail.failures == []

    result = ws.analysis.analyze(record.id)
    (table,) = result.tables
    assert dict(zip(table.columns, table.rows[0], strict=True))["done"] == 12
    path = ws.analysis.report(record.id, tmp_path / "report")
    assert path == tmp_path / "report" / "report.md"
    stored = json.loads((tmp_path / "report" / "report.json").read_text())
    assert stored["run"] == record.id and stored["counts"]["done"] == 12

    again = ws.runs.plan("scripted", [model], params=SCRIPTED)
    assert (again.cached, again.to_run, again.cost) == (12, 0, 0.0)
    rows = tmp_path / "rows.jsonl"
    assert ws.runs.export(record.id, "jsonl", rows) == 12
    assert {json.loads(line)["status"] for line in rows.read_text().splitlines()} == {"done"}


def test_resume_after_a_cancelled_run_finds_everything_stored(ws: Workspace) -> None:
    model = ("scripted-likelihood", {"latency": 0.02, "max_concurrency": 2})
    params = {"n": 40}
    events = Events()

    async def stop_early() -> None:
        task = asyncio.create_task(ws.runs.run("scripted", [model], params=params, reporter=events))
        await events.first_trial.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(stop_early())
    (summary,) = ws.runs.list()
    stopped = summary.run
    assert stopped.status == "interrupted"
    before = ws.runs.counts(stopped.id)
    assert before["done"] >= 3 and before["pending"] > 0

    resumed_events = Events()
    record = ws.runs.resume_sync(stopped.id[:12], reporter=resumed_events)
    assert record.id == stopped.id and record.status == "complete"
    assert resumed_events.started == (40, before["done"], before["pending"])
    assert ws.runs.counts(record.id)["done"] == 40


def test_finish_a_run_stopped_while_cleaning_up(ws: Workspace) -> None:
    events = Events()
    # A stop that lands during the engine's own clean-up leaves the run stored as running.
    summary = stopped_left_running(ws, events, events.first_trial)
    assert ws.runs.get(summary.run.id).status == "running"
    finished = ws.runs.finish(summary.run.id)
    assert finished.status == "interrupted"
    assert ws.runs.get(summary.run.id).status == "interrupted"


def test_a_run_id_prefix_resolves_unless_it_is_ambiguous(ws: Workspace) -> None:
    first = ws.runs.run_sync("scripted", ["scripted-likelihood"], params={"n": 2})
    second = ws.runs.run_sync(
        "scripted", ["scripted-likelihood"], params={"n": 2}, options=RunOptions(new=True)
    )
    assert first.id != second.id and second.id.startswith(first.id)
    # The whole id of the first is a prefix of the second's: the exact match wins.
    assert ws.runs.get(first.id).id == first.id
    assert ws.runs.get(second.id[: len(first.id) + 2]).id == second.id
    with pytest.raises(UsageError) as ambiguous:
        ws.runs.get("scripted-")
    assert first.id in str(ambiguous.value) and second.id in str(ambiguous.value)
    with pytest.raises(RunNotFoundError, match="no run 'nothing-'"):
        ws.runs.get("nothing-")


# --- labels, compare (pst on scripted images) -------------------------------------------------


def pst_run(ws: Workspace, *, new: bool = False) -> RunRecord:
    return ws.runs.run_sync(
        "pst", ["scripted-images"], params=SMALL, options=RunOptions(new=new) if new else None
    )


def label_file(ws: Workspace, run: RunRecord, path: Path, flip: bool = False) -> list[dict]:
    """The run's template filled in: every person labelled with their stereotype (or its
    opposite), returned as rows and written to ``path``."""
    template = path.with_suffix(".template.csv")
    written = ws.labels.template(run.id, template)
    with template.open(newline="", encoding="utf-8") as handle:
        rows: list[dict[str, Any]] = list(csv.DictReader(handle))
    assert written.rows == len(rows) > 0
    for row in rows:
        row["label"] = OTHER[row["stereotype"]] if flip else row["stereotype"]
        row["annotator"] = "crowd"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows


def sts(ws: Workspace, run: RunRecord, setting: str) -> dict[str, Any]:
    return ws.analysis.analyze(run.id).numbers[f"occupation: STS {setting}"]


def test_import_labels_then_one_human_label_changes_the_sts(ws: Workspace, tmp_path: Path) -> None:
    run = pst_run(ws)
    rows = label_file(ws, run, tmp_path / "all.csv")
    # Leave one single-image person out of the file: a reviewer labels them below.
    left_out = next(r for r in rows if r["setting"] == "single" and r["image"].startswith("occ"))
    kept = [r for r in rows if r is not left_out]
    partial = tmp_path / "partial.csv"
    with partial.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(kept)

    report = ws.labels.import_csv(run.id, partial)
    assert report.problems == []
    assert len(report.matched) == len(kept) and report.annotators == ["human:crowd"]
    assert [(s.image, s.position) for s in report.unlabelled] == [
        (left_out["image"], left_out["position"])
    ]
    before = sts(ws, run, "single")
    assert before["value"] == pytest.approx(100.0)

    subject = report.unlabelled[0]
    against = OTHER[left_out["stereotype"]]
    ws.labels.save(
        run.id, subject.trial_idx, subject.position, against, reviewer="alice", note="checked"
    )
    after = sts(ws, run, "single")
    assert after["n"] == before["n"] + 1
    assert after["value"] == pytest.approx(100.0 * (before["n"] - 1) / after["n"])
    stored = [lab for lab in ws.runs.view(run.id).labels("human:alice")]
    assert [(lab.label, lab.detail) for lab in stored] == [(against, {"note": "checked"})]
    assert ws.review.refresh_flags(run.id) == len(ws.review.flags(run.id))


def test_compare_two_runs(ws: Workspace, tmp_path: Path) -> None:
    a = pst_run(ws)
    b = pst_run(ws, new=True)
    label_file(ws, a, tmp_path / "a.csv")
    label_file(ws, b, tmp_path / "b.csv", flip=True)
    assert ws.labels.import_csv(a.id, tmp_path / "a.csv").problems == []
    assert ws.labels.import_csv(b.id, tmp_path / "b.csv").problems == []

    result = ws.analysis.compare(a.id, b.id, n_boot=50, n_perm=50, seed=1)
    comparisons = {c["aspect"]: c for c in result.data["comparisons"]}
    single = comparisons["occupation"]["comparison"].overall["single"]
    assert (single.a.value, single.b.value) == (pytest.approx(100.0), pytest.approx(-100.0))
    assert single.difference == pytest.approx(-200.0)
    with pytest.raises(UsageError):
        ws.analysis.compare(a.id[:4], b.id)  # the prefix names both runs


def test_an_auditors_rejections_of_agent_proposals_are_recorded(ws: Workspace) -> None:
    assert ws.lists.rejections() == []
    assert ws.lists.reject(
        "pair", " welder |  doula", source="agent session s1, r0p2", reason="implausible"
    )
    # The same proposal of the same session again is recorded once; another session's is new.
    assert not ws.lists.reject("pair", "welder | doula", source="agent session s1, r0p2")
    assert ws.lists.reject("pair", "welder | doula", source="agent session s2, r0p0")
    first, second = ws.lists.rejections()
    assert (first.kind, first.what, first.reason) == ("pair", "welder | doula", "implausible")
    assert second.source == "agent session s2, r0p0" and first.rejected_at <= second.rejected_at
    with pytest.raises(ValueError):
        ws.lists.reject("pair", "  ")


def test_the_workspaces_own_identity_and_intervention_lists(ws: Workspace) -> None:
    assert ws.lists.identities() == [] and ws.lists.identity_params() == {}
    assert ws.lists.accept_pair("astronaut", " florist ", source="agent s1 r0p0")
    assert ws.lists.accept_pair("welder", "florist")
    # The same pair again (any case) is not listed twice.
    assert not ws.lists.accept_pair("Astronaut", "Florist")
    with pytest.raises(ValueError):
        ws.lists.accept_pair("nurse", "nurse")
    pairs = ws.lists.identities()
    assert [(p.masculine, p.feminine, p.source) for p in pairs] == [
        ("astronaut", "florist", "agent s1 r0p0"),
        ("welder", "florist", ""),
    ]
    params = ws.lists.identity_params()
    assert params == {
        "masculine": ["astronaut", "welder"],
        "feminine": ["florist"],
        "new_identities": True,
    }
    # The pst-text probe takes them as they are: 2 × 1 pairs in both orders, each person of a
    # scene read once (likelihood mode), one sample each.
    estimate = ws.runs.plan(
        "pst-text", ["scripted-likelihood"], params={**params, "setting": "paired"}
    )
    assert estimate.planned == 2 * 2 * 2

    template = "Be fair. " + "The {id1} and the {id2} ..."
    assert ws.lists.accept_intervention(template, kind="prefix", text="Be fair.", score={"p": 0.01})
    assert not ws.lists.accept_intervention(template)
    [kept] = ws.lists.interventions()
    assert (kept.template, kept.kind, kept.score) == (template, "prefix", {"p": 0.01})

    # Both lists survive reopening the workspace.
    path = ws.path
    ws.close()
    with Workspace.open(path) as again:
        assert len(again.lists.identities()) == 2
        assert len(again.lists.interventions()) == 1

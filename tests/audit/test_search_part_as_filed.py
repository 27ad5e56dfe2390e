"""An audit's searches run as its file says: the audit's seed reaches every search (and a
changed seed runs the search again), ``budget.max_requests`` bounds a search by what the parts
before it leave, and a ``--set`` that gives the file's own value changes nothing."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from diptych.agent.audit_search import identity_settings, run_search
from diptych.audit import Part, plan_audit, run_audit
from diptych.audit.runner import AuditOutcome
from diptych.core.workspace import Workspace

PST_TEXT = {
    "mode": "likelihood",
    "setting": "paired",
    "masculine": ["carpenter", "driver"],
    "feminine": ["nurse", "editor"],
    # Its own seed: a change of the audit's seed reaches the searches alone.
    "seed": 0,
}


def write(path: Path, **budget: int) -> Path:
    data = {
        "audit": 1,
        "name": "as-filed",
        "seed": 7,
        "models": {
            "target": {"plugin": "scripted-likelihood"},
            "agent": {"plugin": "scripted-chat"},
        },
        "probes": [{"probe": "pst-text", "models": ["target"], "params": PST_TEXT}],
        "searches": [
            {
                "name": "identities",
                "kind": "identities",
                "target": "target",
                "agent_model": "agent",
                "per_round": 2,
                "max_requests": 50,
            },
            {
                "name": "mitigations",
                "kind": "mitigations",
                "agent_model": "agent",
                "baseline": "pst-text",
            },
        ],  # fmt: skip
        "budget": budget,
        "report": {"formats": ["json"]},
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    with Workspace.open(tmp_path / "ws") as workspace:
        yield workspace


class Searches:
    """A search runner that notes what each search was handed and says it asked 4 trials."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, int | None, int | None]] = []

    def __call__(
        self,
        ws: Workspace,
        part: Part,
        models: dict[str, tuple[str, dict[str, Any]]],
        session: str,
        remaining: float | None,
        baseline_run: str | None,
        stop: threading.Event | None = None,
    ) -> dict[str, Any]:
        assert part.search is not None
        self.ran.append((part.name, part.search.max_requests, getattr(part, "seed", None)))
        return {"session": session, "stop_reason": "1 round done", "spent": 0.0, "trials": 4}


def run(ws: Workspace, path: Path, searches: Searches, **options: Any) -> AuditOutcome:
    return asyncio.run(
        run_audit(ws, path, searches=searches, out_dir=ws.path.parent / "rep", **options)
    )


def test_a_search_runs_under_what_the_budgets_requests_leave_it(
    ws: Workspace, tmp_path: Path
) -> None:
    probe = plan_audit(ws, write(tmp_path / "a.yaml")).parts[0].estimate
    assert probe is not None and probe.to_run > 0
    # Ten requests left after the probe part: the identity search (its own 50) gets 10, the
    # mitigation search after it (none of its own) what the first's 4 leave.
    file = write(tmp_path / "a.yaml", max_requests=probe.to_run + 10)
    searches = Searches()
    assert run(ws, file, searches).status == "complete"
    assert searches.ran == [("identities", 10, 7), ("mitigations", 6, 7)]
    # Without a budget of requests each search keeps its own max_requests.
    other = Searches()
    run(ws, write(tmp_path / "b.yaml"), other, overrides={"name": "unbounded"})
    assert other.ran == [("identities", 50, 7), ("mitigations", None, 7)]


def test_the_audits_seed_reaches_its_searches_and_a_changed_seed_runs_them_again(
    ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = write(tmp_path / "a.yaml")
    plan = plan_audit(ws, file)
    identities, mitigations = (p.part for p in plan.parts if p.part.search is not None)
    assert identities.search is not None and identities.seed == 7
    assert identity_settings(identities.search, seed=identities.seed).seed == 7
    # The mitigation search is handed the seed, and its max_requests, too.
    from diptych.agent import session

    handed: dict[str, Any] = {}

    def search_mitigations(*args: Any, **kwargs: Any) -> Any:
        handed.update(kwargs)
        raise RuntimeError("handed")

    monkeypatch.setattr(session, "search_mitigations", search_mitigations)
    models = {"agent": ("scripted-chat", {}), "target": ("scripted-likelihood", {})}
    with pytest.raises(RuntimeError, match="handed"):
        run_search(ws, mitigations, models, "s", None, "run-1")
    assert handed["seed"] == 7 and handed["max_requests"] is None

    searches = Searches()
    first = run(ws, file, searches)
    assert [name for name, *_ in searches.ran] == ["identities", "mitigations"]
    # Run again: finished before, not run again.
    assert run(ws, file, searches).audit_id == first.audit_id
    assert len(searches.ran) == 2
    # Another seed (the probe part keeps its own): the searches run again, with it.
    again = run(ws, file, searches, overrides={"seed": 8})
    assert again.audit_id != first.audit_id
    assert searches.ran[2:] == [("identities", 50, 8), ("mitigations", None, 8)]


def test_a_set_that_gives_the_files_own_value_changes_nothing(
    ws: Workspace, tmp_path: Path
) -> None:
    file = write(tmp_path / "a.yaml")
    searches = Searches()
    first = run(ws, file, searches)
    same = run(ws, file, searches, overrides={"searches.0.per_round": 2, "seed": 7})
    assert same.audit_id == first.audit_id
    assert len(searches.ran) == 2  # not run again
    assert len(ws.audits.list()) == 1 and ws.audits.get(first.audit_id).overridden == {}
    # A value that changes a search is a record of its own, whose searches run again.
    other = run(ws, file, searches, overrides={"searches.0.per_round": 3})
    assert other.audit_id != first.audit_id
    assert [name for name, *_ in searches.ran[2:]] == ["identities", "mitigations"]

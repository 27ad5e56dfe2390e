"""A workspace with a user's run and two agent sessions' runs — one started from the Agent
screen (``tui-…``), one an audit's identity search (named short in listings, "identities
d96780"), which ended and saved its findings — and what ``diptych show`` says of an id."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call

#: The sessions, as the Agent screen and an audit's search name them.
TUI_SESSION = "tui-39e5377a"
AUDIT_SESSION = "audit-smollm2-offline-d9678019c4-identities"


def sessions_workspace(path: Path) -> dict[str, list[str]]:
    """The workspace at ``path``; the run ids of each session ("" for the user's own)."""
    made: dict[str, list[str]] = {"": [], TUI_SESSION: [], AUDIT_SESSION: []}
    with Workspace.open(path, create=True) as ws:
        mine = ws.runs.run_sync("pst-text", ["scripted-likelihood"], params={"setting": "paired"})
        made[""].append(mine.id)
        for session, names in ((TUI_SESSION, ("carpenter", "driver")), (AUDIT_SESSION, ("guard",))):
            with ws.runs.made_by(session):
                for masculine in names:
                    params = {"setting": "paired", "masculine": [masculine], "feminine": ["nurse"]}
                    run = ws.runs.run_sync("pst-text", ["scripted-likelihood"], params=params)
                    made[session].append(run.id)
        ws.findings.save(
            AUDIT_SESSION,
            {
                "kind": "identities",
                "decision": {"findings": 1, "text": "1 finding of 2 proposals scored"},
                "findings": [{"id": "p1"}, {"id": "p2"}],
                "rejected": 1,
                "runs": made[AUDIT_SESSION],
                "stop_reason": "1 round done",
            },
        )
    return made


def shown_by(capsys: pytest.CaptureFixture[str], store: Path, ref: str) -> str:
    """What ``diptych show REF`` prints; it must exit 0."""
    code, out = call(capsys, "--store", str(store), "show", ref)
    assert code == 0, f"diptych show {ref!r}: {out}"
    return out


def names_right(out: str, ref: str, made: dict[str, list[str]]) -> bool:
    """Whether ``show``'s first line names what ``ref`` was printed for: a run by its whole id,
    a session as an agent session with its runs."""
    first = out.splitlines()[0]
    for session, runs in made.items():
        if session and first.startswith(f"agent session {session}"):
            return all(r in out for r in runs)
    return any(first.startswith(r) and ref in r for runs in made.values() for r in runs)

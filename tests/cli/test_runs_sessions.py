"""``diptych runs`` with agent sessions: the runs a session made stand behind one row of the
session, their outcomes added up; ``--all`` lists them under it; ``--json`` names each run's
session; a run the session only found again stays the user's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.agent_cli import call

from diptych.core.workspace import Workspace

SESSION = "id-test0001"


def _workspace(path: Path, session: str = SESSION) -> tuple[str, list[str], int]:
    """A user's run, then a session that finds that run again and starts three of its own;
    the user's run id, the session's run ids and their trials."""
    with Workspace.open(path) as ws:
        mine = ws.runs.run_sync("pst-text", ["scripted-likelihood"], params={"setting": "paired"})
        made = []
        with ws.runs.made_by(session):
            again = ws.runs.run_sync(
                "pst-text", ["scripted-likelihood"], params={"setting": "paired"}
            )
            assert again.id == mine.id
            for masculine in ("carpenter", "driver", "farmer"):
                params = {"setting": "paired", "masculine": [masculine], "feminine": ["nurse"]}
                made.append(ws.runs.run_sync("pst-text", ["scripted-likelihood"], params=params))
        # Outside the block a run is the user's again.
        later = ws.runs.run_sync("pst-text", ["scripted-likelihood"], params={"setting": "single"})
        listed = {s.run.id: s.session for s in ws.runs.list()}
        assert listed == {
            mine.id: None,
            later.id: None,
            **{r.id: session for r in made},
        }
        return mine.id, [r.id for r in made], sum(r.n_trials for r in made)


def test_a_sessions_runs_stand_behind_its_row(
    scripted: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    ws = tmp_path / "ws"
    mine, made, trials = _workspace(ws)

    code, out, _ = call(capsys, "--store", str(ws), "runs")
    assert code == 0
    assert mine in out and not any(r in out for r in made)
    lines = out.splitlines()
    [at] = [i for i, line in enumerate(lines) if line.strip().startswith(SESSION)]
    row = lines[at]
    # The count under the session's id, which alone sets the run column's width.
    assert lines[at + 1].strip() == "(3 runs)"
    # The session's row adds up its runs: every trial done, none pending.
    cells = row.split()
    assert cells[-7:-2] == [str(trials), str(trials), "0", "0", "0"], row
    assert "3 runs of 1 agent session behind the session rows" in out

    code, out, _ = call(capsys, "--store", str(ws), "runs", "--all")
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(SESSION))
    # Each of the session's runs, indented, right under its row (and its count).
    assert [line.split()[0] for line in lines[at + 2 : at + 5]] == made
    depth = len(lines[at]) - len(lines[at].lstrip())
    assert all(line.startswith(" " * (depth + 2) + "pst-text-") for line in lines[at + 2 : at + 5])
    assert "behind the session rows" not in out

    code, out, _ = call(capsys, "--store", str(ws), "runs", "--json")
    listed = json.loads(out)
    sessions = {r["id"]: r["session"] for r in listed if r["kind"] == "run"}
    assert sessions[mine] is None and all(sessions[r] == SESSION for r in made)
    # Then the session, its runs counted as its row counts them.
    (session,) = [r for r in listed if r["kind"] == "session"]
    assert (session["id"], session["runs"], session["trials"]) == (SESSION, made, trials)


AUDIT_SEARCH = "audit-smollm2-offline-5c3667abcd-identities"


@pytest.mark.parametrize("columns", [60, 80])
def test_an_audit_searchs_row_is_named_short_and_in_full_under_the_table(
    scripted: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    columns: int,
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    ws = tmp_path / "ws"
    _, _, trials = _workspace(ws, AUDIT_SEARCH)
    code, out, _ = call(capsys, "--store", str(ws), "runs")
    assert code == 0
    lines = out.splitlines()
    assert all(len(line) <= columns for line in lines), out
    # Its name whole on its line (at 60 columns the rows stand one under another).
    assert [ln.split()[:2] for ln in lines].count(["identities", "5c3667"]) == 1, out
    # Its trials and their outcomes on one line: not folded a word at a time beside a long id.
    assert any(f"{trials:,}: {trials:,} done" in ln for ln in lines), out
    # The id the agent's commands take, whole, once.
    assert out.count(AUDIT_SEARCH) == 1
    assert f"identities 5c3667: session {AUDIT_SEARCH}" in " ".join(out.split())


def test_an_empty_workspace_says_how_to_start_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    # A dry run plans and leaves nothing: the workspace is still not there.
    code, out, err = call(capsys, "--store", str(ws), "run", "pst-text", "-m", "smollm2",
                          "--dry-run")  # fmt: skip
    assert code == 0, out + err
    assert not ws.exists()
    Workspace.open(ws, create=True).close()
    code, out, err = call(capsys, "--store", str(ws), "runs")
    assert code == 0, err
    assert out.strip() == (
        f"no runs in {ws} yet; start one with diptych run PROBE -m MODEL "
        "(diptych plugins lists them)"
    )
    code, out, err = call(capsys, "--store", str(ws), "runs", "--json")
    assert code == 0 and out.strip() == "[]"

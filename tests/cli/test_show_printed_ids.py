"""Every id ``diptych runs`` prints — a run's, an agent session's short label ("identities
d96780", "tui-39e5377a") and the session's whole id named under the table — is taken by
``diptych show``, which shows that run or that session (its kind, status, findings and runs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.session_ids import (
    AUDIT_SESSION,
    TUI_SESSION,
    names_right,
    sessions_workspace,
    shown_by,
)

#: A session's row's count of runs, under its name.
COUNT = re.compile(r"\(\d+ runs?\)")


def printed_ids(out: str) -> list[str]:
    """The names the runs listing gives its rows (a session's run count left out), as a table's
    first column or, on a terminal too narrow for one, as each record's first line; and the
    sessions named in full under it."""
    lines = out.splitlines()
    ids = []
    head = next((i for i, ln in enumerate(lines) if re.match(r"\s*run\s+probe\b", ln)), None)
    if head is not None:
        start, end = lines[head].index("run"), lines[head].index("probe")
        for line in lines[head + 2 :]:
            if not line.strip():
                break
            cell = line[start:end].strip()
            if cell and not COUNT.fullmatch(cell):
                ids.append(cell)
    else:
        for i, line in enumerate(lines):
            if re.match(r"\s+probe\s", line):
                name = lines[i - 2] if COUNT.fullmatch(lines[i - 1].strip()) else lines[i - 1]
                ids.append(name.strip())
    for label, whole in re.findall(r"(\S+ [0-9a-f]{6}): session (\S+)", " ".join(out.split())):
        ids += [label, whole]
    return ids


@pytest.mark.parametrize("columns", [60, 80, 160])
@pytest.mark.parametrize("every", [False, True], ids=["runs", "runs --all"])
def test_every_id_runs_prints_is_taken_by_show(
    scripted: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    columns: int,
    every: bool,
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    store = tmp_path / "ws"
    made = sessions_workspace(store)
    code, out = call(capsys, "--store", str(store), "runs", *(["--all"] if every else []))
    assert code == 0, out
    ids = printed_ids(out)
    # Every run of the user's and each session is there, by one name or another.
    assert made[""][0] in ids and TUI_SESSION in ids, ids
    assert ("identities d96780" in ids) == (columns < 120), ids
    assert AUDIT_SESSION in ids
    if every:
        assert all(r in ids for runs in made.values() for r in runs), ids
    for ref in ids:
        assert names_right(shown_by(capsys, store, ref), ref, made), ref


def test_show_of_an_audit_search_names_its_kind_status_findings_and_runs(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "ws"
    made = sessions_workspace(store)
    # Its whole id, its label, its hash alone and a unique start of its id.
    outs = {shown_by(capsys, store, ref) for ref in
            (AUDIT_SESSION, "identities d96780", "d96780", "audit-smollm2")}  # fmt: skip
    (out,) = outs
    assert out.splitlines()[:4] == [
        f"agent session {AUDIT_SESSION} (identities d96780)",
        "kind: identity search, part identities of audit smollm2-offline-d9678019c4",
        "status: ended: 1 round done",
        "proposals: 1 finding of 2 proposals scored; 1 rejected",
    ]
    (run,) = made[AUDIT_SESSION]
    assert f"1 run, 4 trials ('diptych show RUN' shows one):\n  {run}  pst-text  complete" in out
    # A session that saved nothing yet says so; one named by no id is refused as before.
    tui = shown_by(capsys, store, TUI_SESSION)
    assert "status: not ended" in tui and "proposals:" not in tui
    code, said = call(capsys, "--store", str(store), "show", "d00000")
    assert code != 0 and "no run 'd00000'" in said

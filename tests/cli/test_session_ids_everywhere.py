"""Every id ``diptych runs`` prints is taken by every command that takes a run: a run's does the
command's work, and an agent session's (its id, its row's label, its audit's hash) given to
``export``, ``report`` or ``resume`` is refused in one line, exit 2, that names the commands doing
that work for a session — never a traceback, never "no run"."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.session_ids import AUDIT_SESSION, TUI_SESSION, sessions_workspace

#: Every form of the audit's search a listing prints or a user types from one.
SEARCH_FORMS = (AUDIT_SESSION, "identities d96780", "d96780", "d9678019c4")

#: What each command says it does for the audit's search (recorded nowhere here: no audit
#: record, so its file is not known) and for the Agent screen's session, after "not a run: ".
SAID = {
    ("export", "search"): "'diptych show {ref}' lists its 1 run; export one by its id, or the "
    "audit's evidence with 'diptych export smollm2-offline-d9678019c4 --bundle FILE'",
    ("report", "search"): "its findings are in that audit's report ('diptych audit run' on "
    "its file writes it) and 'diptych show {ref}' lists them",
    ("resume", "search"): "'diptych audit run' on its file continues the audit, its search "
    "included",
    ("export", "tui"): "'diptych show {ref}' lists its 2 runs; export one by its id",
    ("report", "tui"): "'diptych show {ref}' lists its findings and its 2 runs; "
    "'diptych report RUN' reports one of them",
    ("resume", "tui"): "'diptych agent identities' (or 'mitigate RUN') with the options it "
    f"started with and '--session {TUI_SESSION}' resumes it",
}


def _args(command: str, ref: str, tmp_path: Path) -> list[str]:
    if command == "report":
        return ["report", ref, "--out", str(tmp_path / "report"), "--format", "json"]
    return [command, ref]


@pytest.mark.parametrize("command", ["export", "report", "resume"])
def test_a_sessions_every_printed_id_is_refused_in_one_line_naming_what_does_it(
    scripted: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one line is one line, unwrapped
    store = tmp_path / "ws"
    sessions_workspace(store)
    cases = [*((ref, "search") for ref in SEARCH_FORMS), (TUI_SESSION, "tui"), ("tui-39e5", "tui")]
    for ref, kind in cases:
        code, out = call(capsys, "--store", str(store), *_args(command, ref, tmp_path))
        assert code == 2, (ref, out)
        head = (
            f"'{ref}' is the identities search of audit smollm2-offline-d9678019c4"
            if kind == "search"
            else f"'{ref}' is agent session {TUI_SESSION}"
        )
        # Shown by a name pasted as it is: the hash its row's label gives, or its id.
        said = SAID[command, kind].format(ref="d96780" if kind == "search" else TUI_SESSION)
        assert out == f"error: {head}, not a run: {said}\n", (ref, out)
    assert not (tmp_path / "report").exists()


def test_a_runs_id_still_does_each_commands_work(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "ws"
    made = sessions_workspace(store)
    mine = made[""][0]
    for ref in (mine, made[TUI_SESSION][0]):
        with Workspace.open(store) as ws:
            trials = sum(ws.runs.counts(ref).values())
        code, out = call(capsys, "--store", str(store), "export", ref)
        assert code == 0 and out.count(f'"run_id": "{ref}"') == trials, out[:300]
        assert len(out.splitlines()) == trials > 0
    code, out = call(capsys, "--store", str(store), *_args("report", mine, tmp_path))
    assert code == 0 and (tmp_path / "report" / "report.json").is_file(), out
    code, out = call(capsys, "--store", str(store), "resume", mine)
    assert code == 0, out

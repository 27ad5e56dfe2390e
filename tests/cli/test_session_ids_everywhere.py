"""Every id ``diptych runs`` prints is taken by every command that takes a run: a run's does the
command's work; an agent session's (its id, its row's label, its audit's hash) is exported as its
runs' trials, and given to ``report`` or ``resume`` is refused in one line, exit 2, that names the
commands doing that work for a session — never a traceback, never "no run"."""

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
    ("report", "search"): "its findings are in that audit's report ('diptych show {ref}' lists "
    "them); the audit writes it again: diptych audit run AUDIT_FILE",
    ("resume", "search"): "the audit continues, its search included: diptych audit run AUDIT_FILE",
    ("report", "tui"): "'diptych show {ref}' lists its findings and its 2 runs; "
    "'diptych report RUN' reports one of them",
    ("resume", "tui"): "'diptych agent identities' (or 'mitigate RUN') with the options it "
    f"started with and '--session {TUI_SESSION}' resumes it",
}


def _args(command: str, ref: str, tmp_path: Path) -> list[str]:
    if command == "report":
        return ["report", ref, "--out", str(tmp_path / "report"), "--format", "json"]
    return [command, ref]


@pytest.mark.parametrize("command", ["report", "resume"])
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
            else "'tui-39e5' is agent session " + TUI_SESSION
            if ref != TUI_SESSION
            else f"'{ref}' is an agent session"
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


def test_a_sessions_every_printed_id_exports_its_runs(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "ws"
    made = sessions_workspace(store)
    with Workspace.open(store) as ws:
        trials = {r: sum(ws.runs.counts(r).values()) for runs in made.values() for r in runs}
    forms = [*((ref, AUDIT_SESSION) for ref in SEARCH_FORMS), (TUI_SESSION, TUI_SESSION)]
    for ref, session in [*forms, ("tui-39e5", TUI_SESSION)]:
        runs = made[session]
        code, out = call(capsys, "--store", str(store), "export", ref)
        assert code == 0, (ref, out)
        assert len(out.splitlines()) == sum(trials[r] for r in runs) > 0, ref
        for run in runs:
            assert out.count(f'"run_id": "{run}"') == trials[run], (ref, run)
    written = tmp_path / "tui.csv"
    code, out = call(capsys, "--store", str(store), "export", "tui-39e5", "--format", "csv",
                     "--out", str(written))  # fmt: skip
    rows = sum(trials[r] for r in made[TUI_SESSION])
    assert code == 0, out
    assert (
        out
        == f"wrote {written}: {rows:,} rows, one per trial of the 2 runs of session {TUI_SESSION}\n"
    )
    # One header, then one line per trial of both runs.
    assert len(written.read_text(encoding="utf-8").splitlines()) == rows + 1


def test_a_recorded_audits_search_names_its_report_and_the_command_that_runs_it(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from diptych.agent import session
    from diptych.agent.memory import HashingEmbedder
    from tests.support.sequential_audits import FEM, MASC, planted_audit

    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.chdir(tmp_path)
    search = {"name": "identities", "kind": "identities", "target": "target",
              "agent_model": "agent", "rounds": 1, "per_round": 1, "patience": 0}  # fmt: skip
    models = {"target": {"plugin": "scripted-likelihood"}, "agent": {"plugin": "scripted-chat"}}
    file = planted_audit(tmp_path / "a b.yaml", [], MASC, FEM, name="found", seed=2,
                         models=models, searches=[search])  # fmt: skip
    store = tmp_path / "ws"
    code, out = call(capsys, "--store", str(store), "audit", "run", str(file), "--quiet",
                     "--out", str(tmp_path / "rep"))  # fmt: skip
    assert code == 0, out
    with Workspace.open(store) as ws:
        (audit,) = ws.audits.list()
    ref = audit.id[-10:-4]  # the start of its hash, as its search's row's label gives it
    again = f"diptych --store {store} audit run '{file}'"
    code, out = call(capsys, "--store", str(store), "report", ref)
    assert code == 2, out
    head = f"error: '{ref}' is the identities search of audit {audit.id}, not a run: "
    report = tmp_path / "rep" / "report.json"
    assert out == (
        f"{head}its findings are in that audit's report ({report}; 'diptych show {ref}' lists "
        f"them); the audit writes it again: {again}\n"
    )
    code, out = call(capsys, "--store", str(store), "resume", ref)
    assert code == 2, out
    assert out == f"{head}the audit continues, its search included: {again}\n"

"""An audit's agent search is never dropped silently: ``--until-decided`` keeps a search run
whole before (named as reused, its findings still in the report it rewrites), and declining to
buy the rest of a decided part says which parts did not run and the command that runs them."""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import Terminal, call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture(autouse=True)
def _run_from_its_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An audit run without --out writes audit-NAME/ where it is run from: the test's temp dir."""
    monkeypatch.chdir(tmp_path)


def _searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A gated pst-text part and an identity search on the scripted models, written out."""
    from diptych.agent import session
    from diptych.agent.memory import HashingEmbedder

    monkeypatch.setattr(session, "SentenceEmbedder", HashingEmbedder)
    monkeypatch.setenv("COLUMNS", "400")
    planted = {**dict.fromkeys(MASC, 0.2), **dict.fromkeys(FEM, 0.8)}
    target = {"plugin": "scripted-likelihood", "params": {"p_feminine": planted, "noise": 0.3}}
    search = {"name": "identities", "kind": "identities", "target": "target",
              "agent_model": "agent", "rounds": 1, "per_round": 1, "patience": 0}  # fmt: skip
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    path = planted_audit(
        tmp_path / "a.yaml", gates, MASC, FEM, name="kept", seed=2,
        models={"target": target, "agent": {"plugin": "scripted-chat"}}, searches=[search],
    )  # fmt: skip
    return str(path)


def _placebo_requests(capsys: pytest.CaptureFixture[str], ws: str, file: str) -> int:
    """The requests the search's placebo words take, as ``diptych audit check --json`` plans
    them."""
    code, out = call(capsys, "--store", ws, "audit", "check", file, "--json")
    assert code == 0, out
    (search,) = [p for p in json.loads(out)["parts"] if p["name"] == "identities"]
    return int(search["placebo"]["search"]["to_run"])


def _sessions(out: Path) -> list[str]:
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return [s["session"] for s in (data.get("agent_findings") or {}).get("sessions", [])]


def test_until_decided_keeps_a_search_run_whole_in_its_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    file, ws = _searched(tmp_path, monkeypatch), str(tmp_path / "ws")
    run = ["--store", ws, "audit", "run", file, "--quiet", "--out", str(tmp_path / "rep")]
    code, out = call(capsys, *run)
    assert code == 0, out
    with Workspace.open(ws) as opened:
        (audit,) = opened.audits.list()
    session = f"audit-{audit.id}-identities"
    assert _sessions(tmp_path / "rep") == [session]

    code, out = call(capsys, *run, "--until-decided", "--batches", "4")
    assert code == 0, out
    assert "not run (no gate reads them)" not in out, out
    assert "reused (complete before, in the report): identities" in out, out
    assert "part identities: finished before (session " in out, out
    # The report it rewrites (the one the record names) keeps the search and its findings.
    assert _sessions(tmp_path / "rep") == [session]
    data = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    assert data["scope"]["reused"] == ["identities"] and data["scope"]["not_run"] == []
    with Workspace.open(ws) as opened:
        (again,) = opened.audits.list()
        kept = again.part("identities")
        assert kept is not None and kept.status == "complete"


def test_declining_the_rest_of_a_decided_part_says_what_did_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    file, ws = _searched(tmp_path, monkeypatch), str(tmp_path / "ws")
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet", "--until-decided",
                     "--batches", "4")  # fmt: skip
    assert code == 0 and "not run (no gate reads them): identities" in out, out
    command = f"diptych --store {ws} audit run {file} --yes"
    said = f"not run: identities (the audit runs them once the rest is bought: {command})"

    monkeypatch.setattr("sys.stdin", Terminal(""))
    monkeypatch.setattr("typer.confirm", lambda text, **_: False)
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet")
    flat = " ".join(out.split())
    assert code == 0 and f"nothing bought; {said}" in flat, out
    # Asked first, as the Audit screen's ctrl+r asks: the search it would run after the rest,
    # its least the requests its placebo words take (as audit check plans them), unbounded.
    asked = (
        "Running the audit whole then runs identities, an identities search: at least "
        f"{_placebo_requests(capsys, ws, file):,} requests (its placebo words), then as many as "
        "its agent proposes, no max_requests bounding them."
    )
    assert flat.count(asked) == 1, out
    # A script without --yes: the same, in the line that says to pass it.
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet")
    assert code == 2 and said in " ".join(out.split()), out
    with Workspace.open(ws) as opened:
        (audit,) = opened.audits.list()
        assert audit.part("identities") is None


@pytest.mark.parametrize(
    "given",
    [
        ["--out", "my report"],
        ["--max-cost", "5"],
        ["--max-cost", "0.25"],
        ["--set", "models.target.params.noise=0.25"],
        ["--out", "r", "--max-cost", "5", "--set", "models.target.params.noise=0.25"],
    ],
    ids=["out", "max-cost", "max-cost-fraction", "set", "all"],
)
def test_the_declines_command_repeats_every_option_that_changes_what_it_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    given: list[str],
) -> None:  # fmt: skip
    file, ws = _searched(tmp_path, monkeypatch), str(tmp_path / "ws")
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet", "--until-decided",
                     "--batches", "4", *given)  # fmt: skip
    assert code == 0 and "not run (no gate reads them): identities" in out, out
    monkeypatch.setattr("sys.stdin", Terminal(""))
    monkeypatch.setattr("typer.confirm", lambda text, **_: False)
    code, out = call(capsys, "--store", ws, "audit", "run", file, "--quiet", *given)
    flat = " ".join(out.split())
    assert code == 0 and "nothing bought; not run: identities" in flat, out
    command = flat.split("once the rest is bought: ", 1)[1].removesuffix(")")
    # The --set fields first, as the audit records them, then --out (by its absolute path, as
    # the file is named) and --max-cost as typed; quoted for the shell.
    sets = [w for i, w in enumerate(given) if given[i - 1 : i] == ["--set"]]
    words = ["diptych", "--store", ws, "audit", "run", file]
    for field in sets:
        words += ["--set", field]
    if "--out" in given:
        words += ["--out", str(tmp_path / given[given.index("--out") + 1])]
    if "--max-cost" in given:
        words += ["--max-cost", given[given.index("--max-cost") + 1]]
    assert shlex.split(command) == [*words, "--yes"], command
    if "--out" in given and " " in given[given.index("--out") + 1]:
        assert f"--out '{tmp_path / 'my report'}'" in command

"""Flags given values no command can honour: each is refused in one line that says what to
give, before anything is bought or a session is started."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")

HUGE = str(10**12)
MANY_ROUNDS = (
    "error: invalid value for '--rounds': 1,000,000,000,000 is more rounds than a session runs "
    "(at most 1,000); give fewer, e.g. 5 (see 'diptych agent {command} --help')"
)
EMPTY_SESSION = (
    "error: --session is empty; give the id of the session to resume or name, or leave "
    "--session out to start a new one"
)


def _lines(out: str) -> list[str]:
    return out.strip().splitlines()


@pytest.mark.parametrize(
    "command",
    [["identities", "-m", "scripted-likelihood"], ["mitigate", "pst-text-0"]],
    ids=["identities", "mitigate"],
)
def test_agent_rounds_past_any_session_and_an_empty_session_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """A trillion rounds once ran until langgraph's step limit ended the session with "an
    input is nested too deeply"; a number past 64 bits ended it in an internal error after its
    trials were bought; an empty --session ("$SESSION" unset) started a new session where one
    was to be resumed."""
    ws = tmp_path / "ws"
    agent = ["--store", str(ws), "agent", *command]
    for rounds in (HUGE, str(10**26)):
        code, out = call(capsys, *agent, "--rounds", rounds)
        assert code == 2, out
        said = MANY_ROUNDS.format(command=command[0])
        assert _lines(out) == [said.replace("1,000,000,000,000", f"{int(rounds):,}")]
    for blank in ("", "   "):
        code, out = call(capsys, *agent, "--session", blank)
        assert code == 2 and _lines(out) == [EMPTY_SESSION], out
    assert not ws.exists()


def test_an_unknown_annotator_is_refused_before_a_session_is_announced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "agent", "identities", "-m",
                     "scripted-likelihood", "--annotator", "bogus")  # fmt: skip
    assert code == 2, out
    assert len(_lines(out)) == 1 and _lines(out)[0].startswith("error: no annotator named 'bogus'")


def test_an_audit_search_of_too_many_rounds_is_refused_by_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = planted_audit(tmp_path / "a.yaml", [], MASC, FEM, name="hx", seed=2)
    audit = yaml.safe_load(file.read_text())
    audit["searches"] = [{"name": "s", "kind": "identities", "agent_model": "target",
                          "target": "target", "rounds": 10**12}]  # fmt: skip
    file.write_text(yaml.safe_dump(audit, sort_keys=False))
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "audit", "check", str(file))
    assert code == 2, out
    (line,) = _lines(out)
    assert line.endswith("searches.0.rounds: Input should be less than or equal to 1000"), line


def test_more_batches_than_any_design_is_refused_rather_than_simulated_for_ever(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--batches 10**20 with --dry-run once simulated every look of every replicate: no end."""
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    file = planted_audit(tmp_path / "a.yaml", gates, MASC, FEM, name="hx", seed=2)
    for batches, shown in ((str(10**20), f"{10**20:,}"), ("101", "101")):
        code, out = call(capsys, "--store", str(tmp_path / "ws"), "audit", "run", str(file),
                         "--until-decided", "--dry-run", "--batches", batches)  # fmt: skip
        assert code == 2, out
        assert _lines(out) == [
            f"error: invalid value for '--batches': {shown} is more batches than a design is "
            "bought in (at most 100); give fewer, e.g. 10 (see 'diptych audit run --help')"
        ]


def test_a_negative_pst_text_seed_is_refused_before_any_trial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was taken, every trial run, and the analysis then failed on it (internal error)."""
    ws = tmp_path / "ws"
    code, out = call(capsys, "--store", str(ws), "run", "pst-text", "-m", "scripted-likelihood",
                     "-p", "seed=-1", "--quiet")  # fmt: skip
    assert code == 2, out
    assert _lines(out) == [
        "error: probe 'pst-text' parameter 'seed': -1 is not a whole number (0 or more), e.g. 0"
    ]
    if ws.exists():
        with Workspace.open(ws) as w:
            assert w.runs.list() == []

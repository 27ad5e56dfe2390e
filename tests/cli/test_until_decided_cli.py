"""``--until-decided`` from the command line: ``audit run`` and ``run --gate`` stop once the
gates are decided and say why and what they saved; ``--dry-run`` says what it is expected to
cost; ``audit gate`` says the audit stopped early."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, planted_audit

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
#: 6 × 6 scenes, both orders, both people: 144 distinct prompts.
REQUESTS = 144

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _audit(path: Path, gates: list[dict[str, Any]]) -> Path:
    return planted_audit(path, gates, MASC, FEM, name="seq-cli", seed=2)


def test_audit_run_until_decided_stops_says_why_and_gates_on_the_looks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    file = _audit(tmp_path / "a.yaml", [{"part": "pst-text", "figure": FIGURE, "below": 95}])
    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--until-decided",
                     "--batches", "4", "--out", str(tmp_path / "rep"), "--quiet")  # fmt: skip
    assert code == 0, out
    assert "look 1 of 4  " in out
    stopped = next(line for line in out.splitlines() if line.startswith("stopped:"))
    # What it bought and saved, said once: in the closing line, as `audit list` says it.
    closing = re.search(r"^audit \S+ decided at look (\d) of 4: (\d+) of (\d+) requests, "
                        r"(\d+) saved; ", out, re.M)  # fmt: skip
    assert closing is not None, out
    look, bought = int(closing[1]), int(closing[2])
    assert bought == 36 * look and look < 4 and int(closing[3]) == REQUESTS
    assert int(closing[4]) == REQUESTS - bought
    assert stopped == f"stopped: every gate decided in {look} of 4 batches", stopped
    assert "its intervals are the anytime-valid ones" in out
    assert "1 passed, 0 failed, 0 inconclusive → exit 0" in out
    # The part's status once, its final one, after the looks.
    said = [line for line in out.splitlines() if line.startswith("part pst-text: ")]
    assert len(said) == 1 and said[0].startswith("part pst-text: decided at look "), out

    code, out = call(capsys, "--store", ws, "audit", "gate", str(file))
    assert code == 0 and f"The audit stopped early (every gate decided) after {bought} of" in out
    assert "interval: anytime-valid over looks" in out

    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--dry-run",
                     "--until-decided", "--assume", "10")  # fmt: skip
    assert code == 0, out
    # Decided on what is stored: buying until decided buys nothing more, whatever is assumed.
    assert out.endswith(
        f"decided at look {look} of 4 on the {bought} requests stored: --until-decided buys "
        "nothing more\n"
    ), out
    assert "if the figure is" not in out
    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--batches", "4")
    assert code == 2 and "--batches sets the batches of --until-decided" in out


def test_run_with_gates_on_the_command_line_stops_when_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    lists = ["-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]
    base = ["--store", ws, "run", "pst-text", "-m", "scripted-likelihood", "-p", "setting=paired",
            *lists, "--quiet"]  # fmt: skip
    code, out = call(capsys, *base, "--gate", f"{FIGURE} below 60", "--until-decided",
                     "--batches", "4")  # fmt: skip
    assert code == 0, out
    assert "stopped: every gate decided" in out and "(audit run-pst-text-" in out
    assert "PASS" in out
    # The gates are recorded as an audit: audit gate reads them again.
    code, out = call(capsys, "--store", ws, "audit", "gate", "run-pst-text")
    assert code == 0 and "The audit stopped early" in out
    code, out = call(capsys, *base, "--gate", f"{FIGURE} under 60")
    assert code == 2 and "--gate takes 'FIGURE RULE LIMIT'" in out
    code, out = call(capsys, *base, "--gate", f"{FIGURE} within 10 -10")
    assert code == 2 and "within takes [low, high] with low < high" in out
    code, out = call(capsys, *base, "--until-decided")
    assert code == 2 and "give --gate rules" in out
    code, out = call(capsys, *base, "--gate", f"{FIGURE} below 60", "--batches", "4")
    assert code == 2 and "--batches sets the batches of --until-decided" in out


CI = Path(__file__).resolve().parents[2] / "examples" / "ci"


def _run_commands() -> list[str]:
    """The audit-run commands of the shipped GitHub workflow and GitLab job, as written."""
    github = yaml.safe_load((CI / "github-actions.yml").read_text())
    gitlab = yaml.safe_load((CI / "gitlab-ci.yml").read_text())["bias-gate"]
    steps = github["jobs"]["audit"]["steps"]
    commands = [s["run"] for s in steps if "audit run" in s.get("run", "")]
    commands += [line for line in gitlab["script"] if "audit run" in line]
    assert len(commands) == 2
    return commands


def test_the_ci_examples_buy_until_decided_under_a_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each workflow's own run command, its variables filled in as the CI service would, runs
    the audit until its gates are decided and never past its budget."""
    import os
    import shlex

    file = _audit(tmp_path / "a.yaml", [{"part": "pst-text", "figure": FIGURE, "below": 95}])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUDIT_FILE", str(file))
    monkeypatch.setenv("MAX_COST", "20")
    for i, command in enumerate(_run_commands()):
        words = shlex.split(os.path.expandvars(command.split("||")[0]))
        assert words[:3] == ["diptych", "audit", "run"]
        assert "--until-decided" in words and words[words.index("--max-cost") + 1] == "20"
        code, out = call(capsys, "--store", str(tmp_path / f"ws{i}"), *words[1:])
        assert code == 0, out
        assert "stopped: every gate decided" in out


@pytest.mark.parametrize("dry_run", [True, False])
def test_a_gate_on_an_undeclared_figure_is_refused_before_anything_is_bought(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], dry_run: bool
) -> None:
    ws = str(tmp_path / "ws")
    lists = ["-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]
    base = ["--store", ws, "run", "pst-text", "-m", "scripted-likelihood", "-p", "setting=paired",
            *lists, "--quiet", "--gate", "STS paired below 25"]  # fmt: skip
    code, out = call(capsys, *base, *(["--dry-run"] if dry_run else []))
    assert code == 2, out
    lines = out.strip().splitlines()
    assert len(lines) == 1, out
    assert lines[0].startswith(
        "error: gate 'pst-text: STS paired below 25': part 'pst-text' of the audit's probes has "
        "no figure 'STS paired'; did you mean "
    )
    assert repr(FIGURE) in lines[0]
    # Nothing bought, nor even a workspace made.
    assert not (tmp_path / "ws").exists()


def test_ctrl_c_during_run_until_decided_says_what_is_stored_and_how_to_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGINT after the 10th answer: the same line ``diptych run`` and ``resume`` print."""
    import os
    import signal

    from diptych.cli.progress import RichReporter

    finished = RichReporter.trial_finished
    seen = []

    def then_ctrl_c(self: RichReporter, *args: Any) -> None:
        finished(self, *args)
        seen.append(args)
        if len(seen) == 10:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(RichReporter, "trial_finished", then_ctrl_c)
    ws = tmp_path / "ws"
    lists = ["-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM)]
    code, out = call(capsys, "--store", str(ws), "run", "pst-text", "-m", "scripted-likelihood",
                     "-p", "setting=paired", *lists, "--quiet", "--gate", f"{FIGURE} below 60",
                     "--until-decided", "--batches", "4")  # fmt: skip
    assert code == 130, out
    line = next(x for x in out.splitlines() if x.startswith("interrupted: "))
    stored = int(line.split()[1])
    assert 10 <= stored < REQUESTS and f" of {REQUESTS} trials stored; resume with: " in line
    assert line.endswith(f"diptych --store {ws.absolute()} resume " + line.split()[-1])

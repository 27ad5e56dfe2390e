"""``audit run --dry-run --until-decided`` forecasts each gate's cost to a decision at a value
assumed from somewhere: never from a quick look (a run whose interval rests on fewer
identities a side than a finding needs says too little about how the figure varies), said
once ("assumed from run …", never "assumed: assumed from run …"), and a design with nothing
left to buy says so instead of a share of nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

import diptych.cli.plan_output as plan_output
from diptych.audit.forecast import GateCost
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")

GATE = f"pst-text: {FIGURE} below 70"
PAPER = (
    "the PST paper's DALL-E 3 figures (Tables 14 and 16), standing in for a text model's spread "
    "(none is published)"
)


def _audit(tmp_path: Path) -> list[str]:
    gate = {"part": "pst-text", "figure": FIGURE, "below": 70}
    file = planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="three", seed=2)
    return ["--store", str(tmp_path / "ws"), "audit", "run", str(file), "--out",
            str(tmp_path / "rep")]  # fmt: skip


def _run(capsys: pytest.CaptureFixture[str], tmp_path: Path, masc: str, fem: str) -> str:
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "run", "pst-text", "-m",
                     "scripted-likelihood", "-p", f"masculine={masc}", "-p", f"feminine={fem}",
                     "-p", "setting=both", "--quiet")  # fmt: skip
    assert code == 0, out
    return [w for w in out.split() if w.startswith("pst-text-")][0].rstrip(":")


def _forecasts(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("    if the figure is ")]


def test_a_quick_look_run_is_not_what_the_forecast_assumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    quick = _run(capsys, tmp_path, "carpenter,driver", "nurse,editor")
    code, out = call(capsys, *_audit(tmp_path), "--dry-run", "--until-decided")
    assert code == 0, out
    assert quick not in out, out
    (line,) = _forecasts(out)
    assert line.startswith(f"    if the figure is 47.4 (assumed: {PAPER}): expected "), line


def test_a_run_of_another_design_is_named_once_as_assumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    other = _run(capsys, tmp_path, ",".join(MASC[:4]), ",".join(FEM[:4]))
    code, out = call(capsys, *_audit(tmp_path), "--dry-run", "--until-decided")
    assert code == 0, out
    (line,) = _forecasts(out)
    said = line.split(" (", 1)[1].split("): expected ", 1)[0]
    assert said == (
        f"assumed from run {other}, another design (feminine, masculine, seed, setting differ): "
        f"run {other} (scripted-likelihood), 64 prompts"
    ), line


def test_a_design_stored_whole_has_nothing_to_buy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    words = _audit(tmp_path)
    code, out = call(capsys, *words, "--quiet")
    assert code == 0, out
    code, out = call(capsys, *words, "--dry-run", "--until-decided")
    assert code == 0, out
    said = out.split("until decided, in 10 batches (each gate alone at its Holm level):\n", 1)[1]
    assert said == f"  {GATE}: nothing to buy, the whole design's 144 requests are stored\n"


def test_a_design_of_no_requests_to_buy_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every trial stored, but by no run of this design: nothing to buy, and no share of it."""
    words = _audit(tmp_path)
    code, out = call(capsys, *words, "--quiet")
    assert code == 0, out
    real = plan_output.expected_costs

    def none_found(*args: object, **kwargs: object) -> list[GateCost]:
        costs = real(*args, **kwargs)  # type: ignore[arg-type]
        return [GateCost(c.label, 0, c.cost, 0, c.expected) for c in costs]

    monkeypatch.setattr(plan_output, "expected_costs", none_found)
    code, out = call(capsys, *words, "--dry-run", "--until-decided")
    assert code == 0, out
    said = out.split("until decided, in 10 batches (each gate alone at its Holm level):\n", 1)[1]
    assert said == f"  {GATE}: nothing to buy, the whole design is stored\n"

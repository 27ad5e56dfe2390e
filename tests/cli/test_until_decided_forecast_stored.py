"""``audit run --dry-run --until-decided`` on an audit some of whose design is stored: one
decided on what is stored says buying until decided buys nothing more, and forecasts nothing;
two scenarios that assume one value are said once; a forecast counts the requests beyond those
stored (and ``test_until_decided_forecast_priced.py`` their price)."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")

HEAD = "until decided, in 10 batches (each gate alone at its Holm level):\n"


def _words(tmp_path: Path, below: float, **extra: object) -> list[str]:
    gate = {"part": "pst-text", "figure": FIGURE, "below": below}
    file = planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="stored", seed=2, **extra)
    return ["--store", str(tmp_path / "ws"), "audit", "run", str(file), "--out",
            str(tmp_path / "rep")]  # fmt: skip


def _forecast(out: str) -> str:
    return out.split(HEAD, 1)[1]


def test_an_audit_decided_on_what_is_stored_forecasts_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    words = _words(tmp_path, 95)
    code, out = call(capsys, *words, "--until-decided", "--quiet")
    # 144 requests in 10 batches: the first look reads 15 of them, and decides.
    assert code == 0 and "decided at look 1 of 10: 15 of 144 requests, 129 saved" in out, out
    code, out = call(capsys, *words, "--dry-run", "--until-decided", "--assume", "10")
    assert code == 0, out
    assert out.endswith(
        "decided at look 1 of 10 on the 15 requests stored: --until-decided buys nothing more\n"
    ), out
    assert "if the figure is" not in out and HEAD not in out, out


def test_one_value_assumed_twice_is_one_forecast_beyond_the_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decided at look 1 below 95, then gated below 85: its look (66.5, [−0.99, 92.4]) decides
    nothing, and the plan assumes the value of the run the audit last read."""
    monkeypatch.setenv("COLUMNS", "260")
    code, out = call(capsys, *_words(tmp_path, 95), "--until-decided", "--quiet")
    assert code == 0, out
    with Workspace.open(str(tmp_path / "ws")) as ws:
        ((run,),) = [[p.run_id for p in a.parts] for a in ws.audits.list()]
    code, out = call(capsys, *_words(tmp_path, 85), "--dry-run", "--until-decided")
    assert code == 0, out
    said = _forecast(out).splitlines()
    assert said[0] == (
        f"  pst-text: {FIGURE} below 85: the whole design 144 requests, 15 stored, not priced"
    )
    # The 15 stored are the first look, free: 44.7% of the 144 requests is 64 to buy.
    assert said[1:] == [
        f"    if the figure is 66.5 (assumed: run {run} (scripted-likelihood#7d43232c), 15 "
        "prompts; also the last recorded run of this audit): expected 44.7% ± 2.73% of the "
        "design, about 64 requests beyond the 15 stored; decided (pass) in 92.0% of 200 "
        "simulated audits"
    ]


def test_a_value_assumed_and_the_last_run_s_are_two_forecasts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "260")
    code, out = call(capsys, *_words(tmp_path, 95), "--until-decided", "--quiet")
    assert code == 0, out
    code, out = call(capsys, *_words(tmp_path, 85), "--dry-run", "--until-decided", "--assume",
                     "10")  # fmt: skip
    assert code == 0, out
    said = [line.split("): expected ")[0] for line in _forecast(out).splitlines()[1:]]
    # The assumed figure in the one rule of digits (figure_text): 10.0, as the report prints it.
    assert said == [
        "    if the figure is 10.0 (assumed",
        "    if the figure is 66.5 (the last recorded run of this audit",
    ], out

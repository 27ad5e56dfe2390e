"""An audit bought until decided whose looks have spent their share of the level (all of it but
the complete design's quarter) buys the rest of the design at once and says why: a look short
of the complete design would spend nothing and could decide nothing.

The design: 6 × 6 identities in scenes, both orders, both people, 144 distinct requests in 10
batches (15 at look 1, ⌈28.8⌉ = 29 at look 2). At seed 1, gated below 62, look 2's standard
error is no smaller than look 1's, so its information fraction reads near 1 and the looks spend
their 75% there; the rest, 144 − 29 = 115 requests, is bought as the last batch."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import diptych.core.workspace.gates as workspace_gates
from diptych.audit import run_audit
from diptych.audit.sequential import part_status_words
from diptych.core.audit.sequential import PartLooks
from diptych.core.workspace import Workspace
from diptych.tui.screens.audit.decided import look_note
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

REST = "the looks' share of the level is spent: the next decision is at the whole design"


def _audit(tmp_path: Path) -> Path:
    gate = {"part": "pst-text", "figure": FIGURE, "below": 62}
    return planted_audit(tmp_path / "a.yaml", [gate], MASC, FEM, name="capped", seed=1)


def _bought(tmp_path: Path, name: str) -> tuple[list[tuple[int, int, Any]], list[Any], PartLooks]:
    """The audit bought until decided in 10 batches into ``tmp_path/name``: its looks as
    ``on_look`` told them, its parts' running events' details, and the part's looks."""
    looked: list[tuple[int, int, Any]] = []
    running: list[Any] = []

    def on_part(part: str, status: str, detail: dict[str, Any]) -> None:
        if status == "running":
            running.append(detail)

    with Workspace.open(tmp_path / name) as ws:
        outcome = asyncio.run(
            run_audit(ws, _audit(tmp_path), out_dir=tmp_path / f"{name}-rep", until_decided=True,
                      batches=10, on_look=lambda k, n, r: looked.append((k, n, r)),
                      on_part=on_part)
        )  # fmt: skip
        (part,) = outcome.parts
        looks = PartLooks.of(part.detail)
    assert looks is not None
    return looked, running, looks


def test_once_the_looks_share_is_spent_the_rest_is_bought_as_the_last_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked, running, looks = _bought(tmp_path, "ws")
    assert [look.bought for look in looks.looks] == [15, 29, 144]
    assert [(k, n) for k, n, _ in looked] == [(1, 10), (2, 10), (3, 10)]
    assert [dict(r.capped) for _, _, r in looked] == [{}, {"pst-text": 115}, {}]
    assert [d["batch"] for d in running] == [1, 2, 10]
    said = [part_status_words("running", d) for d in running]
    assert said == ["running batch 1 of 10", "running batch 2 of 10",
                    "running the rest of the design (115 requests)"]  # fmt: skip
    # Look 2 left its gate undecided with the looks' share spent: its note says why the rest.
    _, _, at_two = looked[1]
    assert at_two.results[0].verdict == "inconclusive"
    assert look_note(2, 10, at_two) == (
        f"look 2 of 10: inconclusive; {REST}, buying the rest (115 requests)"
    )
    _, _, at_three = looked[2]
    assert look_note(3, 10, at_three) == "the whole design read at look 3: inconclusive"
    assert looks.at == "the whole design read at look 3"
    capped = at_three.results[0]

    # Bought batch by batch past the cap instead: ten looks, each of looks 3 to 9 spending
    # nothing, and the same interval at the complete design.
    monkeypatch.setattr(workspace_gates, "capped_parts", lambda *args: {})
    looked, _, looks = _bought(tmp_path, "ws-batches")
    assert [look.bought for look in looks.looks] == [15, 29, 44, 58, 72, 87, 101, 116, 130, 144]
    assert [(r.results[0].ci_low, r.results[0].ci_high) for _, _, r in looked[1:9]] == [
        (at_two.results[0].ci_low, at_two.results[0].ci_high)
    ] * 8
    batched = looked[-1][2].results[0]
    assert (batched.verdict, batched.ci_low, batched.ci_high) == pytest.approx(
        (capped.verdict, capped.ci_low, capped.ci_high)
    )


def test_the_command_says_it_buys_the_rest_and_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    file = str(_audit(tmp_path))
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "audit", "run", file,
                     "--until-decided", "--out", str(tmp_path / "rep"))  # fmt: skip
    assert code == 3, out  # inconclusive at the complete design: it blocks
    lines = out.splitlines()
    assert f"look 2 of 10: {REST}, buying the rest (115 requests)" in lines
    assert "part pst-text, the rest of the design (115 requests)" in lines
    assert not any(line.startswith(("look 3 of", "part pst-text, batch 3")) for line in lines)
    assert any(line.startswith("the whole design read at look 3  INCONCLUSIVE") for line in lines)
    assert "part pst-text: complete: the whole design read at look 3" in lines

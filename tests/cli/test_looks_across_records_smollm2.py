"""Looks joined across audit records, on the real bundled SmolLM2 with placebo identities: four
made-up words a side (the fewest a look spends its level on), the paired setting alone, bought
in 4 batches. A first audit file, gated "below 90", is decided at its first look; a second of
the same design gates the figure on both sides of 0 ("not_above 0", "not_below 0": a bias
either way would fail one). The second reads the run's looks, the first's look 1 among them,
and buys on: on made-up words no gate fails at any look, so its own looks never stop for
"bias" — it reads the whole design, and its stop is its own ("complete"), never the first
file's "decided"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from diptych.core.workspace import Workspace
from tests.support.cli import call

FIGURE = "STS paired (expected from P(he), P(she))"
MASCULINE = ["zorblat", "plenker", "quimbet", "drovist"]
FEMININE = ["skandle", "vorpant", "quarnel", "glimsey"]
#: 4 × 4 scenes in two orders, one prompt each: 64 requests, 16 a batch.
UNTIL = ["--until-decided", "--batches", "4", "--quiet"]
BIAS_GATES = [
    {"name": "not shown above 0", "part": "pst-text", "figure": FIGURE, "not_above": 0},
    {"name": "not shown below 0", "part": "pst-text", "figure": FIGURE, "not_below": 0},
]


def _audit(path: Path, name: str, gates: list[dict[str, Any]]) -> str:
    params = {
        "masculine": MASCULINE,
        "feminine": FEMININE,
        "new_identities": True,
        "setting": "paired",
    }
    data = {
        "name": name,
        "seed": 0,
        "models": {"smollm2": {"plugin": "smollm2"}},
        "probes": [{"probe": "pst-text", "models": ["smollm2"], "params": params}],
        "report": {"formats": ["json"]},
        "gates": [{**g, "on_inconclusive": "warn"} for g in gates],
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return str(path)


@pytest.mark.slow
def test_a_second_audit_on_placebo_words_never_stops_for_bias_on_the_joined_looks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    first = _audit(tmp_path / "first.yaml", "first", [{"part": "pst-text", "figure": FIGURE,
                                                       "below": 90}])  # fmt: skip
    code, out = call(capsys, "audit", "run", first, *UNTIL)
    assert code == 0 and "part pst-text: decided at look 1 of 4" in out, out

    code, out = call(capsys, "audit", "run", _audit(tmp_path / "second.yaml", "second",
                                                    BIAS_GATES), *UNTIL)  # fmt: skip
    assert code == 0, out
    assert "part pst-text: complete at look 4 of 4" in out, out
    assert "0 passed, 0 failed, 2 inconclusive" in out, out
    assert "FAIL" not in out and "decided at look" not in out, out
    code, gated = call(capsys, "audit", "gate", "second.yaml")
    assert code == 0 and "0 passed, 0 failed, 2 inconclusive" in gated, gated
    assert "the last at its complete design" in gated, gated

    with Workspace.open(tmp_path / ".diptych") as ws:
        records = {a.name: a for a in ws.audits.list()}
        (part_a,) = records["first"].parts
        (part_b,) = records["second"].parts
        assert part_a.run_id is not None and part_a.run_id == part_b.run_id
        joined = ws.audits.run_looks(part_a.run_id)
    # The first file's one look and the second's three after it, each counted once, in order.
    assert joined is not None and [look.bought for look in joined.looks] == [16, 32, 48, 64]
    assert part_a.detail["sequential"]["stop"] == "decided"
    assert part_b.status == "complete" and joined.stop == "complete"
    # Each look's fixed-design interval on made-up words already straddles 0; the anytime-valid
    # ones the gates read are wider still, so no look could stop for a bias either way.
    for look in joined.looks:
        number = look.numbers[FIGURE]
        assert number["units"] == {"masculine identity": 4, "feminine identity": 4}
        assert number["ci_low"] < 0 < number["ci_high"], number

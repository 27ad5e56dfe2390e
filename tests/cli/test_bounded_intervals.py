"""One interval everywhere: the report, the CLI, the TUI's strings and the gates print the same
interval of a figure, inside the figure's range, on a 3 × 3 design whose plain t interval would
leave it; a gate at a Holm-adjusted level makes the same method again (percentile where the
report prints percentile)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from diptych.core.metrics.uncertainty.intervals import IntervalRecipe
from diptych.core.report import fmt
from diptych.core.report.formatting import bounds
from diptych.tui.formatting import interval as tui_interval
from diptych.tui.review.panels import format_estimate
from tests.support.cli import call

EXPECTED = "STS paired (expected from P(he), P(she))"
DRAWN = "STS paired (drawn labels)"
MASC = ["carpenter", "farmer", "guard"]
FEM = ["nurse", "editor", "secretary"]


#: The scripted models of diptych.testing, as a plugin.
pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _audit(path: Path, gates: list[dict[str, Any]]) -> Path:
    # A strong planted stereotype with identity-level spread: the STS sits near its bound,
    # where 3 × 3 identities (2 df) would carry a plain t interval past +100.
    planted = {"carpenter": 0.02, "farmer": 0.15, "guard": 0.3, "nurse": 0.98, "editor": 0.7,
               "secretary": 0.9}  # fmt: skip
    data = {
        "name": "bounded",
        "models": {
            "target": {
                "plugin": "scripted-likelihood",
                "params": {"p_feminine": planted, "noise": 0.05},
            }  # fmt: skip
        },
        "probes": [
            {
                "probe": "pst-text",
                "models": ["target"],
                "params": {"masculine": MASC, "feminine": FEM},
            }  # fmt: skip
        ],
        "report": {"formats": ["json"]},
        "gates": gates,
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_report_cli_tui_and_gate_print_one_interval_inside_the_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "220")
    ws, out_dir = str(tmp_path / "ws"), tmp_path / "rep"
    file = _audit(
        tmp_path / "audit.yaml", [{"part": "pst-text", "figure": EXPECTED, "within": [-100, 100]}]
    )
    code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--out", str(out_dir),
                     "--quiet")  # fmt: skip
    report = json.loads((out_dir / "report.json").read_text())
    (run,) = report["runs"]
    numbers = run["result"]["numbers"]
    expected = numbers[EXPECTED]
    # The plain t interval would leave [−100, 100] on 2 df; the printed one stays inside.
    assert expected["df"] == 2 and expected["range"] == [-100.0, 100.0]
    plain = 4.302652729911275 * expected["se"]
    assert expected["value"] + plain > 100
    low, high = expected["ci_low"], expected["ci_high"]
    assert -100 <= low < expected["value"] < high <= 100
    for number in numbers.values():
        if isinstance(number.get("range"), list) and isinstance(number.get("ci_low"), float):
            assert number["range"][0] <= number["ci_low"] <= number["ci_high"] <= number["range"][1]

    # One gate alone is read at 95%, Holm or not: the very interval the report printed.
    code, out = call(capsys, "--store", ws, "audit", "gate", str(file), "--json")
    (gate,) = json.loads(out)["gates"]
    assert gate["verdict"] == "pass" and gate["confidence"] == pytest.approx(0.95)
    assert (gate["ci_low"], gate["ci_high"]) == pytest.approx((low, high), rel=1e-12)
    assert "logit" in gate["method"]
    # The CLI's headline table, the TUI's figure list and its review strip print it too.
    code, out = call(capsys, "--store", ws, "show", run["run"])
    assert code == 0, out
    assert f"[{fmt(low)}, {fmt(high)}]" in out
    shown = [float(x.replace("−", "-")) for x in tui_interval(low, high).strip("[]").split(", ")]
    assert shown == pytest.approx([low, high], abs=0.05)
    # The terminal app's Review line: the same digits as the CLI and the report.
    assert bounds(low, high) in format_estimate(expected)

    # Two gates: Holm reads the stronger one at 97.5%, by the figure's own method — the drawn
    # labels' t interval over both identity lists on the logit scale, from the se, df and
    # range its number keeps, not ±1.96 se (the other gate, the expected STS above 0, is the
    # weaker: its 95% interval reaches below 0).
    drawn = numbers[DRAWN]
    assert (drawn["interval_method"], drawn["transform"]) == ("t", "logit")
    recipe = IntervalRecipe.from_number(drawn)
    assert isinstance(recipe, IntervalRecipe)
    assert (drawn["ci_low"], drawn["ci_high"]) == pytest.approx(recipe.interval(0.95))
    _audit(file, [{"part": "pst-text", "figure": DRAWN, "above": -90},
                  {"part": "pst-text", "figure": EXPECTED, "above": 0}])  # fmt: skip
    code, out = call(capsys, "--store", ws, "audit", "gate", str(file), "--json")
    first, _ = json.loads(out)["gates"]
    assert first["verdict"] == "pass" and first["confidence"] == pytest.approx(0.975)
    assert (first["ci_low"], first["ci_high"]) == pytest.approx(
        recipe.interval(first["confidence"]), rel=1e-12
    )
    assert first["method"] == "t on the logit scale of [\N{MINUS SIGN}100, 100]"

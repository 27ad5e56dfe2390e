"""A run bought batch by batch under one audit and read by another (a second audit file of the
same design) keeps the looks its answers were taken at: every surface that prints its gated
figure — the gate line of ``audit run`` (with and without ``--until-decided``), ``audit gate``,
``diptych report RUN`` and ``diptych show RUN`` — prints the anytime-valid interval of all
its looks, whichever record took them, and the same "look k of n" (docs/gates.md)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")

#: Look 1's interval reaches above 70; look 2's does not: decided at look 2 of 4.
GATE = {"part": "pst-text", "figure": FIGURE, "below": 70}


def _spent(t: float) -> float:
    """The Pocock-type spending function of docs/gates.md: ln(1 + (e − 1)·t)."""
    return math.log(1.0 + (math.e - 1.0) * min(max(t, 0.0), 1.0))


def _information(fractions: Sequence[float], variances: Sequence[float]) -> float:
    """V_full / V_last, the looks' variances fitted by least squares as V = A + B / f with
    A, B ≥ 0 and V_full = A + B, kept within [f_last, 1]; one look gives f_last."""
    if len(fractions) < 2:
        return fractions[-1]
    x = np.array([1.0 / f for f in fractions])
    v = np.array(variances)
    level, slope = np.linalg.lstsq(np.column_stack([np.ones_like(x), x]), v, rcond=None)[0]
    if slope < 0:
        level, slope = v.mean(), 0.0
    elif level < 0:
        level, slope = 0.0, float(x @ v / (x @ x))
    return min(max((level + slope) / variances[-1], fractions[-1]), 1.0)


def _look_bounds(
    number: Mapping[str, Any], two_sided: float, complete: bool
) -> tuple[float, float]:
    """A look's t interval on the logit scale of the figure's range (the delta method), its
    degrees of freedom no more than its fewest identities less one before the design is whole."""
    a, b = number["range"]
    p = (number["value"] - a) / (b - a)
    se = number["se"] / ((b - a) * p * (1 - p))
    df = number["df"] if complete else min(number["df"], min(number["units"].values()) - 1)
    q = stats.t.ppf(1 - (1 - two_sided) / 2, df)
    centre = math.log(p / (1 - p))
    return tuple(a + (b - a) / (1 + math.exp(-(centre + s * q * se))) for s in (-1, 1))  # type: ignore[return-value]


def anytime_bounds(looks: Sequence[Mapping[str, Any]]) -> tuple[float, float]:
    """The 95% anytime-valid interval of the gated figure over ``looks`` (as recorded): each look
    spends g(t_j) − g(t_{j−1}) of the level, the looks before the complete design together no
    more than 0.75 of it, the last at the complete design what is left, and the interval is the
    intersection of each look's at two-sided level 1 − 0.05·w_j."""
    fractions, variances, spent_t, spent = [], [], 0.0, 0.0
    low, high = -math.inf, math.inf
    for look in looks:
        number = look["numbers"][FIGURE]
        complete = look["bought"] >= look["planned"]
        fractions.append(look["bought"] / look["planned"])
        variances.append(number["se"] ** 2)
        t = 1.0 if complete else max(_information(fractions, variances), spent_t)
        upto = max(_spent(t) if complete else min(_spent(t), 0.75), spent)
        share = upto - spent
        spent_t, spent = t, upto
        lo, hi = _look_bounds(number, 1 - 0.05 * share, complete)
        low, high = max(low, lo), min(high, hi)
    return low, high


def _looks_of(ws: Path, name: str) -> tuple[str, list[dict[str, Any]]]:
    """The run of the one part of audit ``name`` and the looks its record holds."""
    with Workspace.open(ws) as opened:
        (part,) = [p for a in opened.audits.list() if a.name == name for p in a.parts]
    assert part.run_id is not None
    return part.run_id, list(part.detail["sequential"]["looks"])


def _printed(bounds: tuple[float, float]) -> str:
    return f"[{bounds[0]:.1f}, {bounds[1]:.1f}]"


def _gate_line(out: str) -> str:
    found = re.search(rf"^PASS pst-text: {re.escape(FIGURE)} = .*$", out, re.M)
    assert found is not None, out
    return found[0]


def _every_surface(capsys: pytest.CaptureFixture[str], name: str, run_id: str) -> list[str]:
    """What ``audit gate``, ``diptych report RUN`` (Markdown) and ``diptych show RUN`` print of
    the gated figure's interval and look, each as a "[low, high] … look" string."""
    code, out = call(capsys, "audit", "gate", f"{name}.yaml")
    assert code == 0, out
    said = [_gate_line(out)]
    code, out = call(capsys, "report", run_id, "-o", f"report-{name}", "--format", "md")
    assert code == 0, out
    md = Path(f"report-{name}/report.md").read_text(encoding="utf-8")
    cell = re.search(rf"^\| {re.escape(FIGURE)} \| [^|]+ \| ([^|]+) \|", md, re.M)
    gate = re.search(r"^- \*\*PASS\*\* .*95% anytime-valid interval (\S+) to (\S+);", md, re.M)
    assert cell is not None and gate is not None, md
    said += [cell[1], f"[{gate[1]}, {gate[2]}]"]
    code, out = call(capsys, "show", run_id)
    assert code == 0, out
    row = re.search(rf"^│ {re.escape(FIGURE)}\s+│[^│]+│ ([^│]+?)\s+│", out, re.M)
    assert row is not None, out
    return [*said, row[1]]


def test_a_run_read_by_a_second_audit_keeps_the_looks_the_first_took(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # Wide enough that `show` prints the figure's name and interval on one line each.
    monkeypatch.setenv("COLUMNS", "200")
    ws = tmp_path / ".diptych"
    files = {
        name: str(planted_audit(tmp_path / f"{name}.yaml", [GATE], MASC, FEM, name=name, seed=2))
        for name in ("first", "second", "third")
    }
    until = ["--until-decided", "--batches", "4", "--quiet"]
    code, out = call(capsys, "audit", "run", files["first"], *until)
    assert code == 0 and "part pst-text: decided at look 2 of 4" in out, out
    run_id, first = _looks_of(ws, "first")
    assert [look["bought"] for look in first] == [36, 72]
    expected = _printed(anytime_bounds(first))

    # Another audit of the same design reads the same run: its two looks, never a look 1 of
    # its own at the full level.
    code, out = call(capsys, "audit", "run", files["second"], *until)
    assert code == 0, out
    assert "decided at look 2 of 4: 72 of 144 requests, 72 saved; none answered now" in out, out
    line = _gate_line(out)
    assert f"95% {expected} (anytime-valid, look 2 of 4)" in line, (expected, line)
    said = _every_surface(capsys, "second", run_id)
    assert said[0] == line
    assert said[1:] == [
        f"{expected}; 95% anytime-valid interval, look 2 of 4",
        expected,
        f"{expected} † (95% anytime-valid interval, look 2 of 4)",
    ]

    # A third audit, run without --until-decided, buys the rest of the design: its complete
    # design is the third look of the same plan, spending what the two before left.
    code, out = call(capsys, "audit", "run", files["third"], "--quiet")
    assert code == 0, out
    assert _looks_of(ws, "second")[0] == run_id
    third = _looks_of(ws, "third")[1]
    assert [look["bought"] for look in third] == [36, 72, 144]
    whole = _printed(anytime_bounds(third))
    assert whole != expected
    line = _gate_line(out)
    assert f"95% {whole} (anytime-valid, the whole design read at look 3)" in line, (whole, line)
    said = _every_surface(capsys, "third", run_id)
    assert said == [
        line,
        f"{whole}; 95% anytime-valid interval, the whole design read at look 3",
        whole,
        f"{whole} † (95% anytime-valid interval, the whole design read at look 3)",
    ]

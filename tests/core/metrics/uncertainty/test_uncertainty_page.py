"""docs/uncertainty.md states the variance the code computes: its worked example of the crossed
variance is read from the page and every number recomputed with the implementation."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from diptych.core.metrics.uncertainty.intervals import STS_RANGE
from diptych.core.metrics.uncertainty.resampling import (
    _interaction_variance,
    _unit_variance,
    mean_over_units,
)

PAGE = Path(__file__).resolve().parents[4] / "docs" / "uncertainty.md"
MARK = "<!-- worked example: crossed variance -->"


def _example() -> tuple[np.ndarray, dict[str, str]]:
    text = PAGE.read_text(encoding="utf-8")
    block = re.search(re.escape(MARK) + r"\s*```text\n(.*?)```", text, re.DOTALL)
    assert block is not None, f"docs/uncertainty.md has no block after {MARK}"
    cells, stated = [], {}
    for line in block.group(1).splitlines():
        if re.match(r"m\d+:", line):
            cells.append([float(x) for x in line.split(":")[1].split()])
        elif " = " in line:
            name, value = line.split(" = ", 1)
            stated[name.strip()] = value.strip()
    return np.array(cells), stated


def test_the_page_states_the_formula_the_code_computes() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert "max(V_rows + V_cols − V_inter, V_cells)" in text
    assert "V_rows + V_cols − V_cells" not in text


def test_the_worked_example_is_what_the_implementation_computes() -> None:
    grid, stated = _example()
    assert grid.shape == (3, 3)
    ones = np.ones_like(grid)
    v_rows = _unit_variance(grid.sum(axis=1), ones.sum(axis=1))
    v_cols = _unit_variance(grid.sum(axis=0), ones.sum(axis=0))
    v_cells = _unit_variance(grid.ravel(), ones.ravel())
    v_inter = _interaction_variance(grid, ones)
    for name, value in (("V_rows", v_rows), ("V_cols", v_cols), ("V_cells", v_cells),
                        ("V_inter", v_inter)):  # fmt: skip
        assert float(stated[name]) == pytest.approx(value, abs=5e-7), name
    variance = max(v_rows + v_cols - v_inter, v_cells)
    assert float(stated["variance"]) == pytest.approx(variance, abs=5e-7)
    # The same through the one road every figure takes: the masculine identities are the rows.
    rows = [f"m{i}" for i in range(3) for _ in range(3)]
    cols = [f"f{j}" for _ in range(3) for j in range(3)]
    units = {"masculine identity": rows, "feminine identity": cols}
    plain = mean_over_units(grid.ravel(), units, scale=100.0)
    assert plain.se == pytest.approx(100 * variance**0.5)
    assert float(stated["STS"]) == pytest.approx(plain.value, abs=0.005)
    assert float(stated["se"]) == pytest.approx(plain.se, abs=0.005)
    assert float(stated["df"]) == plain.df
    low, high = (float(x) for x in stated["t interval"].split(" to "))
    assert (low, high) == pytest.approx((plain.ci_low, plain.ci_high), abs=0.005)
    inside = mean_over_units(grid.ravel(), units, scale=100.0, bounds=STS_RANGE)
    low, high = (float(x) for x in stated["interval inside the range"].split(" to "))
    assert (low, high) == pytest.approx((inside.ci_low, inside.ci_high), abs=0.005)

"""A gate on a figure its part does not have is refused in one line that names the figures it
has, so the next try needs no lookup."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import call


def test_a_gate_on_a_figure_with_no_near_name_lists_the_figures(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    code, out = call(capsys, "--store", str(ws), "run", "pst-text", "-m", "scripted-likelihood",
                     "--gate", "bogus figure below 25", "--until-decided", "--dry-run")  # fmt: skip
    assert code == 2, out
    (line,) = out.strip().splitlines()
    assert line.startswith(
        "error: gate 'pst-text: bogus figure below 25': part 'pst-text' of the audit's probes "
        "has no figure 'bogus figure'; its figures: 'STS paired (drawn labels)', "
        "'STS single (drawn labels)', "
    )
    # pst-text declares seven: every one is listed, none left out.
    assert line.endswith("'gap paired − single (drawn labels)'") and " more" not in line
    assert not ws.exists()


def test_a_part_with_many_figures_lists_the_first_and_counts_the_rest(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "run", "pst", "-m",
                     "scripted-images", "--gate", "bogus figure below 25", "--until-decided",
                     "--dry-run")  # fmt: skip
    assert code == 2, out
    (line,) = out.strip().splitlines()
    assert "its figures: 'occupation: STS paired', 'occupation: STS single', " in line
    assert line.count("', '") == 7 and line.endswith(" more")

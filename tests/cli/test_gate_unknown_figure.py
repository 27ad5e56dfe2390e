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
        "has no figure 'bogus figure'; its figures: "
        "'STS paired (expected from P(he), P(she))', 'STS single (expected from P(he), P(she))', "
        "'STS paired (drawn labels)', 'STS single (drawn labels)', "
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


def _refusal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, probe: str, model: str, gate: str
) -> str:
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "run", probe, "-m", model,
                     "--gate", gate, "--until-decided", "--dry-run")  # fmt: skip
    assert code == 2, out
    (line,) = out.strip().splitlines()
    return line


def test_a_gate_on_the_start_of_a_name_is_offered_the_headline_first(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The docs gate on the expected STS: typed as far as "STS paired", it comes first, then
    every other figure that begins so (in any case), then the close ones."""
    line = _refusal(capsys, tmp_path, "pst-text", "scripted-likelihood", "sts PAIRED below 25")
    assert line.endswith(
        "has no figure 'sts PAIRED'; did you mean 'STS paired (expected from P(he), P(she))' "
        "or 'STS paired (drawn labels)'?"
    )
    line = _refusal(capsys, tmp_path, "pst-text", "scripted-likelihood", "STS paired below 25")
    assert line.endswith(
        "did you mean 'STS paired (expected from P(he), P(she))', 'STS paired (drawn labels)' "
        "or 'STS single (drawn labels)'?"
    )


def test_a_mistyped_name_is_offered_the_close_ones(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _refusal(capsys, tmp_path, "pst-text", "scripted-likelihood", "STS pared below 25")
    assert line.endswith("has no figure 'STS pared'; did you mean 'STS paired (drawn labels)'?")


def test_an_image_part_offers_every_figure_that_begins_so_and_counts_the_rest(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """pst declares a hundred and more: those beginning "occupation: STS paired" in its order
    (the headline, then its labels' variants), eight named and the rest counted."""
    from diptych.core.plugins import get_probe

    names = get_probe("pst", {}).figure_names(1) or []
    begins = [n for n in names if n.casefold().startswith("occupation: sts paired")]
    assert begins[0] == "occupation: STS paired" and len(begins) > 8
    line = _refusal(capsys, tmp_path, "pst", "scripted-images", "Occupation: STS paired below 25")
    shown = ", ".join(repr(n) for n in begins[:7]) + f" or {begins[7]!r}"
    assert f"did you mean {shown} (and " in line, line
    # The rest: those beginning so, and at most two close ones that do not.
    more = int(line.rsplit("(and ", 1)[1].split(" ")[0])
    assert len(begins) - 8 <= more <= len(begins) - 8 + 2 and line.endswith(" more)?")

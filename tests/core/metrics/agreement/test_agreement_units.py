"""An agreement interval resamples units (images, draws), says how many, and is missing with its
reason where there is one unit only: its one unit resampled is always itself."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from support.pst_runs import Image, Person, store_pst_run

from diptych.cli.main import main
from diptych.core.labels import SubjectLabel
from diptych.core.metrics.agreement import (
    agreement_report_tables,
    annotator_agreement,
    cohen_kappa_estimate,
    labelled_subjects,
)
from diptych.core.store import open_store

M, F = "masculine", "feminine"
# Two raters on four persons: κ = 0 (p_o = 1/2, p_e = 1/2); the first two persons agree, the
# last two do not, so a draw of each resamples to κ between −1 and 1.
RATER_A, RATER_B = [M, F, M, F], [M, F, F, M]


def test_one_unit_has_no_interval_and_two_have_one() -> None:
    one = cohen_kappa_estimate(RATER_A, RATER_B, clusters=["d"] * 4, n_boot=200, seed=0)
    assert one.value == pytest.approx(0.0)
    assert math.isnan(one.ci_low) and math.isnan(one.ci_high)
    two = cohen_kappa_estimate(RATER_A, RATER_B, clusters=["d", "d", "e", "e"], n_boot=200)
    assert two.ci_low < two.ci_high
    single = cohen_kappa_estimate(RATER_A[:1], RATER_B[:1], n_boot=200)  # one item, no clusters
    assert math.isnan(single.ci_low)


def _person(sid: int, trial: int, draw: str, annotator: str, label: str) -> SubjectLabel:
    meta = {"setting": "paired", "image": draw}
    return SubjectLabel(sid, trial, "m", "left", {}, meta, annotator, label, None, {})


def _labels(draws: list[str]) -> list[SubjectLabel]:
    """Each person asked about in a trial of its own (as pst-text does), in the given draws."""
    return [
        _person(i, i, draw, who, label)
        for i, draw in enumerate(draws)
        for who, label in (("human:nc", RATER_A[i]), ("self", RATER_B[i]))
    ]


def test_the_persons_of_one_draw_are_one_unit_whatever_their_trials() -> None:
    subjects = labelled_subjects(_labels(["d#0"] * 4))
    assert len({s.cluster for s in subjects}) == 1
    report = annotator_agreement(subjects, n_boot=200, unit="draw")
    (pair,) = report.pairwise
    assert pair.kappa.units == {"draws": 1} and pair.kappa.reason == "one draw only"
    (table,) = [t for t in agreement_report_tables(report) if "Cohen" in t.title]
    assert table.columns[3] == "draws"
    assert table.rows == [["human:nc", "self", 4, 1, 0.5, 0.0, "no interval (one draw only)"]]
    assert "over draws" in table.note and "one draw alone gives no interval" in table.note


def test_two_draws_give_an_interval_and_say_they_are_two() -> None:
    report = annotator_agreement(
        labelled_subjects(_labels(["d#0", "d#0", "e#0", "e#0"])), n_boot=200, unit="draw"
    )
    (pair,) = report.pairwise
    assert pair.kappa.units == {"draws": 2} and pair.kappa.reason is None
    (table,) = [t for t in agreement_report_tables(report) if "Cohen" in t.title]
    (row,) = table.rows
    assert row[3] == 2 and str(row[-1]).startswith("[")


def _one_paired_image(ws: Path) -> str:
    persons = [
        Person("left", "carpenter", M, {"human:nc": M, "self": M}),
        Person("right", "editor", F, {"human:nc": M, "self": F}),
    ]
    with open_store(ws) as store:
        store_pst_run(store, "pst-one", [Image("paired:carpenter|editor#0", "paired", persons)])
    return "pst-one"


def test_the_command_and_the_report_give_one_image_no_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    run = _one_paired_image(ws)
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "agreement", run, "--json", "--n-boot", "100"])
    assert done.value.code in (0, None)
    (pair,) = json.loads(capsys.readouterr().out)["cohen_kappa"]
    assert (pair["ci_low"], pair["ci_high"], pair["units"]) == (None, None, {"images": 1})
    assert pair["reason"] == "one image only"
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "agreement", run, "--n-boot", "100"])
    assert done.value.code in (0, None)
    out = capsys.readouterr().out
    assert "no interval (one image only)" in out and "[0.00, 0.00]" not in out
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "report", run, "-o", str(tmp_path / "rep")])
    assert done.value.code in (0, None)
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    row = "| human:nc | self | 2 | 1 | 0.50 | 0.00 | no interval (one image only) |"
    assert row in md and "[0.00, 0.00]" not in md

"""An agreement interval is never of zero width: where every resample of two units or more gives
one value (κ = 1 where every unit agrees fully, or units of one and the same pattern), the
percentile bootstrap can say no more, and the figure has no interval, with that reason. Units
that differ give an interval of positive width, the one an independent bootstrap gives."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from support.pst_runs import Image, Person, store_pst_run

from diptych.cli.main import main
from diptych.core.labels import SubjectLabel
from diptych.core.metrics.agreement import (
    agreement_report_tables,
    agreement_tables,
    annotator_agreement,
    cohen_kappa_estimate,
    fleiss_kappa_estimate,
    labelled_subjects,
)
from diptych.core.store import open_store

M, F = "masculine", "feminine"


def _labels(units: list[tuple[list[str], list[str]]]) -> list[SubjectLabel]:
    """Two annotators' labels, unit by unit: (the first's labels, the second's)."""
    out = []
    for u, (first, second) in enumerate(units):
        for i, (a, b) in enumerate(zip(first, second, strict=True)):
            sid = 10 * u + i
            meta = {"setting": "paired", "image": f"img{u}"}
            for who, label in (("human:a", a), ("human:b", b)):
                out.append(SubjectLabel(sid, sid, "m", "left", {}, meta, who, label, None, {}))
    return out


def _cohen(units: list[tuple[list[str], list[str]]], unit: str = "image") -> tuple:
    report = annotator_agreement(labelled_subjects(_labels(units)), unit=unit, n_boot=400)
    (pair,) = report.pairwise
    (table,) = [t for t in agreement_report_tables(report) if "Cohen" in t.title]
    (row,) = table.rows
    return pair, row, report


def test_full_agreement_over_two_images_has_no_zero_width_interval() -> None:
    # Each image: one person each annotator calls masculine, one feminine: κ = 1 in every
    # resample (p_o = 1), and every resample is defined (both categories in each image).
    pair, row, report = _cohen([([M, F], [M, F])] * 2)
    assert pair.kappa.value == 1.0
    assert math.isnan(pair.kappa.ci_low) and math.isnan(pair.kappa.ci_high)
    assert pair.kappa.reason == "every resample of its 2 images gives 1.00"
    assert row[-1] == "no interval (every resample of its 2 images gives 1.00)"
    (cohen,) = report.to_dict()["cohen_kappa"]
    assert (cohen["ci_low"], cohen["ci_high"], cohen["units"]) == (None, None, {"images": 2})
    assert cohen["reason"] == "every resample of its 2 images gives 1.00"


def test_full_agreement_with_resamples_where_kappa_is_undefined_says_so() -> None:
    # The first image alone has only masculine labels: κ is 0/0 in a resample of it alone,
    # left out; every other resample gives 1.
    pair, _, _ = _cohen([([M, M], [M, M]), ([M, F], [M, F]), ([F, F], [F, F])])
    assert pair.kappa.reason == "every resample of its 3 images where it is defined gives 1.00"


def test_units_of_one_pattern_give_their_one_value_and_no_interval() -> None:
    # Every unit: A = M M M F, B = M M F F, so p_o = 3/4, p_e = 3/4·1/2 + 1/4·1/2 = 1/2 and
    # κ = (3/4 − 1/2) / (1 − 1/2) = 0.5, in every resample (each has the same proportions).
    pattern = ([M, M, M, F], [M, M, F, F])
    pair, row, _ = _cohen([pattern] * 3, unit="draw")
    assert pair.kappa.value == pytest.approx(0.5)
    assert pair.kappa.reason == "every resample of its 3 draws gives 0.50"
    assert row[-1] == "no interval (every resample of its 3 draws gives 0.50)"
    # Fleiss' κ of two raters who disagree on every person, marginals ½ ½: p_a = 0,
    # p_e = 1/2, κ = −1; six units alike, so a reader's minus in the reason.
    fleiss = fleiss_kappa_estimate([[1, 1]] * 6, clusters=list(range(6)), n_boot=300)
    assert fleiss.value == pytest.approx(-1.0) and math.isnan(fleiss.ci_low)
    assert fleiss.reason == "every resample of its 6 items gives −1.00"


def test_units_that_differ_give_the_interval_an_independent_bootstrap_gives() -> None:
    units = [([M, F], [M, F]), ([M, F], [F, M]), ([M, M, F], [M, F, F]), ([F, M], [F, F])]
    a = [x for first, _ in units for x in first]
    b = [x for _, second in units for x in second]
    clusters = [u for u, (first, _) in enumerate(units) for _ in first]
    got = cohen_kappa_estimate(a, b, clusters=clusters, n_boot=500, seed=7)
    # The same resamples drawn anew (one generator, n_boot × units indices) and κ by sklearn.
    rng = np.random.default_rng(7)
    reps = []
    for row in rng.integers(0, len(units), size=(500, len(units))):
        ra = [x for u in row for x in units[u][0]]
        rb = [x for u in row for x in units[u][1]]
        if len(set(ra) | set(rb)) > 1:
            reps.append(cohen_kappa_score(ra, rb))
    low, high = np.percentile(reps, [2.5, 97.5])
    assert got.ci_low == pytest.approx(low) and got.ci_high == pytest.approx(high)
    assert got.ci_high - got.ci_low > 0.5 and got.reason is None


def test_two_units_agreeing_and_disagreeing_span_minus_one_to_one() -> None:
    # Resamples of {agree, disagree}: both agree (¼) κ = 1, both disagree (¼) κ = −1, one
    # of each (½) κ = 0; the 2.5th and 97.5th percentiles are −1 and 1.
    pair, row, _ = _cohen([([M, F], [M, F]), ([M, F], [F, M])])
    assert (pair.kappa.ci_low, pair.kappa.ci_high) == (-1.0, 1.0)
    assert row[-1] == "[−1.00, 1.00]"


def _agreeing_images() -> list[Image]:
    return [
        Image(
            f"paired:carpenter|editor#{k}",
            "paired",
            [
                Person("left", "carpenter", M, {"human:a": M, "human:b": M}),
                Person("right", "editor", F, {"human:a": F, "human:b": F}),
            ],
        )
        for k in range(2)
    ]


def test_the_command_gives_full_agreement_no_interval_with_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    with open_store(ws) as store:
        store_pst_run(store, "pst-alike", _agreeing_images())
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "agreement", "pst-alike", "--json", "--n-boot", "100"])
    assert done.value.code in (0, None)
    data = json.loads(capsys.readouterr().out)
    (pair,) = data["cohen_kappa"]
    assert (pair["value"], pair["ci_low"], pair["ci_high"]) == (1.0, None, None)
    assert pair["reason"] == "every resample of its 2 images gives 1.00"
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "agreement", "pst-alike", "--n-boot", "100"])
    assert done.value.code in (0, None)
    out = " ".join(capsys.readouterr().out.split())
    assert "[1.00, 1.00]" not in out
    assert "no interval (every resample of its 2 images gives 1.00)" in out


def test_a_text_runs_agreement_resamples_draws_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    with open_store(ws) as store:
        view = store_pst_run(store, "text", _agreeing_images(), probe="pst-text")
        tables = agreement_tables(view, unit="draw", n_boot=100)
    cohen = next(t for t in tables if "Cohen" in t.title)
    assert "draws" in cohen.columns and "images" not in cohen.columns
    assert "over draws" in cohen.note and "image" not in cohen.note
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "agreement", "text", "--json", "--n-boot", "100"])
    assert done.value.code in (0, None)
    data = json.loads(capsys.readouterr().out)
    assert data["bootstrap"]["resamples"] == "draws"
    assert data["cohen_kappa"][0]["reason"] == "every resample of its 2 draws gives 1.00"
    with pytest.raises(TypeError):
        agreement_tables(view, n_boot=100)  # type: ignore[call-arg]  # no unit: no default

"""Scoring a stored ``pst`` run: the paper's numbers, the label policy, tables, flags, figures."""

from __future__ import annotations

import io

import pytest
from PIL import Image as PILImage
from support.pst_runs import PROBE, column, images_from_rows, store_pst_run, table
from support.sts_tables import (
    FEMALE_STEREOTYPED,
    MALE_STEREOTYPED,
    TABLE_14_15,
    paper_round,
    table_14_rows,
)

from diptych.core.probe import ProbeResult
from diptych.core.report.formatting import figure_text
from diptych.core.store import Store
from diptych.plugins.probes.pst.analysis import analyze_pst
from diptych.plugins.probes.pst.labor import bls_pct_female, labor_statistics

# --- the paper's gendered-occupation study ----------------------------------------------------


@pytest.fixture(scope="module")
def table_14_result(tmp_path_factory: pytest.TempPathFactory) -> ProbeResult:
    with Store(tmp_path_factory.mktemp("ws")) as store:
        view = store_pst_run(store, "pst-t14", images_from_rows(table_14_rows()))
        return analyze_pst(PROBE, view)


def test_overall_sts_and_gap_reproduce_table_2(table_14_result: ProbeResult) -> None:
    numbers = table_14_result.numbers
    paired, single = numbers["occupation: STS paired"], numbers["occupation: STS single"]
    assert paper_round(paired["value"]) == 47.38
    assert paper_round(single["value"]) == 10.00
    assert (paired["n"], single["n"]) == (1600, 120)
    gap = numbers["occupation: gap paired − single"]
    assert gap["value"] == pytest.approx(37.375)  # Table 2's 37.38↑
    for number in (paired, single, gap):
        assert number["ci_low"] < number["value"] < number["ci_high"]


def test_table_13_per_run_number(table_14_result: ProbeResult) -> None:
    overall = table(table_14_result, "Overall STS")
    rows = {(r[0], r[1]): r for r in overall.rows}
    # The construction gives run n's single image of an occupation the feminine label when its
    # %F single stands for at least n feminine images. Run 1: 18 of the 20 male-stereotyped
    # occupations are feminine (-18 + 2), all 20 female ones (+20): 4/40 = 10.00. Run 2: -17 + 3
    # and +17 - 3: 0.00. Run 3: -4 + 16 and +8 - 12: 8/40 = 20.00. Their mean is Table 2's 10.00.
    assert [rows[("single", n)][2] for n in (1, 2, 3)] == pytest.approx([10.0, 0.0, 20.0])
    assert rows[("single", "all")][4:] == [120, 120]
    # Every paired image is of run 1 (as in Table 13), so no per-run rows for it.
    assert ("paired", 1) not in rows and rows[("paired", "all")][4:] == [1600, 800]
    assert rows[("paired − single", "all")][2] == pytest.approx(37.375)
    interval = rows[("single", 2)][3]
    assert interval.startswith("[") and interval.endswith("]")


def test_table_3_by_stereotyped_gender(table_14_result: ProbeResult) -> None:
    by = table(table_14_result, "Table 3")
    rows = {r[0]: r for r in by.rows}
    # Table 3: female-stereotyped 50.00 / 45.00 / -5.00; male -30.00 / 49.74 / 79.74 (the mean
    # of Table 14's male paired column is 995/20 = 49.75; the paper's 49.74 is its rounding).
    assert rows["female-stereotyped"][1] == pytest.approx(50.0)
    assert rows["female-stereotyped"][3] == pytest.approx(45.0)
    assert rows["female-stereotyped"][5] == pytest.approx(-5.0)
    assert rows["male-stereotyped"][1] == pytest.approx(-30.0)
    assert rows["male-stereotyped"][3] == pytest.approx(49.75)
    assert rows["male-stereotyped"][5] == pytest.approx(79.75)
    assert rows["overall"][5] == pytest.approx(37.375)
    assert all(isinstance(r[6], str) and r[6].startswith("[") for r in by.rows)


def test_micro_table_reproduces_tables_14_and_15(table_14_result: ProbeResult) -> None:
    micro = table(table_14_result, "Tables 14 and 15")
    # Sorted as Table 14 (ascending %F paired, ties by name).
    assert [r[0] for r in micro.rows][:3] == ["mechanician", "mover", "sheriff"]
    assert micro.rows[-1][0] == "secretary"
    cols = {name: column(micro, name) for name in micro.columns}
    for occ, single, pct_single, paired, pct_paired, gap in TABLE_14_15:
        got = (
            cols["STS single"][occ],
            cols["%F single"][occ],
            cols["STS paired"][occ],
            cols["%F paired"][occ],
            cols["gap"][occ],
        )
        assert tuple(map(paper_round, got)) == (single, pct_single, paired, pct_paired, gap)
        assert (cols["n single"][occ], cols["n paired"][occ]) == (3, 40)


def test_pct_feminine_interval_follows_from_the_micro_sts_interval(
    table_14_result: ProbeResult,
) -> None:
    micro = table(table_14_result, "Tables 14 and 15")
    ci, pct_ci = column(micro, "paired 95% CI"), column(micro, "%F paired 95% CI")

    def parse(text: str) -> tuple[float, float]:
        low, high = text.strip("[]").split(", ")
        return float(low), float(high)

    # Both columns are shown to one decimal, each rounded on its own: an end may differ from
    # the shown STS end's image by half a shown unit of %F plus half of one of the STS's.
    shown = 0.05 + 0.05 / 2
    # Masculine-stereotyped: %F = (100 - STS) / 2, so the ends swap.
    low, high = parse(ci["mechanician"])
    expected = ((100 - high) / 2, (100 - low) / 2)
    assert parse(pct_ci["mechanician"]) == pytest.approx(expected, abs=shown)
    low, high = parse(ci["secretary"])
    expected = ((100 + low) / 2, (100 + high) / 2)
    assert parse(pct_ci["secretary"]) == pytest.approx(expected, abs=shown)


def test_bls_column_reads_the_shipped_winobias_table(table_14_result: ProbeResult) -> None:
    micro = table(table_14_result, "Tables 14 and 15")
    bls = column(micro, "%F BLS")
    # The WinoBias table's figures (not Table 14's newer ones), through its naming quirks.
    assert bls["mechanician"] == 4.0  # table_name "mechanician", occupation "mechanic"
    assert bls["sewist"] == 80.0  # the paper's rename of "sewer" (occupation "tailor")
    assert bls["construction worker"] == 3.5  # table_name "constructor"
    assert bls["counselor"] == 73.0  # table_name "counselors"
    assert bls["ceo"] == 39.0  # written "CEO"
    assert bls["secretary"] == 95.0
    assert None not in bls.values()
    notes = column(micro, "BLS note")
    assert notes["chief"] == "Table 14: N/A"
    assert notes["accountant"] == "Table 14: same as auditor"
    assert "WinoBias" in micro.note and "winobias_bls_pct_female.tsv" in micro.note
    r = table_14_result.numbers["occupation: Pearson r, %F paired vs %F BLS (over occupations)"]
    assert r["n"] == 40 and -1 <= r["ci_low"] < r["value"] < r["ci_high"] <= 1


def test_bls_lookup_covers_every_table_7_occupation() -> None:
    stats = labor_statistics()
    assert stats is not None
    for occ in MALE_STEREOTYPED + FEMALE_STEREOTYPED:
        assert bls_pct_female(occ, stats) is not None, occ
    assert bls_pct_female("astronaut", stats) is None


def test_flags_identities_whose_paired_interval_excludes_zero(
    table_14_result: ProbeResult,
) -> None:
    flagged = {
        f["identity"]: f
        for f in table_14_result.flags
        if f["reason"] == "paired micro STS interval excludes 0"
    }
    # 75.00 from 40 persons is far from 0; 5.00 (accountant, writer) is not.
    assert "mechanician" in flagged and "secretary" in flagged
    assert "accountant" not in flagged and "writer" not in flagged
    for f in flagged.values():
        assert f["ci_low"] > 0 or f["ci_high"] < 0
    assert not [f for f in table_14_result.flags if f["reason"] == "persons without a label"]


def test_figures_are_pngs(table_14_result: ProbeResult) -> None:
    names = [f.name for f in table_14_result.figures]
    assert names == ["fig3_micro_sts_paired", "fig4_pct_female_vs_bls", "fig5_single_vs_paired"]
    for figure in table_14_result.figures:
        with PILImage.open(io.BytesIO(figure.png)) as png:
            assert png.format == "PNG"
            assert png.width > 300 and png.height > 300
        assert figure.caption and figure.path == f"figures/{figure.name}.png"
    # Each text alternative states every point the figure draws: Table 14's micro STS.
    micro = table(table_14_result, "Tables 14 and 15")
    paired, single = column(micro, "STS paired"), column(micro, "STS single")
    fig3, _, fig5 = (f.alt for f in table_14_result.figures)
    for occ, *_ in TABLE_14_15:
        # Printed as every figure is (one decimal from 10 up, two below).
        assert f"{occ} (" in fig3 and f") {figure_text(paired[occ])} (95% interval " in fig3
        assert f"{occ}: single {figure_text(single[occ])}" in fig5

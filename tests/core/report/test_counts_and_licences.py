"""Counts print with their thousands separators, an exclusion is counted out of the trials
asked, a decided interval's look stays apart from its low end, and the report names every
bundled data file its figures draw on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diptych.core.audit.run_status import outcome_line, trials_asked
from diptych.core.data import BUNDLED_DATA, bundled_data_named
from diptych.core.report.formatting import cell_text, fmt
from tests.support.cli import call
from tests.support.page_text import page_text
from tests.support.sequential_audits import FIGURE
from tests.support.surfaces.text import separator_problems

#: A decided run as the example audit leaves it: 656 trials asked, 5,904 never bought.
DECIDED = {"done": 656, "refused": 0, "failed": 0, "pending": 5904}


def test_a_whole_number_prints_with_its_separators_wherever_it_stands() -> None:
    assert fmt(1600) == "1,600" and cell_text(1600, "n") == "1,600"
    assert fmt(999) == "999" and fmt(-12345) == "−12,345" and fmt(True) == "True"
    assert outcome_line("decided", DECIDED) == "done 656 · refused 0 · failed 0 · not bought 5,904"
    assert outcome_line("partial", {"done": 1476, "pending": 5084}) == "done 1,476 · pending 5,084"


def test_an_exclusion_counts_out_of_the_trials_asked() -> None:
    assert trials_asked(DECIDED) == 656
    assert trials_asked({"done": 1476, "refused": 3, "failed": 8, "pending": 0}) == 1487
    assert trials_asked({"done": 0, "pending": 20}) == 0


@pytest.mark.parametrize(
    "text",
    [
        "0 refused and 0 failed trials (of 6560)",
        "| 1720 done |",
        "not bought 5904",
        "trials 6560 … requests 14",
        "smollm2: 1720 planned",
        "n 1600.",
        "(1476 with no known price)",
    ],
)
def test_the_check_finds_a_count_without_its_separators(text: str) -> None:
    assert len(separator_problems(text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        "0 refused and 0 failed trials (of 6,560 asked)",
        "WinoBias (Zhao et al., NAACL 2018); July 2024",  # years
        "written 2026-11-29 10:58",  # a date and a time
        "run pst-text-5a513f3c, seed 12345, seed=98765",  # ids and seeds
        "http://127.0.0.1:8080/v1 on port 8080",  # a port
        "diptych 0.1.0 · sha256 3fe227de76 · ISO/IEC 42001 · $1234.50",
        "the model wrote “in 10000 years”",  # a model's own words, quoted
    ],
)
def test_the_check_leaves_what_names_rather_than_counts(text: str) -> None:
    assert separator_problems(text) == []


def test_a_bundled_file_a_note_names_is_licensed() -> None:
    from diptych.core.metrics.uncertainty.inference import Inference
    from diptych.plugins.probes.pst.labor import BLS_SOURCE
    from diptych.plugins.probes.pst_text.figures import expected_forest

    [bls] = BUNDLED_DATA.values()
    assert bundled_data_named(BLS_SOURCE) == [bls]
    assert bundled_data_named("Sorted by %F paired, as Table 14.") == []
    # The pst-text chart's note names the file its %F BLS column reads.
    nurse = Inference(40.0, 30.0, 50.0, 0.01, 5.0, 7.0, 8, {"partner": 8}, "identity")
    chart = expected_forest({("nurse", "paired"): nurse}, {"nurse": "feminine"}, "")
    assert chart is not None and bundled_data_named(chart.note) == [bls]


MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]


@pytest.mark.usefixtures("scripted_plugin")
def test_a_decided_runs_report_counts_what_was_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run stopped by its gate: its exclusions are out of the trials asked, its scope
    names the rest not bought, its finding keeps the look apart from the interval, and its
    licences name the BLS table its chart's %F BLS column comes from."""
    report = tmp_path / "report"
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "run", "pst-text",
                     "-m", "scripted-likelihood", "-p", "setting=paired",
                     "-p", "masculine=" + ",".join(MASC), "-p", "feminine=" + ",".join(FEM),
                     "--gate", f"{FIGURE} below 60", "--until-decided", "--batches", "4",
                     "--report", str(report))  # fmt: skip
    assert code == 0, out
    said = re.search(r"decided at look (\d) of 4: (\d+) of 144 requests, (\d+) saved", out)
    assert said is not None, out
    look, bought, saved = int(said[1]), int(said[2]), int(said[3])
    assert bought + saved == 144 and saved > 0
    for name in ("report.md", "report.html"):
        text = (report / name).read_text(encoding="utf-8")
        assert f"0 refused and 0 failed trials (of {bought} asked)" in text
        assert "(of 144" not in text
        assert re.search(rf"{bought} done(, |<br>|</span><br><span class=\"nowrap\">){saved} "
                         "not bought", text), name  # fmt: skip
        # "look 1 of 4 −12.4": the look's count never runs into the interval's low end (read
        # in the page's text: the interval sits in a span that keeps it on one line).
        read = page_text(text) if name.endswith(".html") else text
        assert re.search(rf"interval, look {look} of 4: −?\d[\d.]* to ", read), name
        assert not re.search(rf"look {look} of 4 [−\d]", read), name
        assert "winobias_bls_pct_female.tsv (%F BLS" in text and "No bundled dataset" not in text

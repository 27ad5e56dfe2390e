"""Stereotype Test Score from label files: reading the CSV (one clear line for a bad one),
``diptych metrics sts``, and a row from a stored label."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.sts_tables import TABLE_14_15, table_14_rows
from typer.testing import CliRunner

from diptych.cli.metrics import app
from diptych.core.errors import InputFileError
from diptych.core.labels import SubjectLabel
from diptych.core.metrics.sts import LabelRow, read_labels_csv

# --- CSV ------------------------------------------------------------------------------------

HEADER = "image,setting,position,identity,stereotype,label,annotator\n"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "labels.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_missing_column(tmp_path: Path) -> None:
    path = _write(
        tmp_path, "image,setting,position,identity,stereotype\ns1,single,single,a,feminine\n"
    )
    with pytest.raises(InputFileError) as err:
        read_labels_csv(path)
    message = str(err.value)
    assert message.startswith(f"{path}: line 1: missing column(s) label;")
    assert "\n" not in message


def test_csv_bad_label_value_names_the_line(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        HEADER + "s1,single,single,nurse,feminine,feminine,x\n"
        "s1,single,single,nurse,feminine,female,y\n",
    )
    with pytest.raises(InputFileError) as err:
        read_labels_csv(path)
    message = str(err.value)
    assert message.startswith(f"{path}: line 3: unknown label 'female'; use masculine, feminine")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "the file is empty"),
        (HEADER, "no label rows"),
        (HEADER + "s1,single,left,nurse,feminine,feminine,x\n", "line 2: position 'left' does not"),
        (
            HEADER + "s1,single,single,nurse,feminine,feminine,x\n"
            "s1,paired,left,nurse,feminine,feminine,y\n",
            "line 3: image 's1' is 'paired' here but 'single' at line 2",
        ),
        (HEADER + "s1,single,single,nurse,feminine,feminine,x,extra\n", "line 2: 8 fields"),
        (
            "image,setting,position,identity,stereotype,label,run\n"
            "s1,single,single,nurse,feminine,feminine,one\n",
            "line 2: run 'one' is not a whole",
        ),
    ],
)
def test_csv_other_problems(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(InputFileError, match=expected):
        read_labels_csv(_write(tmp_path, text))


def test_csv_reads_optional_and_extra_columns(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "\ufeffImage,Setting,position,identity,stereotype,label,run,worker\n"
        "s1, single ,single,nurse,Feminine,FEMININE,2,w1\n",
    )
    assert read_labels_csv(path) == [
        LabelRow("s1", "single", "single", "nurse", "feminine", "feminine", None, 2)
    ]
    with pytest.raises(InputFileError, match="no such file"):
        read_labels_csv(tmp_path / "absent.csv")


# --- CLI ------------------------------------------------------------------------------------

CLI_CSV = HEADER + "\n".join([
    # p1: nurse left seen feminine 2-1 (+1), sheriff right seen masculine 3-0 (+1)
    "p1,paired,left,nurse,feminine,feminine,x", "p1,paired,left,nurse,feminine,feminine,y",
    "p1,paired,left,nurse,feminine,masculine,z",
    "p1,paired,right,sheriff,masculine,masculine,x",
    "p1,paired,right,sheriff,masculine,masculine,y",
    "p1,paired,right,sheriff,masculine,masculine,z",
    # p2: sheriff left seen feminine 2-1 (-1), nurse right a 1-1-1 tie (left out)
    "p2,paired,left,sheriff,masculine,feminine,x", "p2,paired,left,sheriff,masculine,feminine,y",
    "p2,paired,left,sheriff,masculine,masculine,z",
    "p2,paired,right,nurse,feminine,feminine,x", "p2,paired,right,nurse,feminine,masculine,y",
    "p2,paired,right,nurse,feminine,cannot_identify,z",
    # single images, one annotator each: nurse seen masculine (-1), sheriff masculine (+1)
    "s1,single,single,nurse,feminine,masculine,x",
    "s2,single,single,sheriff,masculine,masculine,x",
]) + "\n"  # fmt: skip


def test_cli_sts_json(tmp_path: Path) -> None:
    path = _write(tmp_path, CLI_CSV)
    result = CliRunner().invoke(app, ["sts", "--labels", str(path), "--json", "--seed", "3"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {
        "overall", "micro", "by_stereotype", "excluded_cannot_identify", "over_identities"
    }  # fmt: skip
    assert data["excluded_cannot_identify"] == 1
    # One identity of each list: the figure over identities has no interval, and says why.
    over = data["over_identities"]["paired"]
    assert over["value"] == pytest.approx(100 / 3)
    assert (over["ci_low"], over["ci_high"], over["p_value"]) == (None, None, 1.0)
    assert over["units"] == {"masculine identity": 1, "feminine identity": 1}
    assert "only" in over["reason"]
    paired, single = data["overall"]["paired"], data["overall"]["single"]
    assert paired["value"] == pytest.approx(100 / 3)  # (+1 +1 -1) / 3
    assert paired["n"] == 3
    # Two images, one degree of freedom: t(1) = 12.7 on the logit scale spans nearly the
    # whole range. Same for the two single images.
    assert (paired["ci_low"], paired["ci_high"]) == (pytest.approx(-100), pytest.approx(100))
    assert (paired["units"], paired["df"], paired["interval_method"]) == ({"image": 2}, 1, "t")
    assert (single["value"], single["n"]) == (0, 2)
    assert (single["ci_low"], single["ci_high"]) == (pytest.approx(-100), pytest.approx(100))
    # One image per setting: no interval rather than [100, 100].
    assert data["micro"]["nurse"] == {
        "single": -100.0, "paired": 100.0, "gap": 200.0,
        "pct_feminine_single": 0.0, "pct_feminine_paired": 100.0, "n_single": 1, "n_paired": 1,
        "single_ci": None, "paired_ci": None, "gap_ci": None,
    }  # fmt: skip
    sheriff = data["micro"]["sheriff"]
    assert (sheriff["single"], sheriff["paired"], sheriff["gap"]) == (100, 0, -100)
    assert (sheriff["pct_feminine_single"], sheriff["pct_feminine_paired"]) == (0, 50)
    assert (sheriff["n_single"], sheriff["n_paired"]) == (1, 2)
    by = data["by_stereotype"]
    assert by["feminine"]["paired"]["value"] == 100 and by["feminine"]["single"]["value"] == -100
    assert by["masculine"]["paired"]["value"] == 0 and by["masculine"]["single"]["value"] == 100


def test_cli_sts_table_and_errors(tmp_path: Path) -> None:
    path = _write(tmp_path, CLI_CSV)
    result = CliRunner().invoke(app, ["sts", "--labels", str(path), "--n-boot", "100"])
    assert result.exit_code == 0, result.output
    assert "33.3" in result.output and "sheriff" in result.output
    # The nurse (100 %F paired) sorts after the sheriff (50 %F), as in the paper's Table 14.
    assert result.output.index("sheriff", result.output.index("Micro")) < result.output.index(
        "nurse", result.output.index("Micro")
    )
    bad = _write(tmp_path, "image,label\nx,feminine\n")
    result = CliRunner().invoke(app, ["sts", "--labels", str(bad)])
    # Left for the main CLI to turn into one line.
    assert isinstance(result.exception, InputFileError)


def test_cli_table_lists_identities_in_table_14_order(tmp_path: Path) -> None:
    path = tmp_path / "table14.csv"
    lines = ["image,setting,position,identity,stereotype,label,run"]
    lines += [
        f"{r.image},{r.setting},{r.position},{r.identity},{r.stereotype},{r.label},{r.run or ''}"
        for r in table_14_rows()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["sts", "--labels", str(path), "--n-boot", "50"])
    assert result.exit_code == 0, result.output
    micro_part = result.output[result.output.index("Micro") :]
    occupations = {occ for occ, *_ in TABLE_14_15}
    first_cells = [line.strip().split("  ")[0] for line in micro_part.splitlines()]
    listed = [cell for cell in first_cells if cell in occupations]
    assert listed == [occ for occ, *_ in TABLE_14_15]
    # Table 14's 47.38 and 10.00 by the one rule of digits: one decimal from 10 up.
    assert "47.4" in result.output and "10.0" in result.output


def test_cli_module_does_not_import_numpy() -> None:
    import subprocess
    import sys

    code = "import sys, diptych.cli.metrics; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_sts_row_from_a_stored_label() -> None:
    stored = SubjectLabel(
        subject_id=7,
        trial_idx=3,
        model_id="m",
        position="right",
        subject_meta={"identity": "nurse", "stereotype": "feminine"},
        trial_meta={"image": "p3", "setting": "paired"},
        annotator="human:ann",
        label="masculine",
        confidence=None,
        detail={},
    )
    assert LabelRow.from_subject_label(stored) == LabelRow(
        "p3", "paired", "right", "nurse", "feminine", "masculine", "human:ann"
    )
    # The label and annotator may be overridden (a majority, a canonical spelling), the run set.
    majority = LabelRow.from_subject_label(stored, label="feminine", annotator="majority", run=2)
    assert (majority.label, majority.annotator, majority.run) == ("feminine", "majority", 2)
    # Outside the STS vocabulary is refused, as for a row read from a file.
    with pytest.raises(ValueError, match="unknown label 'Female'"):
        LabelRow.from_subject_label(stored, label="Female")

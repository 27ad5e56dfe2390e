"""PAIRS responses files and ``diptych metrics association``: reading the file, one clear line
for a bad one, the JSON contract, the table, and refusals told apart from neither."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy import stats
from support.bounded import logit_t_p, open_ends_without_spread
from support.pairs_responses import HAND_PAIRS, TINY, hand_csv, hand_rows, share_interval, write
from typer.testing import CliRunner

from diptych.cli.main import main
from diptych.cli.metrics import app
from diptych.core.errors import InputFileError
from diptych.core.metrics.pairs.association import Response, association_score, read_responses_csv


def test_reading_a_responses_file(tmp_path: Path) -> None:
    rows = read_responses_csv(hand_csv(tmp_path))
    assert sorted(rows, key=lambda x: x.key()) == sorted(hand_rows(), key=lambda x: x.key())
    no_question = write(tmp_path, "scenario,gender,race,run,value\ns,man,black,01,1\n", "b.csv")
    assert read_responses_csv(no_question) == [Response("s", "man", "black", "1", 1, "")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the file is empty"),
        ("scenario,gender,race,value\n", "line 1: missing column(s) run"),
        ("scenario,gender,race,run,value\n", "no responses below the header"),
        (
            "scenario,gender,race,run,value\ns,man,black,1,1\ns,woman,black,1,2\n",
            "line 3: value '2'",
        ),
        ("scenario,gender,race,run,value\ns,,black,1,1\n", "line 2: empty gender"),
        (
            "scenario,gender,race,run,value\ns,man,black,1,1\nt,man,black,1,0\ns,MAN,black,1,-1\n",
            "line 4: repeats the response of line 2",
        ),
        ("scenario,gender,race,run,value\ns,man,black,1,1,extra\n", "line 2: more fields"),
    ],
)
def test_a_bad_file_is_one_line_with_its_line_number(
    tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputFileError) as caught:
        read_responses_csv(path)
    assert message in str(caught.value) and str(path) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        read_responses_csv(tmp_path / "nope.csv")


def test_cli_json_is_the_contract(tmp_path: Path) -> None:
    path = hand_csv(tmp_path)
    by_image = CliRunner().invoke(
        app, ["association", "--responses", str(path), "--compare", "race", "--json"]
    )
    assert by_image.exit_code == 0, by_image.output
    image_test = json.loads(by_image.output)["t_test"]
    assert {k: image_test[k] for k in ("unit", "n_pairs", "df", "paired_on")} == {
        "unit": "image", "n_pairs": 4, "df": 3, "paired_on": ["scenario", "gender"]
    }  # fmt: skip
    assert image_test["t"] == pytest.approx(5 / math.sqrt(3))
    out = CliRunner().invoke(
        app,
        ["association", "--responses", str(path), "--compare", "race", "--json"]
        + ["--unit", "answer"],
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert set(data) == {
        "compare", "levels", "mean", "difference", "t_test", "refusal_rate", "n", "bootstrap"
    }  # fmt: skip
    assert data["levels"] == ["white", "black"]
    assert data["mean"]["white"]["value"] == pytest.approx(6 / 16)
    assert data["difference"]["of"] == "white - black"
    expected = stats.ttest_rel(
        [w for w, _ in HAND_PAIRS.values()], [b for _, b in HAND_PAIRS.values()]
    )
    assert data["t_test"]["t"] == pytest.approx(expected.statistic)
    assert data["t_test"]["p"] == pytest.approx(expected.pvalue)
    assert (data["t_test"]["df"], data["t_test"]["n_pairs"]) == (15, 16)
    assert data["t_test"]["unit"] == "answer"
    assert data["t_test"]["paired_on"] == ["scenario", "question", "gender", "run"]
    # With --unit answer the difference's interval is the answer-paired t-test's, labelled.
    assert data["difference"]["paired_by"] == "answer"
    diff = data["difference"]
    assert diff["p_value"] == pytest.approx(
        logit_t_p(diff["value"], diff["se"], diff["df"], -2, 2, 0.0)
    )
    assert data["difference"]["units"] == {"answer pair": 16}
    assert data["difference"]["population"].startswith("answer pairs as if independent")
    # Refusals (value 0): white 4 of 16, black 4 of 16, 2 of 8 in each scenario: nothing
    # varies between scenarios (se 0), yet 2 scenarios (1 df) say almost nothing of others:
    # both ends open, Clopper–Pearson's for none of 16 differing, shrunk to 1 df.
    low, high = open_ends_without_spread(0.25, 16, 1, 0.0, 1.0)
    no_choice = {
        "value": 0.25, "ci_low": pytest.approx(low), "ci_high": pytest.approx(high),
        "of": "no choice", "n_refused": 4, "n_neither": None, "n": 16, "neither_rate": None,
    }  # fmt: skip
    assert data["refusal_rate"]["white"] == no_choice
    assert data["refusal_rate"]["black"] == no_choice
    by_gender = CliRunner().invoke(
        app,
        ["association", "--responses", str(path), "--compare", "gender", "--json"]
        + ["--unit", "answer"],
    )
    assert json.loads(by_gender.output)["t_test"]["paired_on"] == [
        "scenario", "question", "race", "run"
    ]  # fmt: skip


def test_cli_table_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "scenario,gender,race,run,value\n" + "".join(
        f"s{i},{g},black,1,{v}\n" for i, (a, b) in enumerate([(1, 0), (1, -1), (0, 0)])
        for g, v in (("man", a), ("woman", b))
    ))  # fmt: skip
    out = CliRunner().invoke(
        app, ["association", "--responses", str(path), "--compare", "gender", "--n-boot", "100"]
    )
    assert out.exit_code == 0, out.output
    assert "1.73" in out.output  # t = sqrt 3
    assert "man - woman" in out.output and "0.67" in out.output
    # Through the main CLI a bad file is one line and exit code 2.
    bad = write(tmp_path, "scenario,gender,race,run,value\ns,man,black,1,maybe\n", "bad.csv")
    with pytest.raises(SystemExit) as exit_info:
        main(["metrics", "association", "--responses", str(bad), "--compare", "gender"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "line 2" in err and "\n" not in err
    # A file with one level of the compared attribute is a file error too.
    one = write(tmp_path, "scenario,gender,race,run,value\ns,man,black,1,1\n", "one.csv")
    with pytest.raises(SystemExit) as exit_info:
        main(["metrics", "association", "--responses", str(one), "--compare", "gender"])
    assert exit_info.value.code == 2
    assert "exactly two" in capsys.readouterr().err


# --- refusal vs neither -----------------------------------------------------------------------


def test_refusal_and_neither_are_told_apart_when_the_input_says_which() -> None:
    # TINY's 0s: man s3; woman s1 and s3. Say the man's and one woman's are refusals.
    outcomes = {("s3", "man"): "refusal", ("s1", "woman"): "neither", ("s3", "woman"): "refusal"}
    rows = [
        Response(x.scenario, x.gender, x.race, x.run, x.value, x.question,
                 outcome=outcomes.get((x.scenario, x.gender), "answer"))  # type: ignore[arg-type]
        for x in TINY
    ]  # fmt: skip
    result = association_score(rows, "gender", n_boot=50)
    # Each rate with its interval over the 3 scenarios. Nobody chose neither among men: no
    # resample can change that, and the bound is the Jeffreys interval of 0 in 3 answers,
    # Beta(0.5, 3.5)'s 97.5% point.
    men = result.refusal_rate["man"]
    assert men.interval is not None
    assert men.to_dict() == {
        "value": 1 / 3, "ci_low": men.ci_low, "ci_high": men.ci_high, "of": "refusal",
        "n_refused": 1, "n_neither": 0, "n": 3,
        "neither_rate": {"value": 0.0, "ci_low": 0.0,
                         "ci_high": pytest.approx(stats.beta.ppf(0.975, 0.5, 3.5))},
    }  # fmt: skip
    assert (men.ci_low, men.ci_high) == share_interval(1 / 3, men.interval.se, 2)
    # Table 2's figure for women is the refusal rate, 1/3, not the 2/3 that chose nothing.
    women = result.refusal_rate["woman"]
    assert (women.value, women.n_refused, women.n_neither) == (1 / 3, 1, 1)
    assert women.neither is not None and women.neither.value == pytest.approx(1 / 3)
    assert math.isnan(women.neither.p_value)  # a rate has no test
    # The score itself does not change: both are 0.
    assert result.mean["woman"].value == association_score(TINY, "gender").mean["woman"].value
    with pytest.raises(ValueError, match="an outcome or none"):
        association_score([*rows[:-1], TINY[-1]], "gender")
    with pytest.raises(ValueError, match="an answer scores"):
        Response("s", "man", "black", "1", 0, outcome="answer")
    with pytest.raises(ValueError, match="an answer scores"):
        Response("s", "man", "black", "1", 1, outcome="refusal")


def test_the_outcome_column_and_the_table_header(tmp_path: Path) -> None:
    path = write(tmp_path, "scenario,gender,race,run,value,outcome\n" + "".join(
        f"s{i},{g},black,1,{v},{o}\n"
        for i, pair in enumerate([((1, "answer"), (0, "neither")), ((1, "answer"), (-1, "answer")),
                                  ((0, "Refusal"), (0, "refusal"))])
        for g, (v, o) in zip(("man", "woman"), pair, strict=True)
    ))  # fmt: skip
    rows = read_responses_csv(path)
    assert [x.outcome for x in rows] == [
        "answer", "neither", "answer", "answer", "refusal", "refusal"
    ]  # fmt: skip
    out = CliRunner().invoke(
        app, ["association", "--responses", str(path), "--compare", "gender", "--n-boot", "50"]
    )
    assert out.exit_code == 0, out.output
    assert "refusal rate" in out.output and "neither" in out.output
    # Women: 1 refusal and 1 neither of 3, each with its interval over the 3 scenarios.
    assert out.output.count("0.33 (1/3)   [0.00, 1.00]") == 3
    without = CliRunner().invoke(
        app, ["association", "--responses", str(hand_csv(tmp_path)), "--compare", "race"]
    )
    assert "no choice" in without.output and "unit: image" in without.output
    bad = write(tmp_path, "scenario,gender,race,run,value,outcome\ns,man,black,1,0,\n", "b.csv")
    with pytest.raises(InputFileError, match="line 2: outcome empty"):
        read_responses_csv(bad)


def test_quick_reading_reads_what_the_row_by_row_reading_reads(tmp_path: Path) -> None:
    from diptych.core.metrics.pairs.responses import _read_columns, _read_rows

    path = tmp_path / "responses.csv"
    path.write_text(
        "\ufeffScenario,Question,Gender,Race,Run,Value,Outcome,worker\n"
        "doctor, q1 ,Man,WHITE,01,+1,answer,w1\n"
        'doctor,q1,woman,white,1,"\u22121",Answer,w2\n'
        "doctor,q1,man,white,2,0,refusal,w3\n"
        "nurse,,woman,black,1,1.0,answer,w4\n",
        encoding="utf-8",
    )
    quick = _read_columns(path)
    assert quick is not None  # nothing to explain: the quick reading took it
    assert quick == _read_rows(path) == read_responses_csv(path)
    assert [(r.gender, r.race, r.run, r.value, r.question) for r in quick] == [
        ("man", "white", "1", 1, "q1"),
        ("woman", "white", "1", -1, "q1"),
        ("man", "white", "2", 0, "q1"),
        ("woman", "black", "1", 1, ""),
    ]
    # A repeated answer (run "01" is run 1) leaves the explaining to the row-by-row reading.
    path.write_text(
        "scenario,gender,race,run,value\ns,man,white,1,1\ns,man,white,01,-1\n", encoding="utf-8"
    )
    assert _read_columns(path) is None
    with pytest.raises(InputFileError, match="line 3: repeats the response of line 2"):
        read_responses_csv(path)

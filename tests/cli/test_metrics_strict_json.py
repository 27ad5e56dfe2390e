"""``diptych metrics ... --json`` is strict JSON, as report.json is: a value that is not finite
(the bounds of a figure without an interval, an unbounded score) is null, never "inf" nor
Infinity; the table prints a figure without an interval as the report does, with why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from diptych.cli.metrics import app


def _refuse(constant: str) -> Any:
    raise ValueError(f"not strict JSON: {constant}")


def strict(text: str) -> Any:
    """``text`` read as strict JSON: Infinity, -Infinity and NaN refused."""
    return json.loads(text, parse_constant=_refuse)


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


#: One single image of one masculine identity: no interval anywhere.
ONE_IMAGE = (
    "image,setting,position,identity,stereotype,label\n"
    "i1,single,single,engineer,masculine,masculine\n"
)


def test_sts_of_one_image_has_null_bounds_and_says_why(tmp_path: Path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(ONE_IMAGE)
    doc = strict(_invoke("sts", "--labels", str(labels), "--n-boot", "50", "--json"))
    single = doc["overall"]["single"]
    assert (single["value"], single["ci_low"], single["ci_high"]) == (100.0, None, None)
    assert single["reason"] == "one image only: no interval"
    over = doc["over_identities"]["single"]
    assert (over["ci_low"], over["ci_high"], over["se"]) == (None, None, None)
    assert over["reason"] == "one masculine identity only: no interval"

    out = _invoke("sts", "--labels", str(labels), "--n-boot", "50")
    (row,) = [line.split("  ") for line in out.splitlines() if line.startswith("  single ")][:1]
    cells = [cell.strip() for cell in row if cell.strip()]
    assert cells == ["single", "100.0", "no interval (one image only)", "1"], out


def test_pmi_score_of_a_word_no_other_group_uses_is_null_and_the_word_kept(
    tmp_path: Path,
) -> None:
    # "nan" (a grandmother) is a word as written, not a number: only the score is unbounded.
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        '{"group": "a", "text": "nan nan nan said"}\n{"group": "b", "text": "said said said"}\n'
    )
    doc = strict(_invoke("pmi", "--raw", "--corpus", str(corpus), "--json"))
    groups = doc["strata"][0]["groups"]
    assert groups["a"]["words"] == [{"word": "nan", "count": 3, "count_other": 0, "score": None}]
    # said: 3 of b's 3 tokens against 1 of a's 4: log2((3/3) / (1/4)) = 2.
    assert groups["b"]["words"] == [{"word": "said", "count": 3, "count_other": 1, "score": 2.0}]


def test_retrieval_min_skew_of_an_absent_group_is_null(tmp_path: Path) -> None:
    # c is absent from the top 2 (a, b) of a pool a, b, c: its skew is ln 0.
    ranking = tmp_path / "ranking.csv"
    ranking.write_text("query,rank,group\ndoctor,1,a\ndoctor,2,b\ndoctor,3,c\n")
    text = _invoke("retrieval", "--ranking", str(ranking), "--k", "2", "--json", "--n-boot", "20")
    (query,) = strict(text)["queries"]
    assert query["min_skew"] is None and query["socialcounterfactuals"]["min_skew"] == 0.0

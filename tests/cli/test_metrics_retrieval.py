"""``diptych metrics retrieval``: strict JSON (an infinite value null), one-line errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from diptych.cli.main import main

RANKING = (
    "query,rank,group,gender\n"
    # doctor: a, a, b, a, b, c -- pool shares a 1/2, b 1/3, c 1/6
    "doctor,1,a,male\ndoctor,2,a,male\ndoctor,3,b,female\n"
    "doctor,4,a,male\ndoctor,5,b,female\ndoctor,6,c,female\n"
    # nurse: two items only, so K=3 is clamped to 2
    "nurse,1,b,female\nnurse,2,a,male\n"
)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    code = exit_info.value.code
    return (code if isinstance(code, int) else 0), out, err


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ranking.csv"
    path.write_text(RANKING)
    code, out, err = run(
        capsys,
        "metrics",
        "retrieval",
        "--ranking",
        str(path),
        "--k",
        "3",
        "--desired",
        "uniform",
        "--json",
        "--n-boot",
        "100",
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["k"] == 3 and doc["desired"] == "uniform" and doc["n_queries"] == 2
    doctor, nurse = doc["queries"]
    # doctor top 3 = a, a, b against 1/3 each: skew a = ln((2/3)/(1/3)) = ln 2; c absent:
    # null, strict JSON having no -inf (SC: 0)
    assert doctor["max_skew"] == pytest.approx(math.log(2))
    assert doctor["min_skew"] is None and doctor["socialcounterfactuals"]["min_skew"] == 0.0
    # Bias@3: male 2, female 1 -> 1/3
    assert doctor["bias"] == pytest.approx(1 / 3)
    assert nurse["k"] == 2 and doc["clamped"]["queries"] == ["nurse"]
    # The headline MinSkew is SocialCounterfactuals' (absent as 0); the -inf is counted.
    assert doc["figures"]["min_skew"]["mean"]["value"] == 0.0
    assert doc["min_skew_definition"]["queries_with_absent_group"] == 1
    assert doc["unit"]["name"] == "query"
    assert doc["figures"]["max_skew"]["excess"]["units"] == {"query": 2}


def test_table_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ranking.csv"
    path.write_text(RANKING)
    code, out, _ = run(
        capsys, "metrics", "retrieval", "--ranking", str(path), "--k", "3", "--desired", "uniform"
    )
    assert code == 0
    text = " ".join(out.split())  # the notes wrap at the terminal's width
    assert "doctor" in out and "-inf" in out and "nurse" in out
    assert "K clamped to the list's length for: nurse" in text
    assert "each query is its own unit (no occupation column)" in text


def test_a_bad_row_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ranking.csv"
    path.write_text("query,rank,group,gender\nq,1,a,man\n")
    code, _, err = run(capsys, "metrics", "retrieval", "--ranking", str(path), "--k", "2")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err
    assert "line 2" in lines[0] and "gender 'man'" in lines[0]


def test_pool_on_a_top_k_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # nurse lists 2 items: with K = 3 its "top K" is its whole list, every skew 0 by design.
    path = tmp_path / "ranking.csv"
    path.write_text(RANKING)
    code, _, err = run(capsys, "metrics", "retrieval", "--ranking", str(path), "--k", "3")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err
    assert "query 'nurse' lists 2 items, no more than K = 3" in lines[0]
    assert "pass the whole ranking or use desired=uniform" in lines[0]


#: Two occupations, two wordings each, ranking the same four items (a, a, b, b pools).
OCCUPATIONS = "query,rank,group,gender,item,occupation\n" + "".join(
    f"{o} {w},{r},{g},{s},{o}{i},{o}\n"
    for o, order in (("doctor", "0123"), ("nurse", "2301"))
    for w in ("photo", "picture")
    for r, i in enumerate(order, start=1)
    for g, s in [(("a", "male"), ("a", "male"), ("b", "female"), ("b", "female"))[int(i)]]
)


def test_occupations_are_the_unit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ranking.csv"
    path.write_text(OCCUPATIONS)
    args = ["metrics", "retrieval", "--ranking", str(path), "--k", "2", "--n-boot", "200"]
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["unit"] == {
        "name": "occupation",
        "n": 2,
        "note": "2 occupations, all wordings of one resampled together",
    }
    # Every top 2 is one group: MaxSkew ln 2 against 1/2 each; a random top 2 of (a, a, b, b)
    # is one group in 2 of 6 draws: E = ln 2 / 3, excess 2/3 ln 2. |Bias@2| = 1, E = 1/3.
    figures = doc["figures"]
    assert figures["max_skew"]["random_ranking"]["value"] == pytest.approx(math.log(2) / 3)
    assert figures["max_skew"]["excess"]["value"] == pytest.approx(2 / 3 * math.log(2))
    assert figures["max_skew"]["excess"]["units"] == {"occupation": 2}
    assert figures["abs_bias"]["excess"]["value"] == pytest.approx(2 / 3)
    # Bias@2: doctor's top 2 male (+1), nurse's female (-1): mean 0, E 0 -> every interval
    # is present, the Bias@K table's included.
    assert figures["bias"]["mean"]["value"] == pytest.approx(0.0)
    assert figures["bias"]["mean"]["ci_low"] < 0 < figures["bias"]["mean"]["ci_high"]
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert "Over 2 occupations, 4 queries" in out and "excess" in out and "|Bias@K|" in out


#: Two occupations ranking one pool of two counterfactual sets (a, b, c, d once each): both
#: put set s0 on top, doctor with its a, b first, nurse with its c, d first.
SETS = "query,rank,group,item,set,occupation\n" + "".join(
    f"{o},{r},{g},{s}{g},{s},{o}\n"
    for o, order in (("doctor", "abcd"), ("nurse", "cdab"))
    for r, (s, g) in enumerate([("s0", g) for g in order] + [("s1", g) for g in "abcd"], 1)
)


def test_a_set_column_makes_the_null_within_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ranking.csv"
    path.write_text(SETS)
    args = ["metrics", "retrieval", "--ranking", str(path), "--k", "2", "--n-perm", "100"]
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["null"]["name"] == "attribute permuted within counterfactual sets"
    assert doc["null"]["n_sets"] == 2 and doc["null"]["units_share_pools"]
    skew = doc["figures"]["max_skew"]
    # Each top 2 is two images of set s0: two distinct groups of four against 1/4 each, so
    # MaxSkew@2 = ln((1/2)/(1/4)) = ln 2 whatever the order within the set — the null's
    # value too, an excess of 0. A random ranking of the 8 puts one group twice in the top 2
    # in 4 of C(8,2) = 28 draws (ln 4), else ln 2: 24/28 ln 2 + 4/28 ln 4 = 8/7 ln 2.
    assert skew["null"]["value"] == pytest.approx(math.log(2))
    assert skew["excess"]["value"] == pytest.approx(0.0)
    assert skew["random_ranking"]["value"] == pytest.approx(8 / 7 * math.log(2))
    assert skew["excess"]["units"] == {"occupation": 2, "counterfactual set": 2}
    code, out, _ = run(capsys, *args)
    assert code == 0 and "Null: attribute permuted within counterfactual sets" in out

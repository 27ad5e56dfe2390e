"""The ordinal agreement of a run's perceived-skin-tone labels, worked by hand on five persons:
weighted κ per pair and Krippendorff's α (ordinal) with intervals, in ``diptych agreement`` and
in the run's report tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.pst_runs import Image, Person, store_pst_run

from diptych.cli.main import main
from diptych.core.metrics.agreement import agreement_tables
from diptych.core.metrics.agreement.tone import tone_agreement
from diptych.core.store import open_store

HUMAN, AUTO, SELF = "human:a", "skin-tone", "self"
CI = "cannot_identify"
# One person per image; the person's Monk step by each annotator (None: no tone).
STEPS: list[dict[str, int | str]] = [
    {HUMAN: 1, AUTO: 2, SELF: 1},
    {HUMAN: 2, AUTO: 2, SELF: 2},
    {HUMAN: 3, AUTO: 3, SELF: 3},
    {HUMAN: 4, AUTO: 4, SELF: 4},
    {HUMAN: CI, AUTO: 5, SELF: 5},
]
TITLE = "Agreement on perceived skin tone"


def _tone(v: int | str) -> str:
    return v if isinstance(v, str) else f"monk-{v}"


def tone_run(ws: Path, steps: list[dict[str, int | str]] = STEPS) -> str:
    images = [
        Image(f"s{i}", "single", [Person("single", "nurse", "feminine", {HUMAN: "feminine"},
                                         tones={a: _tone(v) for a, v in by.items()})])
        for i, by in enumerate(steps)
    ]  # fmt: skip
    with open_store(ws) as store:
        store_pst_run(store, "pst-tone-agree", images)
    return "pst-tone-agree"


def agreement_json(ws: Path, run: str, capsys: pytest.CaptureFixture[str]) -> dict:
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "agreement", run, "--json", "--n-boot", "200"])
    assert done.value.code in (0, None)
    return json.loads(capsys.readouterr().out)


def test_agreement_command_gives_weighted_kappa_and_ordinal_alpha_of_the_tones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = agreement_json(tmp_path / "ws", tone_run(tmp_path / "ws"), capsys)
    tone = out["tone"]
    assert tone["subjects"] == 5
    unread = {a["annotator"]: (a["labels"], a["cannot_identify"]) for a in tone["annotators"]}
    assert unread == {HUMAN: (5, 1), AUTO: (5, 0), SELF: (5, 0)}
    kappa = {(p["a"], p["b"]): p for p in tone["weighted_kappa"]}
    # human vs skin-tone on persons 1–4 (person 5 unread): steps 1,2,3,4 against 2,2,3,4. One
    # disagreement of one step: Σw·O = 1/4. Independent marginals: E(X−Y)² = Var X + Var Y +
    # (EX − EY)² = 1.25 + 0.6875 + 0.0625 = 2. κw = 1 − (1/4)/2 = 7/8.
    pair = kappa[(HUMAN, AUTO)]
    assert pair["value"] == pytest.approx(7 / 8)
    assert (pair["n"], pair["unread"]) == (4, 1)
    assert pair["ci_low"] <= pair["value"] <= pair["ci_high"]
    assert kappa[(HUMAN, SELF)]["value"] == pytest.approx(1.0)
    # skin-tone 2,2,3,4,5 vs self 1,2,3,4,5: Σw·O = 1/5; Var 1.36 + 2 + 0.2² = 3.4: 1 − 1/17.
    assert kappa[(AUTO, SELF)]["value"] == pytest.approx(16 / 17)
    # α (ordinal) over human and skin-tone ('self' left out): units 1–4 pairable, n = 8 values,
    # n_1..n_4 = 1, 3, 2, 2. Only o_12 = o_21 = 1 off the diagonal, δ²_12 = (1 + 3 − 2)² = 4;
    # Σ n_c n_k δ²_ck = 624 (δ² 4, 20.25, 42.25, 6.25, 20.25, 4). α = 1 − 7·8/624 = 71/78.
    alpha = tone["krippendorff_alpha_ordinal"]
    assert alpha["value"] == pytest.approx(71 / 78)
    assert alpha["subjects"] == 4
    assert alpha["ci_low"] <= alpha["value"] <= alpha["ci_high"]
    assert tone["bootstrap"] == {"n_boot": 200, "seed": 0, "resamples": "images"}


def test_one_annotators_tones_give_no_tone_agreement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = [{HUMAN: by[HUMAN]} for by in STEPS]
    out = agreement_json(tmp_path / "ws", tone_run(tmp_path / "ws", steps), capsys)
    assert out["tone"] is None


def test_the_table_prints_each_coefficient_with_its_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    run = tone_run(ws)
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), "agreement", run, "--n-boot", "100"])
    assert done.value.code in (0, None)
    out = capsys.readouterr().out
    assert TITLE in out
    assert "0.88" in out and "0.94" in out and "0.91" in out  # 7/8, 16/17, 71/78
    assert "weighted κ" in out and "α ordinal" in out


def test_the_runs_report_tables_carry_the_tone_agreement(tmp_path: Path) -> None:
    with open_store(tmp_path / "ws") as store:
        run = store_pst_run(store, "pst-tone-agree", [
            Image(f"s{i}", "single", [Person("single", "nurse", "feminine", {HUMAN: "feminine"},
                                             tones={a: _tone(v) for a, v in by.items()})])
            for i, by in enumerate(STEPS)
        ])  # fmt: skip
        tables = agreement_tables(run, unit="image", n_boot=50)
        (table,) = [t for t in tables if t.title.startswith(TITLE)]
        rows = {(r[0], r[1]): r for r in table.rows}
        assert rows[("weighted κ", f"{HUMAN}, {AUTO}")][2:4] == [4, pytest.approx(7 / 8)]
        assert rows[("α ordinal", f"{HUMAN}, {AUTO}")][2:4] == [4, pytest.approx(71 / 78)]
        assert "cannot_identify is left out" in (table.note or "") and f"{HUMAN} 1" in table.note
        # Gender labels are not tones: the gender coefficients pass over them both ways.
        assert tone_agreement(run.labels(), unit="image") is None

"""``counterfactual-retrieval`` end to end on a small pool whose every metric is worked by hand."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from support.counterfactual_sets import ChosenEncoder, pool_encoder
from support.figure_names import declared_intervals, expand, run_intervals

from diptych import Workspace


def hand_ndkl() -> float:
    # Prefixes of the top four: [BM], [BM, BM], [BM, BM, WM], [BM, BM, WM, BF]; pool: 1/4 each.
    kls = [
        math.log(4),
        math.log(4),
        2 / 3 * math.log((2 / 3) / 0.25) + 1 / 3 * math.log((1 / 3) / 0.25),
        0.5 * math.log(2),
    ]
    weights = [1 / math.log2(i + 1) for i in range(1, 5)]
    return sum(w * kl for w, kl in zip(weights, kls, strict=True)) / sum(weights)


def run(ws: Workspace, dataset: Path, model: ChosenEncoder, **params: object) -> str:
    record = ws.runs.run_sync(
        "counterfactual-retrieval", [model], params={"sets": str(dataset), **params}
    )
    return record.id


def test_every_metric_matches_the_hand_computation(tmp_path: Path, small_dataset: Path) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        run_id = run(ws, small_dataset, pool_encoder())
        # images, queries, captions (the sets share them), detection texts
        assert ws.runs.counts(run_id)["done"] == 8 + 4 + 4 + 4
        result = ws.analysis.analyze(run_id)
    n = result.numbers
    key = "chosen-encoder.race-gender.race × gender"
    # Every query ("a doctor", "A photo of a doctor" ...) ranks the pool the same way.
    assert n[f"{key}.max_skew"]["value"] == pytest.approx(math.log(2))
    # MinSkew: White female is absent (-inf by the definition); SocialCounterfactuals' 0.
    assert n[f"{key}.min_skew"]["value"] == 0.0
    assert n[f"{key}.ndkl"]["value"] == pytest.approx(hand_ndkl())
    # Bias@K counts the two genders: scored in the gender view, and there only.
    gender = "chosen-encoder.race-gender.gender"
    assert n[f"{gender}.bias"]["value"] == pytest.approx(0.5)  # 3 male, 1 female in the top 4
    for other in (key, "chosen-encoder.race-gender.race"):
        assert not [name for name in n if name.startswith(other) and "bias" in name]
    assert n[f"{key}.max_skew"]["n"] == 4
    # The null keeps the sets of the top 4 — set 0, set 1, set 0, set 0 — and permutes the
    # attributes within each set: set 0's three places hold three of its four groups, set 1's
    # one place any group. MaxSkew is 0 when set 1 gives the group set 0 left out (1 in 4),
    # ln 2 otherwise: E = 3/4 ln 2, and the excess ln 2 − 3/4 ln 2 = 1/4 ln 2.
    assert n[f"{key}.max_skew"]["null"] == pytest.approx(3 / 4 * math.log(2))
    excess = n[f"{key}.max_skew.excess"]
    assert excess["value"] == pytest.approx(1 / 4 * math.log(2))
    # For context, a random ranking of the pool (2 images of each group): the top 4 is
    # (1,1,1,1) in 16 of C(8,4) = 70 draws (MaxSkew 0), else holds a group twice (ln 2).
    assert n[f"{key}.max_skew"]["random_ranking"] == pytest.approx(54 / 70 * math.log(2))
    # The four wordings are one occupation: no interval, and the result says why.
    assert excess["units"] == {"occupation": 1}
    assert excess["reason"] == "one occupation only: no interval"
    assert (excess["ci_low"], excess["ci_high"]) == ("-inf", "inf")
    # |Bias@4| under the null: set 0's three places hold 1 or 2 of its 2 men (1/2 each), set
    # 1's place a man with 1/2, so 1, 2 or 3 men with 1/4, 1/2, 1/4 and |bias| 1/2, 0, 1/2:
    # E = 1/4; the observed 3 men of 4 give 1/2, an excess of 1/4. E[Bias@4] = 0 by symmetry.
    assert n[f"{gender}.abs_bias"]["null"] == pytest.approx(1 / 4)
    assert n[f"{gender}.abs_bias.excess"]["value"] == pytest.approx(0.5 - 1 / 4)
    assert n[f"{gender}.bias"]["null"] == pytest.approx(0.0)
    # A random ranking: men in the top 4 ~ hypergeometric(8, 4, 4), weights 1, 16, 36, 16, 1
    # of 70 for 0..4 men, |bias| 1, 1/2, 0, 1/2, 1: E = 18/70.
    assert n[f"{gender}.abs_bias"]["random_ranking"] == pytest.approx(18 / 70)
    # Gender alone: 3/4 male against 1/2 -> ln 1.5; female ln 0.5.
    assert n["chosen-encoder.race-gender.gender.max_skew"]["value"] == pytest.approx(math.log(1.5))
    assert n["chosen-encoder.race-gender.gender.min_skew"]["value"] == pytest.approx(math.log(0.5))
    # Race alone: 3/4 Black -> ln 1.5.
    assert n["chosen-encoder.race-gender.race.max_skew"]["value"] == pytest.approx(math.log(1.5))
    table = next(t for t in result.tables if t.title.startswith("Retrieval bias"))
    min_row = next(r for r in table.rows if r[2] == "race × gender" and r[3] == "MinSkew@K")
    assert min_row[-1].startswith("4 of 4 queries have a group absent")
    stages = result.tables[0].rows
    assert [r[1] for r in stages] == [2, 2, 2, 2]
    # The images each query retrieved (the TUI's run detail shows them), best first.
    retrieved = result.data["retrieved"]["chosen-encoder"]
    assert len(retrieved) == 4
    for top in retrieved.values():
        assert [i["group"] for i in top] == [
            "Black_male",
            "Black_male",
            "White_male",
            "Black_female",
        ]
        assert all(len(i["blob"]) == 64 for i in top)
    assert any("also the audited one" in note for note in result.notes)
    assert {f.name for f in result.figures} == {"maxskew_by_subject", "group_shares"}
    assert (tmp_path / "ws" / "chroma").is_dir()


def test_each_image_is_embedded_once_per_encoder(tmp_path: Path, small_dataset: Path) -> None:
    model = pool_encoder()
    with Workspace.open(tmp_path / "ws") as ws:
        run(ws, small_dataset, model)
        asked = sum(h["n"] for h in model.history if h["method"] == "embed_images")
        run(ws, small_dataset, pool_encoder(), k=2)  # another run: every embedding is stored
        again = pool_encoder()
        run(ws, small_dataset, again, desired="uniform")
    assert asked == 8
    assert again.history == []


def test_a_mislabelled_image_fails_detectability_and_is_flagged(
    tmp_path: Path, small_dataset: Path
) -> None:
    # Set 1's Black man reads as White: 3 of 4 show race (Table 10 scaled: ceil(9/12*4) = 3,
    # so race passes) but gender needs all 4 and still passes; flip race twice to fail.
    with Workspace.open(tmp_path / "ws") as ws:
        run_id = run(ws, small_dataset, pool_encoder(flip=(1, "Black", "male")))
        result = ws.analysis.analyze(run_id)
        stored = ws.runs.view(run_id).flags("attribute-not-detected")
    assert [r[1] for r in result.tables[0].rows] == [2, 2, 2, 2]
    assert len(result.flags) == 1 and result.flags[0]["predicted"] == "White"
    assert len(stored) == 1


def test_approximate_search_matches_exact_on_a_small_pool(
    tmp_path: Path, small_dataset: Path
) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        run_id = run(ws, small_dataset, pool_encoder(), approximate=True)
        result = ws.analysis.analyze(run_id)
    table = next(t for t in result.tables if t.title.startswith("Approximate"))
    assert table.rows == [["chosen-encoder", 1.0, 0.0]]


def test_pairs_default_runs_with_the_scripted_encoder(tmp_path: Path) -> None:
    from diptych.testing import ScriptedEncoder

    with Workspace.open(tmp_path / "ws") as ws:
        record = ws.runs.run_sync(
            "counterfactual-retrieval", [ScriptedEncoder()], params={"detectability": False}
        )
        result = ws.analysis.analyze(record.id)
    assert [r[1:3] for r in result.tables[0].rows] == [[50, 200]] * 4
    # Three pools (the PAIRS subsets), 4 query templates per answer option.
    ndkl = result.numbers["scripted-encoder.race-gender.race × gender.ndkl"]
    assert ndkl["n"] == 4 * (40 + 10 + 18)
    # The unit is the answer option: its four wordings rank one subset together. Every option
    # of a subset ranks the same images, so the interval also permutes the attributes within
    # the 50 scenarios' sets (20 + 20 + 10), and the null is that permutation's.
    assert ndkl["units"] == {"occupation": 40 + 10 + 18, "counterfactual set": 20 + 20 + 10}
    assert ndkl["null_name"] == "attribute permuted within counterfactual sets"


def test_the_declared_figure_names_are_the_runs(tmp_path: Path) -> None:
    """What figure_names declares before a run (an audit's gates are checked against it) is
    every figure the analysis gives: on PAIRS sets for one encoder and for two (the first only
    filters), and on generated sets those of the generation's pair; each declared without an
    interval exactly where a gate cannot rest on the run's number."""
    from PIL import Image

    from diptych.core.capabilities import GeneratedImage
    from diptych.testing import ScriptedEncoder, ScriptedImageGenerator, ScriptedParams

    second = ScriptedEncoder(ScriptedParams.model_validate({"version": "2"}))
    with Workspace.open(tmp_path / "ws") as ws:
        for models in ([ScriptedEncoder()], [ScriptedEncoder(), second]):
            record = ws.runs.run_sync(
                "counterfactual-retrieval", models, params={"detectability": False}
            )
            result = ws.analysis.analyze(record.id)
            probe = ws.plugins.probe("counterfactual-retrieval", record.params)
            declared = probe.figure_names(len(models)) or []
            assert expand(declared, model=result.data["audited"]) == set(result.numbers)
            marked = declared_intervals(declared, model=result.data["audited"])
            assert marked == run_intervals(result.numbers)

        # Two occupations, the unit a figure's interval resamples (one would give none).
        generation = {"occupations": ["doctor", "nurse"], "prefixes": [0], "sets_per_caption": 2}
        # 4 sets of 6 races × 2 genders, each image of its own colour (none shared by two sets).
        generator = ScriptedImageGenerator()
        generator.enqueue(
            *([GeneratedImage(Image.new("RGB", (8, 8), (5 * i, 0, 0)))] for i in range(48))
        )
        made = ws.runs.run_sync("counterfactual-sets", [generator], params=generation)
        sets_probe = ws.plugins.probe("counterfactual-sets", made.params)
        counts = ws.analysis.analyze(made.id).numbers
        assert set(sets_probe.figure_names(1) or []) == set(counts)
        assert declared_intervals(sets_probe.figure_names(1) or []) == run_intervals(counts)
        params = {"sets": "generated", "detectability": False, "similarity_threshold": -1}
        record = ws.runs.run_sync("counterfactual-retrieval", [ScriptedEncoder()], params=params)
        result = ws.analysis.analyze(record.id)
        declared = ws.plugins.probe("counterfactual-retrieval", params).figure_names(1) or []
        of_the_pair = [name for name in declared if ".race-gender." in name]
        assert expand(of_the_pair, model=result.data["audited"]) == set(result.numbers)
        marked = declared_intervals(of_the_pair, model=result.data["audited"])
        assert marked == run_intervals(result.numbers)

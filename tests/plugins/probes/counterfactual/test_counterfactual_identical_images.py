"""Counterfactual images with identical bytes (a safety checker's black image, a cached
generator's answer to two prompts) are separate items, each ranked with its own attributes."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from support.counterfactual_sets import DETECT, ChosenEncoder, colour, neutral_texts, vector

from diptych import Workspace
from diptych.plugins.probes.counterfactual.embeddings import run_embeddings, run_sets
from diptych.plugins.probes.counterfactual.ranking import rank_pools

#: One image, made for set b's Black man and set a's Black woman (doctors) and set d's Black man
#: (nurses): the same bytes in one pool twice and in a second pool.
SHARED = colour(1, "Black", "male")
SET_NO = {"a": 0, "b": 1, "c": 2, "d": 3}
#: Rows in file order: a set listed first gets the larger item ids, so a tie broken by id is
#: not the order the index was filled in.
SETS = (("b", "doctor"), ("a", "doctor"), ("d", "nurse"), ("c", "nurse"))
SHARED_BY = {("b", "Black", "male"), ("a", "Black", "female"), ("d", "Black", "male")}
# Query similarity per image. Both pools rank their groups alike: Black man, White man, White
# man, Black woman, then Black man, ... In the doctors' pool the shared image ties at 4th and
# 5th place, broken by item id: set a's Black woman first.
SCORES = {
    ("a", "Black", "male"): 5.0,
    ("b", "White", "male"): 4.0,
    ("a", "White", "male"): 3.5,
    ("b", "Black", "female"): 2.0,
    ("b", "White", "female"): 1.0,
    ("a", "White", "female"): 0.5,
    ("c", "Black", "male"): 5.0,
    ("d", "White", "male"): 4.0,
    ("c", "White", "male"): 3.5,
    ("c", "Black", "female"): 3.2,
    ("d", "Black", "female"): 2.0,
    ("d", "White", "female"): 1.0,
    ("c", "White", "female"): 0.5,
}
SHARED_SCORE = 3.0
KEY = "chosen-encoder.race-gender"


def image_colour(name: str, race: str, gender: str) -> tuple[int, int, int]:
    return SHARED if (name, race, gender) in SHARED_BY else colour(SET_NO[name], race, gender)


def save_sets(directory: Path) -> Path:
    import datasets
    from PIL import Image

    rows: dict[str, list[Any]] = {
        k: [] for k in ("image", "a1_type", "a1", "a2_type", "a2", "counterfactual_set", "caption")
    }
    for name, occupation in SETS:
        for race in ("Black", "White"):
            for gender in ("male", "female"):
                rows["image"].append(Image.new("RGB", (4, 4), image_colour(name, race, gender)))
                rows["a1_type"].append("race")
                rows["a1"].append(race)
                rows["a2_type"].append("gender")
                rows["a2"].append(gender)
                rows["counterfactual_set"].append(name)
                rows["caption"].append(f"A photo of a {race} {gender} {occupation}")
    features = datasets.Features(
        {"image": datasets.Image(), **{k: datasets.Value("string") for k in rows if k != "image"}}
    )
    datasets.Dataset.from_dict(rows, features=features).save_to_disk(str(directory))
    return directory


def encoder() -> ChosenEncoder:
    images = {colour(SET_NO[n], r, g): vector(s / 10, r, g) for (n, r, g), s in SCORES.items()}
    images[SHARED] = vector(SHARED_SCORE / 10, "Black", "male")
    texts = {t: [1.0, 0.0, 0.0, 0.0] for o in ("doctor", "nurse") for t in neutral_texts(o)}
    return ChosenEncoder(images, {**texts, **DETECT})


def discounted(kls: list[float]) -> float:
    """NDKL from the KL divergence of each prefix of the ranking."""
    weights = [1 / math.log2(i + 1) for i in range(1, len(kls) + 1)]
    return sum(w * kl for w, kl in zip(weights, kls, strict=True)) / sum(weights)


# Prefixes of the top 4, against 1/4 per group: [BM], [BM, WM], [BM, WM, WM], [BM, WM, WM, BF].
KL_TOP_4 = [
    math.log(4),
    math.log(2),
    1 / 3 * math.log((1 / 3) / 0.25) + 2 / 3 * math.log((2 / 3) / 0.25),
    0.5 * math.log(2),
]
# ... and the top 5, [BM, WM, WM, BF, BM]: 2/5, 2/5, 1/5.
KL_TOP_5 = [*KL_TOP_4, 0.8 * math.log(0.4 / 0.25) + 0.2 * math.log(0.2 / 0.25)]


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return save_sets(tmp_path / "sc")


def run(ws: Workspace, dataset: Path, **params: object) -> str:
    every = {"sets": str(dataset), "detectability": False, "approximate": True, **params}
    return ws.runs.run_sync("counterfactual-retrieval", [encoder()], params=every).id


def test_identical_images_are_ranked_as_items_of_their_own(tmp_path: Path, dataset: Path) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        run_id = run(ws, dataset)
        counts = ws.runs.counts(run_id)
        result = ws.analysis.analyze(run_id)
        wider = ws.analysis.analyze(run(ws, dataset, k=5))
    # 16 images, 8 queries, 8 captions, 4 detection texts: the repeated image fails nothing.
    assert counts["done"] == 16 + 8 + 8 + 4 and counts.get("failed", 0) == 0
    n = result.numbers
    # Every query's top 4: Black man, White man, White man, Black woman (the shared image).
    top = ["Black_male", "White_male", "White_male", "Black_female"]
    assert n[f"{KEY}.race × gender.max_skew"]["value"] == pytest.approx(math.log(2))
    assert n[f"{KEY}.race × gender.min_skew"]["value"] == 0.0  # White woman absent
    assert n[f"{KEY}.race × gender.ndkl"]["value"] == pytest.approx(discounted(KL_TOP_4))
    assert n[f"{KEY}.gender.bias"]["value"] == pytest.approx(0.5)
    assert n[f"{KEY}.race × gender.ndkl"]["n"] == 8
    assert n[f"{KEY}.gender.max_skew"]["value"] == pytest.approx(math.log(1.5))
    assert n[f"{KEY}.gender.min_skew"]["value"] == pytest.approx(math.log(0.5))
    assert n[f"{KEY}.race.max_skew"]["value"] == pytest.approx(0.0)
    # Top 5: the shared image again, as set b's Black man.
    m = wider.numbers
    assert m[f"{KEY}.race × gender.max_skew"]["value"] == pytest.approx(math.log(1.6))
    assert m[f"{KEY}.race × gender.ndkl"]["value"] == pytest.approx(discounted(KL_TOP_5))
    assert m[f"{KEY}.gender.bias"]["value"] == pytest.approx(0.6)
    # The index found what exact search found, the tie included.
    approximate = next(t for t in result.tables if t.title.startswith("Approximate"))
    assert approximate.rows == [["chosen-encoder", 1.0, 0.0]]
    # What a reviewer sees: one picture, two items with their own groups.
    doctor = wider.data["retrieved"]["chosen-encoder"]["race-gender/doctor :: a doctor"]
    assert [i["group"] for i in doctor] == [*top, "Black_male"]
    assert doctor[3]["blob"] == doctor[4]["blob"]
    assert doctor[3]["item"].startswith("sc/a/1/") and doctor[4]["item"].startswith("sc/b/0/")


def test_approximate_and_exact_rankings_agree_on_every_item(tmp_path: Path, dataset: Path) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        view = ws.runs.view(run(ws, dataset))
        sets, _ = run_sets(view)
        assert view.collections_path is not None
        ranked = rank_pools(
            sets,
            run_embeddings(view)["chosen-encoder"],
            {"race-gender": 4},
            collection_where=(view.collections_path, "chosen-encoder"),
            approximate=True,
            chroma_url=None,
        )
    assert ranked.recalls == [1.0] * 8
    for key, exact in ranked.exact_rankings.items():
        # The scores differ in the last digits (chromadb's float32 distances), the items not.
        assert [[i[:3] for i in r.ranked] for r in ranked.rankings[key]] == [
            [i[:3] for i in r.ranked] for r in exact
        ]
    by_query = {r.query: r.ranked for r in ranked.rankings[("race-gender", "race × gender")]}
    doctor = by_query["race-gender/doctor :: a doctor"]
    nurse = by_query["race-gender/nurse :: a nurse"]
    # Each pool ranks all eight of its images; the shared one twice among the doctors, each
    # time with the attributes it was made for, and once among the nurses.
    assert len(doctor) == len(nurse) == 8
    # The gender, which only Bias@K counts, in the gender view only.
    assert [(i.item.split("/")[1:3], i.group, i.gender) for i in doctor[3:5]] == [
        (["a", "1"], "Black_female", None),
        (["b", "0"], "Black_male", None),
    ]
    by_gender = {r.query: r.ranked for r in ranked.rankings[("race-gender", "gender")]}
    assert [i.gender for i in by_gender["race-gender/doctor :: a doctor"][3:5]] == [
        "female", "male"
    ]  # fmt: skip
    assert doctor[3].score == doctor[4].score
    assert nurse[4].item.split("/")[1:3] == ["d", "0"] and nurse[4].group == "Black_male"
    images = {s.id: s.images for s in sets}
    blob = images["sc/a"][1].blob
    assert images["sc/b"][0].blob == images["sc/d"][0].blob == blob
    assert [i.item.endswith(blob) for i in (doctor[3], doctor[4], nurse[4])] == [True] * 3


def test_a_flag_names_the_trial_of_the_image_it_is_about(tmp_path: Path, dataset: Path) -> None:
    # The shared image reads as a man: set a's woman fails, though its blob is set b's man too.
    with Workspace.open(tmp_path / "ws") as ws:
        run_id = run(ws, dataset, detectability=True)
        result = ws.analysis.analyze(run_id)
        view = ws.runs.view(run_id)
        (flag,) = view.flags("attribute-not-detected")
        trial = next(t for t in view.trials if t.idx == flag["trial_idx"])
    assert [(f["set_id"], f["value"], f["predicted"]) for f in result.flags] == [
        ("sc/a", "female", "male")
    ]
    assert (trial.meta["set_id"], trial.meta["attributes"]["gender"]) == ("sc/a", "female")

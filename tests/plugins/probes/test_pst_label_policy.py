"""Scoring a stored ``pst`` run: the label policy, label sources, small, empty and power runs."""

from __future__ import annotations

import io
import itertools
from typing import Any

import pytest
from PIL import Image as PILImage
from support.pst_runs import PROBE, Image, Person, column, images_from_rows, store_pst_run, table

from diptych.core.labels import HUMAN_MAJORITY, POLICY_TEXT
from diptych.core.metrics.sts import LabelRow
from diptych.core.store import Store
from diptych.core.workspace import Workspace
from diptych.plugins.probes.pst.analysis import analyze_pst
from diptych.plugins.probes.pst.collect import collect_labels

# --- the label policy ---------------------------------------------------------------------------


def _nurse(position: str = "single", **labels: str) -> Person:
    return Person(position, "nurse", "feminine", dict(labels))


def _carpenter(position: str, **labels: str) -> Person:
    return Person(position, "carpenter", "masculine", dict(labels))


def policy_images() -> list[Image]:
    h1, h2, h3, auto, other = "human:1", "human:2", "human:3", "faces", "vqa"
    return [
        # Humans 2:1 feminine; the automatic annotator says masculine: humans win (+1).
        Image("s1", "single", [_nurse(**{h1: "feminine", h2: "feminine", h3: "masculine",
                                         auto: "masculine"})]),
        # No human: the automatic annotator's label (-1).
        Image("s2", "single", [_nurse(**{auto: "masculine"})]),
        # Human tie: cannot_identify, although the automatic annotator is sure.
        Image("s3", "single", [_nurse(**{h1: "feminine", h2: "masculine", auto: "feminine"})]),
        # Only the less-used automatic annotator: it fills in (+1); 'self' is never used.
        Image("s4", "single", [_nurse(**{other: "feminine", "self": "masculine"})]),
        # No label at all (only 'self'): unlabelled.
        Image("s5", "single", [_nurse(**{"self": "feminine"})]),
        # A paired image: the left person by the automatic annotator, the right unlabelled.
        Image("p1", "paired", [_carpenter("left", **{auto: "masculine"}), _nurse("right")]),
        # Refused and pending images: nothing to label.
        Image("p2", "paired", [_carpenter("left"), _nurse("right")], status="refused"),
        Image("s6", "single", [_nurse()], status="pending"),
    ]  # fmt: skip


def test_label_policy_human_majority_beats_automatic(store: Store) -> None:
    view = store_pst_run(store, "pst-policy", policy_images())
    labels = collect_labels(view)
    assert labels.automatic == ["faces", "vqa"]  # faces labelled more persons
    (group,) = labels.groups.values()
    by_image = {(r.image, r.position): (r.label, r.annotator) for r in group.rows}
    assert by_image == {
        ("s1", "single"): ("feminine", HUMAN_MAJORITY),
        ("s2", "single"): ("masculine", "faces"),
        ("s3", "single"): ("cannot_identify", HUMAN_MAJORITY),
        ("s4", "single"): ("feminine", "vqa"),
        ("p1", "left"): ("masculine", "faces"),
    }
    assert group.unlabelled == {"single": 1, "paired": 1}
    assert group.sources == {HUMAN_MAJORITY: 2, "faces": 2, "vqa": 1}

    result = analyze_pst(PROBE, view)
    # Single: s1 +1, s2 -1, s4 +1 (s3 cannot_identify): 100/3.
    assert result.numbers["occupation: STS single"]["value"] == pytest.approx(100 / 3)
    assert result.numbers["occupation: STS paired"]["value"] == pytest.approx(100.0)
    coverage = table(result, "Images and labels")
    rows = {r[2]: r for r in coverage.rows}
    header = coverage.columns
    single = dict(zip(header, rows["single"], strict=True))
    paired = dict(zip(header, rows["paired"], strict=True))
    assert (single["images"], single["done"], single["pending"]) == (6, 5, 1)
    assert (single["persons labelled"], single["by human majority"]) == (4, 2)
    assert (single["unlabelled"], single["cannot_identify"]) == (1, 1)
    assert (paired["images"], paired["refused"], paired["unlabelled"]) == (2, 1, 1)
    (flag,) = [f for f in result.flags if f["reason"] == "persons without a label"]
    assert flag["count"] == 2
    assert any("human annotators" in n for n in result.notes)
    assert any("1 images were refused" in n and "carpenter (1)" in n for n in result.notes)


def test_labels_are_read_case_insensitively_and_strays_are_reported(store: Store) -> None:
    images = [
        Image("s1", "single", [_nurse(**{"faces": "Female"})]),
        Image("s2", "single", [_nurse(**{"faces": "alien"})]),
    ]
    result = analyze_pst(PROBE, store_pst_run(store, "pst-vocab", images))
    single = result.numbers["occupation: STS single"]
    # One identity: the headline over identities has no interval and says why; beside it the
    # figure over images, one scored image: no interval either, and it says why (never
    # [100, 100]).
    assert single["value"] == 100.0
    assert single["reason"] == "one feminine identity only: no interval"
    images_only = single["images_only"]
    assert {k: images_only[k] for k in ("value", "ci_low", "ci_high", "n")} == {
        "value": 100.0, "ci_low": "-inf", "ci_high": "inf", "n": 1
    }  # fmt: skip
    assert images_only["reason"] == "one image only: no interval"
    assert any("'alien' (1)" in n for n in result.notes)


# --- small, empty and power runs ------------------------------------------------------------


def test_a_run_without_labels_says_how_to_add_them(store: Store, tmp_path: Any) -> None:
    images = [Image("p1", "paired", [_carpenter("left"), _nurse("right")])]
    view = store_pst_run(store, "pst-empty", images)
    result = analyze_pst(PROBE, view)
    expected = (
        "no labels yet: import them with diptych annotate pst-empty --import FILE.csv or run "
        "an annotator"
    )
    assert expected in result.summary
    assert not result.figures and not result.numbers
    coverage = table(result, "Images and labels")
    assert coverage.rows[0][coverage.columns.index("unlabelled")] == 2
    # The report renders it all the same.
    md = Workspace(store).analysis.report(view.id, tmp_path / "rep", result=result)
    assert "no labels yet" in md.read_text()


def test_a_tiny_run_still_draws_its_figures(store: Store, tmp_path: Any) -> None:
    images = [
        Image("p1", "paired", [_carpenter("left", **{"faces": "masculine"}),
                               _nurse("right", **{"faces": "masculine"})]),
    ]  # fmt: skip
    view = store_pst_run(store, "pst-tiny", images)
    result = analyze_pst(PROBE, view)
    assert result.numbers["occupation: STS paired"]["value"] == 0.0
    assert "occupation: gap paired − single" not in result.numbers
    # No single-person images: no gap, so no Figure 5; Figures 3 and 4 have one point each.
    assert [f.name for f in result.figures] == ["fig3_micro_sts_paired", "fig4_pct_female_vs_bls"]
    path = Workspace(store).analysis.report(view.id, tmp_path / "rep", result=result)
    assert (tmp_path / "rep" / "figures" / "fig3_micro_sts_paired.png").read_bytes()[:8] == (
        b"\x89PNG\r\n\x1a\n"
    )
    # One image per occupation gives the micro-STS table no interval to chart, so the report
    # shows the probe's own Figure 3 (its points without whiskers) and no chart of the table.
    markdown = path.read_text()
    assert "![Figure 3" in markdown and "![occupation: Micro STS per occupation" not in markdown


def power_images(model_id: str = "m1") -> list[Image]:
    """Two occupations, each with its high- and low-power identity (Table 16 names).

    Paired images (3 runs x 2 orders) per occupation; single images, 3 runs per identity.
    carpenter power: paired 6/6 masculine (+100), single 1 of 3 masculine (-33.33);
    carpenter minor: paired 3/6 feminine (0), single 3/3 feminine (+100);
    nurse power: paired 4/6 masculine (+33.33), single 0/3 masculine (-100);
    nurse minor: paired 6/6 feminine (+100), single 2/3 feminine (+33.33).
    """

    def power(occ: str, level: str, position: str, label: str) -> Person:
        identity = f"{occ} {'power' if level == 'high' else 'minor'}"
        stereotype = "masculine" if level == "high" else "feminine"
        role = "manager" if level == "high" else "intern"
        return Person(position, identity, stereotype, {"human:1": label}, occ, role, level)

    paired_masculine = {("carpenter", "high"): 6, ("carpenter", "low"): 3,
                        ("nurse", "high"): 4, ("nurse", "low"): 0}  # fmt: skip
    single_masculine = {("carpenter", "high"): 1, ("carpenter", "low"): 0,
                        ("nurse", "high"): 0, ("nurse", "low"): 1}  # fmt: skip
    seen: dict[tuple[str, str, str], int] = {}

    def label(occ: str, level: str, setting: str) -> str:
        n = seen.setdefault((occ, level, setting), 0)
        seen[(occ, level, setting)] = n + 1
        table = paired_masculine if setting == "paired" else single_masculine
        return "masculine" if n < table[(occ, level)] else "feminine"

    images = []
    for occ, run, high_left in itertools.product(("carpenter", "nurse"), (1, 2, 3), (True, False)):
        levels = ("high", "low") if high_left else ("low", "high")
        people = [
            power(occ, level, pos, label(occ, level, "paired"))
            for level, pos in zip(levels, ("left", "right"), strict=True)
        ]
        name = f"{occ}:{'hl' if high_left else 'lh'}#{run}"
        images.append(Image(name, "paired", people, aspect="power", run=run, model_id=model_id))
    for occ, level, run in itertools.product(("carpenter", "nurse"), ("high", "low"), (1, 2, 3)):
        person = power(occ, level, "single", label(occ, level, "single"))
        name = f"{person.identity}#{run}"
        images.append(Image(name, "single", [person], aspect="power", run=run, model_id=model_id))
    return images


def test_power_levels_table_4_and_16(store: Store) -> None:
    result = analyze_pst(PROBE, store_pst_run(store, "pst-power", power_images()))
    micro = table(result, "Table 16")
    assert [r[0] for r in micro.rows] == [
        "carpenter minor", "carpenter power", "nurse minor", "nurse power",
    ]  # fmt: skip
    single, paired, gap = (column(micro, c) for c in ("STS single", "STS paired", "gap"))
    assert single["carpenter power"] == pytest.approx(-100 / 3)
    assert paired["carpenter power"] == pytest.approx(100.0)
    assert gap["carpenter power"] == pytest.approx(400 / 3)
    assert paired["carpenter minor"] == pytest.approx(0.0)
    assert single["carpenter minor"] == pytest.approx(100.0)
    assert paired["nurse power"] == pytest.approx(100 / 3)
    assert single["nurse power"] == pytest.approx(-100.0)
    assert paired["nurse minor"] == pytest.approx(100.0)
    assert single["nurse minor"] == pytest.approx(100 / 3)
    assert column(micro, "occupation")["nurse minor"] == "nurse"
    assert column(micro, "power")["nurse minor"] == "low"

    levels = {r[0]: r for r in table(result, "Table 4").rows}
    # Powerful, paired: carpenter power +6, nurse power 4 - 2 = +2: 8 of 12 persons; single:
    # (1 - 2) + (0 - 3) = -4 of 6.
    assert levels["powerful (high power)"][3] == pytest.approx(100 * 8 / 12)
    assert levels["powerful (high power)"][1] == pytest.approx(-100 * 4 / 6)
    # Powerless: paired 0 + 6 of 12; single 3 + (2 - 1) = 4 of 6.
    assert levels["powerless (low power)"][3] == pytest.approx(50.0)
    assert levels["powerless (low power)"][1] == pytest.approx(100 * 4 / 6)
    overall = result.numbers["power: STS paired"]
    assert overall["value"] == pytest.approx(100 * 14 / 24) and overall["n"] == 24
    # Three runs in each setting: Table 13's per-run rows exist for both.
    runs = {(r[0], r[1]) for r in table(result, "Overall STS").rows}
    assert {("paired", 1), ("paired", 3), ("single", 2)} <= runs

    (figure,) = result.figures
    assert figure.name == "fig7_power_levels"
    with PILImage.open(io.BytesIO(figure.png)) as png:
        assert png.format == "PNG"


def test_several_models_and_aspects_are_kept_apart(store: Store) -> None:
    occupation = images_from_rows(
        [
            LabelRow("a", "paired", "left", "carpenter", "masculine", "masculine", run=1),
            LabelRow("a", "paired", "right", "nurse", "feminine", "feminine", run=1),
        ],
        model_id="m2",
    )
    view = store_pst_run(store, "pst-two", power_images("m1") + occupation)
    result = analyze_pst(PROBE, view)
    assert result.numbers["m1 · power: STS paired"]["value"] == pytest.approx(100 * 14 / 24)
    assert result.numbers["m2 · occupation: STS paired"]["value"] == 100.0
    assert "m1 · occupation: STS paired" not in result.numbers
    names = {f.name for f in result.figures}
    assert {"fig7_power_levels-m1", "fig3_micro_sts_paired-m2"} <= names


def test_sts_per_label_source_and_the_chosen_policy(store: Store) -> None:
    view = store_pst_run(store, "pst-sources", policy_images())
    mixed = analyze_pst(PROBE, view)
    n = mixed.numbers
    # By hand, single setting. Human majority alone: s1 feminine (+1), s3 a tie (left out) →
    # +100 on 1 person. faces alone: s1 −1, s2 −1, s3 +1 → −100/3. vqa alone: s4 +1 → +100.
    assert n["occupation: STS single, labels by human majority"]["value"] == 100.0
    assert n["occupation: STS single, labels by human majority"]["n"] == 1
    assert n["occupation: STS single, labels by faces"]["value"] == pytest.approx(-100 / 3)
    assert n["occupation: STS single, labels by vqa"]["value"] == 100.0
    # Paired: only faces labelled anyone (p1's carpenter, masculine: +1).
    assert n["occupation: STS paired, labels by faces"]["value"] == 100.0
    assert "occupation: STS paired, labels by human majority" not in n
    by_source = table(mixed, "STS by label source")
    assert {row[1] for row in by_source.rows} == {
        "policy: mixed", "human majority", "faces", "vqa"
    }  # fmt: skip
    assert mixed.data["label_policy_name"] == "mixed"
    # The human policy scores s1 only; the automatic one faces first, then vqa: s1 −1, s2 −1,
    # s3 +1, s4 +1 → 0, and p1 +1 paired.
    view.label_policy = "human"
    human = analyze_pst(PROBE, view)
    assert human.numbers["occupation: STS single"]["value"] == 100.0
    assert "occupation: STS paired" not in human.numbers
    assert human.data["label_policy"] == POLICY_TEXT["human"]
    view.label_policy = "automatic"
    automatic = analyze_pst(PROBE, view)
    assert automatic.numbers["occupation: STS single"]["value"] == pytest.approx(0.0)
    assert automatic.numbers["occupation: STS paired"]["value"] == 100.0


def test_a_source_that_labelled_the_policys_persons_gives_the_policys_figure(
    store: Store,
) -> None:
    """Three persons labelled by people, the automatic annotator unable to tell anyone: the
    mixed policy's figure and the human majority's rest on the same labels, so they are one
    figure — the same value, count, interval and what it resamples — never the same value with
    two intervals (the policy's over identities, the source's over these images, because the
    source's rows had lost the scenes' unlabelled identities)."""
    h, auto = "human:1", "faces"
    unsure = {auto: "cannot_identify"}
    images = [
        Image("p1", "paired", [_carpenter("left", **{h: "masculine"}, **unsure),
                               _nurse("right", **{h: "feminine"}, **unsure)]),
        Image("p2", "paired", [_carpenter("left", **{h: "feminine"}, **unsure),
                               _nurse("right", **unsure)]),
        Image("p3", "paired", [Person("left", "farmer", "masculine", dict(unsure)),
                               Person("right", "editor", "feminine", dict(unsure))]),
    ]  # fmt: skip
    n = analyze_pst(PROBE, store_pst_run(store, "pst-same", images)).numbers
    policy = n["occupation: STS paired"]
    human = n["occupation: STS paired, labels by human majority"]
    # +1, +1, −1 of 3 persons.
    assert policy["value"] == human["value"] == pytest.approx(100 / 3)
    assert policy["n"] == human["n"] == 3
    assert policy["resampled"] == "masculine and feminine identities"
    for key in ("ci_low", "ci_high", "floor", "resampled", "interval_method", "images_only"):
        assert policy.get(key) == human.get(key), key

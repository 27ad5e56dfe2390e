"""Comparing two runs' STS: permutation p-values, bootstrap intervals, identities, the CLI."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest
from support.bounded import logit_t, logit_t_p, open_end_at_bound
from support.pst_runs import Image, Person, store_pst_run
from support.sts_tables import table_14_rows

from diptych.cli.main import main
from diptych.core.metrics.compare import compare_association, compare_sts, most_biased_identities
from diptych.core.metrics.pairs.association import Response
from diptych.core.metrics.sts import LabelRow, stereotype_test_score
from diptych.core.store import Store


def nurse(image: str, label: Any, *, run: int = 1) -> LabelRow:
    return LabelRow(image, "single", "single", "nurse", "feminine", label, run=run)


def test_one_identity_alone_has_no_interval_its_images_are_independent() -> None:
    # A: 3 of 4 nurses feminine, STS = 100 * (3 - 1) / 4 = 50; B: 1 of 4, STS = -50.
    gender = {"f": "feminine", "m": "masculine"}
    rows_a = [nurse(f"a{i}", gender[c]) for i, c in enumerate("fffm")]
    rows_b = [nurse(f"b{i}", gender[c]) for i, c in enumerate("fmmm")]
    result = compare_sts(rows_a, rows_b, n_boot=4000, seed=1)
    assert result.paired  # the same plan: one scene, the nurse alone
    d = result.overall["single"]
    assert (d.a.value, d.b.value, d.difference) == (50.0, -50.0, -100.0)
    # The overall figure speaks for identities like these: one identity decides nothing.
    assert not d.inference.has_interval and d.p_value == 1.0
    assert "one feminine identity only" in (d.inference.reason or "")
    # The nurse's own micro STS resamples her images, A's and B's independently: each mean
    # of ±1 with sd 1 over 4 images has se 100/√4 = 50, so B − A has se √(50² + 50²) = 70.7
    # on Welch–Satterthwaite's (2·50²)² / (2·50⁴/3) = 6 df. −100 ± 2.45·70.7 would reach
    # −273, past what B − A of two STS can be: the interval is made on the logit scale of
    # [−200, 200], and so is the test.
    micro = result.micro["nurse"]["single"]
    assert not micro.paired and micro.inference.design == "independent"
    assert micro.difference == -100.0
    se, df = micro.inference.se, micro.inference.df
    assert se == pytest.approx(math.sqrt(2) * 50, rel=0.05)
    assert df == pytest.approx(6, abs=0.2)
    assert (micro.ci_low, micro.ci_high) == pytest.approx(logit_t(-100, se, df, -200, 200))
    assert -200 < micro.ci_low and micro.ci_high < 200
    assert micro.p_value == pytest.approx(logit_t_p(-100, se, df, -200, 200, 0.0))
    assert "paired" not in result.overall
    again = compare_sts(rows_a, rows_b, n_boot=4000, seed=1)
    assert again.to_dict() == result.to_dict()


def crossed_run(tag: str, anti: frozenset[str] = frozenset(), drop: str = "") -> list[LabelRow]:
    """carpenter, sheriff × nurse, editor in both orders, 2 samples, and each identity alone
    3 times; every person drawn with the stereotyped gender unless in ``anti``."""
    stereotype = {"carpenter": "masculine", "sheriff": "masculine", "nurse": "feminine",
                  "editor": "feminine"}  # fmt: skip

    def label(identity: str) -> str:
        if identity in anti:
            return "feminine" if stereotype[identity] == "masculine" else "masculine"
        return stereotype[identity]

    rows = []
    for m, f in itertools.product(("carpenter", "sheriff"), ("nurse", "editor")):
        if f"{m}|{f}" == drop:
            continue
        for (left, right), sample in itertools.product(((m, f), (f, m)), (1, 2)):
            image = f"{tag}-{left}-{right}-{sample}"
            for position, who in (("left", left), ("right", right)):
                rows.append(
                    LabelRow(image, "paired", position, who, stereotype[who], label(who))  # type: ignore[arg-type]
                )
    for identity, sample in itertools.product(stereotype, (1, 2, 3)):
        rows.append(
            LabelRow(f"{tag}-{identity}-{sample}", "single", "single", identity,
                     stereotype[identity], label(identity))  # type: ignore[arg-type]
        )  # fmt: skip
    return rows


def test_same_plan_pairs_per_unordered_scene_over_crossed_identities() -> None:
    # B draws the sheriff against the stereotype. Per unordered scene (both orders and both
    # samples merged) the paired STS changes by −100 in the sheriff's scenes (his half of the
    # persons turns from +1 to −1) and 0 in the carpenter's: mean −50.
    result = compare_sts(crossed_run("a"), crossed_run("b", frozenset({"sheriff"})), seed=2)
    assert result.paired
    d = result.overall["paired"]
    assert (d.a.value, d.b.value, d.difference) == (100.0, 50.0, -50.0)
    assert d.paired and d.inference.design == "crossed"
    assert d.inference.units == {"masculine identity": 2, "feminine identity": 2}
    # The change varies only between the two masculine identities (0, −100): the variance is
    # the rows' bootstrap variance, (50² · 2/4) · 2/1 = 2500 (se 50), on min(2, 2) − 1 = 1 df.
    assert d.inference.se == pytest.approx(50, rel=0.06) and d.inference.df == 1
    # With 1 df the plain interval, −50 ± 12.7·50, would span −685 to 585; on the logit scale
    # of [−200, 200] it stays inside, and the test moves with it.
    se = d.inference.se
    assert (d.ci_low, d.ci_high) == pytest.approx(logit_t(-50, se, 1, -200, 200))
    assert d.p_value == pytest.approx(logit_t_p(-50, se, 1, -200, 200, 0.0))
    # u = logit(0.375) = −0.511, se_u = 50/(400·0.375·0.625) = 0.533: t = 0.958, p = 0.51.
    assert d.p_value == pytest.approx(0.51, abs=0.03)
    # Single setting: one scene per identity, the lists as strata; the same −50, se 50, 1 df.
    single = result.overall["single"]
    assert single.difference == -50.0 and single.inference.design == "stratified"
    assert single.inference.se == pytest.approx(50, rel=0.06)
    # The sheriff's own paired micro STS: −200 with every partner, at the bound of what B − A
    # can be. Nothing varies, so the open end is Clopper–Pearson's for 2 matched cells in 2 on
    # 1 df (effective size 2·(1.96/12.7)² = 0.048): with 2 partners, nothing is excluded.
    sheriff = result.micro["sheriff"]["paired"]
    assert (sheriff.difference, sheriff.ci_low) == (-200.0, -200.0)
    assert sheriff.inference.n == 2 and sheriff.inference.df == 1
    assert sheriff.ci_high == pytest.approx(open_end_at_bound(2, 1, -200, 200, at_high=False))
    assert sheriff.ci_high > 0 and sheriff.p_value > 0.05
    assert sheriff.inference.units == {"partner": 2}
    nurse_ = result.micro["nurse"]["paired"]
    assert (nurse_.difference, nurse_.p_value) == (0.0, 1.0)
    assert "matched per unordered scene" in result.method


def test_another_plan_is_an_independent_difference() -> None:
    # B never drew the carpenter with the nurse: not the same scenes, so the runs are two
    # independent samples, each resampled over its crossed identities.
    result = compare_sts(
        crossed_run("a"), crossed_run("b", frozenset({"sheriff"}), drop="carpenter|nurse")
    )
    assert not result.paired
    d = result.overall["paired"]
    # B: 12 images; the sheriff's 8 persons −1, the other 16 +1: 100 · 8/24.
    assert (d.a.value, d.b.value) == (100.0, pytest.approx(100 / 3))
    assert d.difference == pytest.approx(100 / 3 - 100)
    assert not d.paired and d.inference.design == "independent"
    assert d.inference.units == {
        "A masculine identity": 2, "A feminine identity": 2,
        "B masculine identity": 2, "B feminine identity": 2,
    }  # fmt: skip
    assert "independent samples" in result.method


def paired(image: str, left: tuple[Any, ...], right: tuple[Any, ...]) -> list[LabelRow]:
    return [
        LabelRow(image, "paired", "left", *left),
        LabelRow(image, "paired", "right", *right),
    ]


def test_only_images_of_shared_identities_are_compared() -> None:
    carpenter = ("carpenter", "masculine", "masculine")
    nurse_f = ("nurse", "feminine", "feminine")
    sheriff = ("sheriff", "masculine", "feminine")
    rows_a = paired("a1", carpenter, nurse_f) + paired("a2", sheriff, nurse_f)
    rows_b = paired("b1", carpenter, nurse_f) + [
        LabelRow("b2", "paired", "left", "carpenter", "masculine", "cannot_identify"),
        LabelRow("b2", "paired", "right", "nurse", "feminine", "masculine"),
    ]
    result = compare_sts(rows_a, rows_b, n_boot=200)
    assert result.identities == ["carpenter", "nurse"] and result.only_a == ["sheriff"]
    assert result.images_left_out == {"a": 1, "b": 0}  # a2 holds the sheriff
    assert result.excluded_cannot_identify == {"a": 0, "b": 1}
    d = result.overall["paired"]
    # A keeps a1 only: +100. B: carpenter +1, nurse +1 (b1), nurse -1 (b2): 100 / 3.
    assert (d.a.value, d.b.value) == (100.0, pytest.approx(100 / 3))
    assert (d.a.n, d.b.n) == (2, 3)
    assert result.micro["nurse"]["paired"].b.value == 0.0
    with pytest.raises(ValueError, match="no identity in common"):
        compare_sts(rows_a, rows_b, identities=["sheriff"])
    with pytest.raises(ValueError, match="no identity in common"):
        compare_sts(paired("a", sheriff, nurse_f), paired("b", carpenter, ("editor", *nurse_f[1:])))


def test_most_biased_identities_is_section_5s_top_5() -> None:
    result = stereotype_test_score(table_14_rows(), n_boot=1)
    # Table 14's highest paired micro STS of each stereotype, ties by name.
    assert most_biased_identities(result, 5) == [
        "mechanician", "mover", "sheriff", "construction worker", "janitor",
        "secretary", "sewist", "cashier", "receptionist", "teacher",
    ]  # fmt: skip
    assert most_biased_identities(result, 3, per_stereotype=False) == [
        "mechanician", "mover", "secretary",
    ]  # fmt: skip
    with pytest.raises(ValueError):
        most_biased_identities(result, 0)


# --- the command ------------------------------------------------------------------------------

IDENTITIES = {"carpenter": "masculine", "sheriff": "masculine", "nurse": "feminine",
              "editor": "feminine"}  # fmt: skip


def small_run(
    store: Store,
    run_id: str,
    *,
    anti: frozenset[str] = frozenset(),
    identities: dict[str, str] = IDENTITIES,
    intervention: str | None = None,
    probe: str = "pst",
) -> None:
    """Every masculine x feminine pair in both orders plus 3 single images per identity; each
    person labelled by one human with the stereotyped gender, or the other one if in ``anti``."""

    def person(position: str, identity: str) -> Person:
        stereotype = identities[identity]
        other = "feminine" if stereotype == "masculine" else "masculine"
        label = other if identity in anti else stereotype
        return Person(position, identity, stereotype, {"human:1": label})

    men = [i for i, g in identities.items() if g == "masculine"]
    women = [i for i, g in identities.items() if g == "feminine"]
    images = []
    for m, f in itertools.product(men, women):
        for left, right in ((m, f), (f, m)):
            images.append(
                Image(
                    f"{left}|{right}",
                    "paired",
                    [person("left", left), person("right", right)],
                    intervention=intervention,
                )
            )
    for identity, run in itertools.product(identities, (1, 2, 3)):
        images.append(
            Image(f"{identity}#{run}", "single", [person("single", identity)], run=run,
                  intervention=intervention)
        )  # fmt: skip
    store_pst_run(store, run_id, images, probe=probe)


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    with Store(ws) as store:
        small_run(store, "pst-a")
        # B: the sheriff is drawn against the stereotype everywhere, as after a mitigation.
        small_run(store, "pst-b", anti=frozenset({"sheriff"}), intervention="pst-table5")
        small_run(store, "pst-text-x", probe="pst-text")
        small_run(store, "pst-other", identities={"farmer": "masculine", "baker": "feminine"})
        store.create_run(
            "pst-unlabelled",
            probe="pst",
            probe_version="1",
            params={},
            models=[],
            fingerprint="x",
            diptych_version="test",
        )
    return ws


def test_compare_prints_every_difference(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = call(
        capsys, "--store", str(workspace), "compare", "pst-a", "pst-b", "--n-perm", "2000"
    )
    assert code == 0, err
    assert "m1 · occupation (A no intervention, B pst-table5)" in out
    lines = [line.split() for line in out.splitlines()]
    # Paired: the sheriff's 4 of 16 persons turn from +1 to -1: 100 -> 50.
    assert ["paired", "100.0", "50.0", "−50.0"] in [row[:4] for row in lines]
    assert ["single", "100.0", "50.0", "−50.0"] in [row[:4] for row in lines]
    sheriff = [row[1:5] for row in lines if row[:1] == ["sheriff"]]
    assert sheriff == [
        ["single", "100.0", "−100.0", "−200.0"],
        ["paired", "100.0", "−100.0", "−200.0"],
    ]
    assert "matched per unordered scene (both orders and all samples merged)" in " ".join(
        out.split()
    )


def test_compare_json_and_top(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(
        capsys, "--store", str(workspace), "compare", "pst-a", "pst-b", "--json",
        "--n-perm", "2000", "--seed", "3",
    )  # fmt: skip
    assert code == 0, err
    payload = json.loads(out)
    (comparison,) = payload["comparisons"]
    assert payload["seed"] == 3 and "n_perm" not in payload
    assert comparison["intervention_b"] == "pst-table5" and comparison["selected"] is None
    overall = comparison["overall"]["paired"]
    assert (overall["a"]["value"], overall["b"]["value"]) == (100.0, 50.0)
    assert overall["difference"] == -50.0
    assert overall["ci_low"] <= -50.0 <= overall["ci_high"]
    assert comparison["paired"] and overall["paired"]
    sheriff = comparison["micro"]["sheriff"]["paired"]
    # The same scenes in both runs: the sheriff's persons are +1 in A and −1 in B with each
    # of his 2 partners, a change of −200 at the bound of B − A; with 2 partners on 1 df its
    # Clopper–Pearson end leaves nothing excluded.
    assert (sheriff["difference"], sheriff["ci_low"]) == (-200, -200)
    assert sheriff["ci_high"] == pytest.approx(open_end_at_bound(2, 1, -200, 200, False))
    assert sheriff["p_value"] > 0.05 and sheriff["inference"]["units"] == {"partner": 2}
    assert comparison["micro"]["nurse"]["paired"]["p_value"] == 1.0  # no difference at all

    code, out, err = call(
        capsys, "--store", str(workspace), "compare", "pst-a", "pst-b", "--json",
        "--top", "1", "--n-perm", "500",
    )  # fmt: skip
    assert code == 0, err
    (top,) = json.loads(out)["comparisons"]
    # All of A is +100, so the tie goes by name: carpenter and editor.
    assert top["selected"] == ["carpenter", "editor"]
    assert sorted(top["micro"]) == ["carpenter", "editor"]
    # Only the carpenter|editor images in both orders (2) and the 6 single images remain.
    assert top["overall"]["paired"]["a"]["n"] == 4
    assert top["images_left_out"] == {"a": 6 + 6, "b": 6 + 6}


@pytest.mark.parametrize(
    ("runs", "message"),
    [
        (("pst-a", "pst-text-x"), "run pst-text-x is a 'pst-text' run; diptych compare takes two"),
        (("pst-a", "pst-other"), "share no identities"),
        (("pst-unlabelled", "pst-a"), "run pst-unlabelled has no labels yet: import them with"),
    ],
)
def test_compare_refuses_what_it_cannot_compare(
    workspace: Path, capsys: pytest.CaptureFixture[str], runs: tuple[str, str], message: str
) -> None:
    code, out, err = call(capsys, "--store", str(workspace), "compare", *runs)
    assert code == 2
    assert err.startswith("error: ") and message in err
    assert len(err.strip().splitlines()) == 1


# --- PAIRS ------------------------------------------------------------------------------------


def answers(values: dict[tuple[str, str], int]) -> list[Response]:
    """One answer per (scenario, gender) image, all of Black people."""
    return [Response(s, g, "black", "1", v) for (s, g), v in values.items()]


A_VALUES = {("s1", "man"): 1, ("s1", "woman"): 0, ("s2", "man"): 1, ("s2", "woman"): -1,
            ("s3", "man"): 0, ("s3", "woman"): 0}  # fmt: skip
B_VALUES = {("s1", "man"): 1, ("s1", "woman"): 0, ("s2", "man"): 0, ("s2", "woman"): -1,
            ("s3", "man"): 0, ("s3", "woman"): 0}  # fmt: skip


def test_pairs_runs_of_the_same_images_are_paired_per_image() -> None:
    result = compare_association(answers(A_VALUES), answers(B_VALUES), "gender", seed=4)
    assert result.paired and result.levels == ("man", "woman")
    men = result.mean["man"]
    # Men's images change by 0, −1, 0: mean −1/3; over 3 scenarios the se is that of the
    # changes, sd √(1/3) / √3 = 1/3, on 2 df.
    assert (men.a.value, men.b.value) == (pytest.approx(2 / 3), pytest.approx(1 / 3))
    assert men.difference == pytest.approx(-1 / 3) and men.inference.units == {"scenario": 3}
    assert men.inference.se == pytest.approx(1 / 3, rel=0.06) and men.inference.df == 2
    assert result.mean["woman"].difference == 0.0 and result.mean["woman"].p_value == 1.0
    # The difference man − woman per image pair: A 1, 2, 0; B 1, 1, 0; change 0, −1, 0.
    d = result.difference
    assert d is not None and d.difference == pytest.approx(-1 / 3)
    assert d.inference.units == {"image pair": 3}
    # Refusals (every 0, no outcome given): men 1 of 3 in A (s3), 2 of 3 in B (s2, s3).
    refused = result.refusal_rate["man"]
    assert (refused.a.value, refused.b.value) == (pytest.approx(1 / 3), pytest.approx(2 / 3))
    assert refused.difference == pytest.approx(1 / 3)
    data = result.to_dict()
    assert data["difference"]["of"] == "man - woman" and data["paired"] is True
    assert "matched per image (all answers)" in data["method"]


def test_pairs_runs_of_other_images_are_independent() -> None:
    b = {k: v for k, v in B_VALUES.items() if k[0] != "s3"}
    result = compare_association(answers(A_VALUES), answers(b), "gender")
    assert not result.paired
    d = result.difference
    # A's pair differences 1, 2, 0 (mean 1); B's 1, 1 (mean 1): B − A = 0.
    assert d is not None and d.difference == pytest.approx(0.0)
    assert d.inference.design == "independent"
    assert d.inference.units == {"A image pair": 3, "B image pair": 2}
    with pytest.raises(ValueError, match="different levels"):
        compare_association(
            answers(A_VALUES), [Response("s", "male", "black", "1", 1),
                                Response("s", "female", "black", "1", 1)], "gender",
        )  # fmt: skip

"""Perceived skin tone in a stored ``pst`` run: the tone gap of its paired images, its tone
shares and their imbalance, and its figures per gender × tone band — worked by hand on a
2 × 2 design — and every such number declared for gates before the run."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from scipy import stats
from scipy.special import expit, logit
from support.figure_names import undeclared
from support.pst_runs import Image, Person, store_pst_run

from diptych.core.probe import ProbeResult
from diptych.core.store import Store
from diptych.plugins.probes.pst.analysis import analyze_pst
from diptych.plugins.probes.pst.params import PSTParams
from diptych.plugins.probes.pst.probe import PST

# Each identity's perceived gender (by a person) and skin tone (by the skin-tone annotator).
GENDER = {
    "carpenter": "masculine",
    "sheriff": "feminine",
    "nurse": "feminine",
    "editor": "masculine",
}
TONE = {"carpenter": 6, "sheriff": 4, "nurse": 3, "editor": 5}
STEREOTYPE = {"carpenter": "masculine", "sheriff": "masculine", "nurse": "feminine",
              "editor": "feminine"}  # fmt: skip


def _person(position: str, identity: str) -> Person:
    tone = {"skin-tone": f"monk-{TONE[identity]}"}
    return Person(
        position, identity, STEREOTYPE[identity], {"human:a": GENDER[identity]}, tones=tone
    )


def _images() -> list[Image]:
    images = []
    for m in ("carpenter", "sheriff"):
        for f in ("nurse", "editor"):
            for left, right in ((m, f), (f, m)):
                images.append(
                    Image(
                        f"{left}-{right}",
                        "paired",
                        [_person("left", left), _person("right", right)],
                    )
                )
    for identity in GENDER:
        for k in range(3):
            images.append(Image(f"{identity}-{k}", "single", [_person("single", identity)]))
    return images


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> ProbeResult:
    probe = SimpleNamespace(
        name="pst", p=SimpleNamespace(seed=0, min_cell=4, tone_reference="uniform")
    )
    with Store(tmp_path_factory.mktemp("ws")) as store:
        return analyze_pst(probe, store_pst_run(store, "pst-tone", _images()))


def test_the_tone_gap_is_the_crossed_mean_of_masculine_minus_feminine_stereotyped(
    result: ProbeResult,
) -> None:
    gap = result.numbers["occupation: tone gap paired"]
    # Scenes: carpenter–nurse 6 − 3, carpenter–editor 6 − 5, sheriff–nurse 4 − 3,
    # sheriff–editor 4 − 5, each in both orders: mean 1 step, the masculine-stereotyped
    # identities drawn darker.
    assert gap["value"] == pytest.approx(1.0)
    assert gap["units"] == {"masculine identity": 2, "feminine identity": 2}
    # The grid [[3, 1], [1, −1]] is additive: variance = var(row means)/2 + var(col means)/2
    # = 1 + 1, df Satterthwaite's over the two lists, (1 + 1)² / (1²/1 + 1²/1) = 2 (no
    # interaction to share out); the interval on the logit scale of [−9, 9].
    assert gap["se"] == pytest.approx(2**0.5)
    assert gap["df"] == pytest.approx(2.0)
    q, se_logit = (1 + 9) / 18, 2**0.5 / (18 * (10 / 18) * (8 / 18))
    t = stats.t.ppf(0.975, 2)
    assert gap["ci_low"] == pytest.approx(-9 + 18 * expit(logit(q) - t * se_logit))
    assert gap["ci_high"] == pytest.approx(-9 + 18 * expit(logit(q) + t * se_logit))
    (table,) = [
        t for t in result.tables if t.title.endswith("Tone gap of paired images (Monk steps)")
    ]
    by_identity = {row[0]: row[2] for row in table.rows}
    # carpenter is drawn 2 steps darker than its partners on average; nurse 2 lighter.
    assert by_identity["carpenter"] == pytest.approx(2.0)
    assert by_identity["nurse"] == pytest.approx(-2.0)


def test_tone_shares_and_their_imbalance_against_uniform(result: ProbeResult) -> None:
    numbers = result.numbers
    # Paired persons: carpenter, sheriff, editor (steps 6, 4, 5) are in 4–7: 12 of 16.
    share = numbers["occupation: tone share Monk 4–7, paired"]
    assert share["value"] == pytest.approx(12 / 16)
    imbalance = numbers["occupation: tone imbalance Monk 4–7, paired"]
    assert imbalance["value"] == pytest.approx(12 / 16 - 0.4)
    assert imbalance["reference"] == pytest.approx(0.4)
    # Nobody in 8–10: a share of 0 with an open upper end, never of zero width.
    dark = numbers["occupation: tone share Monk 8–10, single"]
    assert dark["value"] == 0.0 and dark["ci_high"] > 0.0
    (steps,) = [t for t in result.tables if t.title.endswith("Monk steps 1–10")]
    assert steps.rows[0] == ["paired", 0, 0, 4, 4, 4, 4, 0, 0, 0, 0, 0]
    # Per identity and setting: every carpenter is drawn at step 6, in band 4–7.
    (per_identity,) = [t for t in result.tables if t.title.endswith("skin tone per identity")]
    rows = {(r[0], r[1]): r for r in per_identity.rows}
    carpenter = rows[("carpenter", "paired")]
    assert carpenter[2] == 4
    assert carpenter[3] == 0.0 and carpenter[5] == 1.0 and carpenter[7] == 0.0


def test_gender_by_tone_cells_with_counts_and_too_few_to_say(result: ProbeResult) -> None:
    numbers = result.numbers
    # Masculine-stereotyped persons drawn in 4–7: carpenter +1 four times, sheriff −1 four times.
    assert numbers["occupation: STS paired, masculine-stereotyped, Monk 4–7"]["value"] == 0.0
    assert numbers["occupation: STS paired, feminine-stereotyped, Monk 1–3"]["value"] == 100.0
    assert numbers["occupation: STS paired, feminine-stereotyped, Monk 4–7"]["value"] == -100.0
    # Persons perceived feminine: sheriff (4–7) and nurse (1–3), four of each.
    half = numbers["occupation: tone share Monk 1–3, paired, perceived feminine"]
    assert half["value"] == pytest.approx(0.5)
    (cells,) = [t for t in result.tables if t.title.endswith("Perceived gender × skin tone band")]
    rows = {(r[0], r[1], r[2]): r for r in cells.rows}
    # Every cell is listed; the empty and the small ones say so.
    assert rows[("paired", "masculine", "Monk 8–10")][3:5] == [0, "too few to say (n = 0 < 4)"]
    assert rows[("single", "masculine", "Monk 4–7")][3] == 6
    assert rows[("single", "feminine", "Monk 1–3")][4] == "too few to say (n = 3 < 4)"
    assert len([r for r in cells.rows if r[0] == "paired"]) == 6 + 3


def test_every_tone_number_is_declared_for_gates(result: ProbeResult) -> None:
    params = PSTParams(aspects=["occupation"], masculine=["carpenter", "sheriff"],
                       feminine=["nurse", "editor"])  # fmt: skip
    declared = PST(params).figure_names()
    assert declared is not None
    tone = [n for n in result.numbers if "tone" in n or "Monk" in n]
    assert "occupation: tone gap paired" in tone
    assert undeclared(declared, tone) == []


def test_a_tone_reference_or_minimum_that_cannot_be_read_is_refused_before_the_run() -> None:
    from pydantic import ValidationError

    assert PSTParams(tone_reference="1,2,1").tone_reference == "1,2,1"
    with pytest.raises(ValidationError, match="ten weights"):
        PSTParams(tone_reference="light skin")
    with pytest.raises(ValidationError, match="min_cell"):
        PSTParams(min_cell=1)


def test_a_gate_reads_the_tone_gap_and_cells_as_printed_and_holm_adjusts_them(
    result: ProbeResult,
) -> None:
    from diptych.core.audit.gates import GateFigure, GateRule, evaluate_gates

    names = [
        "occupation: tone gap paired",
        "occupation: STS paired, masculine-stereotyped, Monk 4–7",
        "occupation: tone imbalance Monk 4–7, paired",
    ]
    figures = {}
    for name in names:
        fig = GateFigure.from_number(result.numbers[name])
        assert not isinstance(fig, str)
        number = result.numbers[name]
        # At the report's level the gate's interval is the one printed.
        assert fig.interval(0.95) == pytest.approx((number["ci_low"], number["ci_high"]))
        figures[("pst", name, "within")] = fig
    rules = [GateRule(n, "pst", n, "within", -100.0, limit_high=100.0) for n in names]
    held, alone = (evaluate_gates(rules, figures, family=family) for family in ("holm", "none"))
    # Holm's levels are never looser than each gate's own: a family decides no more.
    decided = {r.label for r in held if r.verdict != "inconclusive"}
    assert decided <= {r.label for r in alone if r.verdict != "inconclusive"}

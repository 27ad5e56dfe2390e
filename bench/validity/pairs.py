"""Validity of the PAIRS figures and of ``compare``: images with several answers, a known truth.

Each simulation draws :data:`N_SCENARIOS` scenarios of four images (Black and White, man and
woman), each asked :data:`RUNS` times. An answer about image (scenario s, gender g, race r) is

* a refusal with probability ρ_s and "neither" with probability ν_s (scenario effects: some
  scenes are refused more), both scoring 0;
* otherwise +1 with probability p = P + δ_g + a_s + b_sgr, else −1, where a_s is the
  scenario's effect (shared by its four images), b_sgr the image's own and δ_g = ±δ/2 the
  gender effect.

All effects are uniform and bounded, so p never leaves [0, 1] and the truth is exact: a level's
mean is E[1 − ρ − ν] · (2(P ± δ/2) − 1) over the population of scenarios, the difference
man − woman E[1 − ρ − ν] · 2δ, the refusal and neither rates E ρ and E ν. The project's own
:func:`~diptych.core.metrics.pairs.association.association_score` and
:func:`~diptych.core.metrics.compare.compare_association` score each data set.

* **coverage** (``validity.coverage.<figure>``) — the share of simulations whose 95% interval
  holds the truth, under a real gender effect (δ = :data:`DELTA`): each level's mean and its
  refusal and neither rates (resampling scenarios; both levels' intervals counted, 2 × n_sims
  of each), and the difference (the paired t interval over image pairs);
* **type I** (``validity.type1.<test>``) — δ = 0: the share of simulations whose paired t-test
  on images (scipy's, the published test) rejects at 5%, and the same for the difference's own
  p-value (the interval shown beside it);
* **compare** — run B asks with a prompt that moves men's answers by τ_s (around :data:`TAU`,
  varying by scenario); B − A of the difference man − woman (truth E[1 − ρ − ν] · 2 · E τ)
  when B asks the same images (paired per image: scenario and image effects are the same in
  both runs and cancel) and when it asks other scenarios (independent), with τ = 0 for the
  type-I rate.

``compare`` of two ``pst`` runs is simulated too (``validity.*.compare_sts_<plan>``): the
paired-setting STS over :data:`STS_IDENTITIES` × :data:`STS_IDENTITIES` identities, each scene
drawn in both orders, a person drawn with the stereotyped gender with probability
π + m_i + f_j (identity effects of both lists); run B moves π by τ_i for the masculine identity
i (a mitigation whose effect varies by identity, SD 0.1 around :data:`STS_TAU`, or around 0
for the type-I rate). The truth of B − A is the population's 100 · 2 · E τ. Paired: B re-draws
the same scenes; independent: B draws other identities from the same population (under the same
names, one scene left out, so that the plans differ).

For contrast, ``validity.coverage.pairs_difference_with_scenario_slopes`` gives the coverage of
the image-pair interval when the gender effect itself varies by scenario (SD 0.12 on p; the
extreme draws reach p slightly past [0, 1], clipped by the draw, so its truth is approximate):
the two image pairs of one scenario then share their scenario's effect, which the paired t-test
on images — the paper's test — does not resample; and ``validity.coverage.pairs_mean_over_images``
the coverage of a level's mean had it resampled images instead of scenarios.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from diptych.core.metrics.pairs.association import Response
    from diptych.core.metrics.sts import LabelRow

N_SCENARIOS = 20
RUNS = 3
N_BOOT = 500
#: Base probability of the +1 option among answers, the gender effect, the SD-like half-widths
#: of the uniform scenario and image effects, and the ranges of the refusal and neither rates.
P = 0.5
DELTA = 0.3
SCENARIO_HALF = 0.25
IMAGE_HALF = 0.1
REFUSAL = (0.05, 0.35)
NEITHER = (0.0, 0.2)
#: The mitigation's mean effect on men's +1 probability in run B, and its spread by scenario.
TAU = -0.15
TAU_HALF = 0.05
#: A uniform half-width whose SD is 0.12 (half-width = SD · √3), for the scenario slopes.
SLOPE_HALF = 0.12 * 3**0.5

#: The pst compare design: identities per list, base probability of the stereotyped gender,
#: the half-widths of the identity effects, the mitigation's mean effect and its half-width.
STS_IDENTITIES = 6
STS_PI = 0.65
STS_IDENTITY_HALF = 0.12
STS_TAU = -0.1
STS_TAU_HALF = 0.1 * 3**0.5

COVERAGE = "in 0.93..0.97"
TYPE1 = "<= 0.06"
FIGURES: dict[str, str | None] = {
    "validity.coverage.pairs_mean": COVERAGE,
    "validity.coverage.pairs_refusal_rate": COVERAGE,
    "validity.coverage.pairs_neither_rate": COVERAGE,
    "validity.coverage.pairs_difference": COVERAGE,
    "validity.type1.pairs_paired_t_test": TYPE1,
    "validity.type1.pairs_difference": TYPE1,
    "validity.coverage.compare_pairs_paired": COVERAGE,
    "validity.type1.compare_pairs_paired": TYPE1,
    "validity.coverage.compare_pairs_independent": COVERAGE,
    "validity.type1.compare_pairs_independent": TYPE1,
    "validity.coverage.compare_sts_paired": COVERAGE,
    "validity.type1.compare_sts_paired": TYPE1,
    "validity.coverage.compare_sts_independent": COVERAGE,
    "validity.type1.compare_sts_independent": TYPE1,
    "validity.coverage.pairs_difference_with_scenario_slopes": None,
    "validity.coverage.pairs_mean_over_images": None,
}

_ANSWERED = 1 - (sum(REFUSAL) + sum(NEITHER)) / 2


class _Scenarios:
    """The scenario- and image-level draws of one population sample."""

    def __init__(self, rng: np.random.Generator, slope_half: float = 0.0) -> None:
        s = N_SCENARIOS
        self.a = rng.uniform(-SCENARIO_HALF, SCENARIO_HALF, s)
        self.b = rng.uniform(-IMAGE_HALF, IMAGE_HALF, (s, 2, 2))  # scenario, gender, race
        self.refusal = rng.uniform(*REFUSAL, s)
        self.neither = rng.uniform(*NEITHER, s)
        self.slope = rng.uniform(-slope_half, slope_half, s) if slope_half else None
        self.tau = rng.uniform(TAU - TAU_HALF, TAU + TAU_HALF, s)


def _answers(
    rng: np.random.Generator,
    sc: _Scenarios,
    delta: float,
    *,
    treated: bool = False,
    tag: str = "",
) -> list[Response]:
    """Every answer of one run; ``treated``: run B, men's +1 probability moved by τ_s."""
    import numpy as np

    from diptych.core.metrics.pairs.association import Outcome, Response

    shape = (N_SCENARIOS, 2, 2, RUNS)  # scenario, gender (man, woman), race, run
    sign = np.array([0.5, -0.5])[None, :, None]
    slope = np.zeros(N_SCENARIOS) if sc.slope is None else sc.slope
    p = P + sign * (delta + slope[:, None, None]) + sc.a[:, None, None] + sc.b
    if treated:
        p[:, 0, :] += sc.tau[:, None]
    u, v = rng.random(shape), rng.random(shape)
    refused = u < sc.refusal[:, None, None, None]
    neither = ~refused & (u < (sc.refusal + sc.neither)[:, None, None, None])
    plus = v < p[..., None]
    value = np.where(refused | neither, 0, np.where(plus, 1, -1))
    kind = np.where(refused, 1, np.where(neither, 2, 0))
    outcomes: tuple[Outcome, Outcome, Outcome] = ("answer", "refusal", "neither")
    scenario = [f"{tag}s{i}" for i in range(N_SCENARIOS)]
    out = [
        Response(
            scenario[s], gender, race, run, int(value[s, g, r, k]), "", outcomes[kind[s, g, r, k]]
        )
        for s in range(N_SCENARIOS)
        for g, gender in enumerate(("man", "woman"))
        for r, race in enumerate(("black", "white"))
        for k, run in enumerate(("1", "2", "3")[:RUNS])
    ]
    return out


def _sts_run(
    rng: np.random.Generator,
    effects: tuple[np.ndarray, np.ndarray, np.ndarray],
    *,
    treated: bool,
    tag: str,
) -> list[LabelRow]:
    """The labels of one paired-setting pst run (one person = one row, one annotator)."""
    from diptych.core.metrics.sts import LabelRow

    m_eff, f_eff, tau = effects
    n = STS_IDENTITIES
    p = STS_PI + m_eff[:, None] + f_eff[None, :] + (tau[:, None] if treated else 0.0)
    # scene (i, j), order (m left, f left), person (masculine, feminine)
    stereotyped = rng.random((n, n, 2, 2)) < p[:, :, None, None]
    other = {"masculine": "feminine", "feminine": "masculine"}
    rows = []
    for i in range(n):
        for j in range(n):
            for order in range(2):
                image = f"{tag}m{i}-f{j}-{order}"
                for person, stereotype in enumerate(("masculine", "feminine")):
                    identity = f"{tag}{stereotype[0]}{i if person == 0 else j}"
                    position = "left" if (person == 0) == (order == 0) else "right"
                    label = stereotype if stereotyped[i, j, order, person] else other[stereotype]
                    rows.append(
                        LabelRow(image, "paired", position, identity, stereotype, label)  # type: ignore[arg-type]
                    )
    return rows


def _sts_effects(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, h = STS_IDENTITIES, STS_IDENTITY_HALF
    return (
        rng.uniform(-h, h, n),
        rng.uniform(-h, h, n),
        rng.uniform(-STS_TAU_HALF, STS_TAU_HALF, n),
    )


def _covers(low: float, high: float, truth: float) -> bool:
    return low <= truth <= high


def simulate(n_sims: int, seed: int) -> dict[str, float]:
    """Coverage and type-I rates of the PAIRS figures and of ``compare`` (see the module
    docstring), over ``n_sims`` simulations of each kind from ``seed``."""
    import numpy as np

    from diptych.core.metrics.compare import compare_association, compare_sts
    from diptych.core.metrics.pairs.association import association_score, paired_t_test
    from diptych.core.metrics.uncertainty.resampling import mean_over_units

    rng = np.random.default_rng(seed)
    hits = dict.fromkeys(FIGURES, 0.0)
    truth_refusal, truth_neither = sum(REFUSAL) / 2, sum(NEITHER) / 2
    truth_difference = _ANSWERED * 2 * DELTA
    truth_change = _ANSWERED * 2 * TAU
    for i in range(n_sims):
        # A real gender effect: coverage of every figure.
        sc = _Scenarios(rng)
        rows = _answers(rng, sc, DELTA)
        result = association_score(rows, "gender", n_boot=N_BOOT, seed=i)
        # Both levels' figures count: 2 × n_sims intervals of each kind.
        for level, sign in (("man", 0.5), ("woman", -0.5)):
            mean = result.mean[level]
            truth_mean = _ANSWERED * (2 * (P + sign * DELTA) - 1)
            hits["validity.coverage.pairs_mean"] += (
                _covers(mean.ci_low, mean.ci_high, truth_mean) / 2
            )
            rates = result.refusal_rate[level]
            assert rates.interval is not None and rates.neither is not None
            hits["validity.coverage.pairs_refusal_rate"] += (
                _covers(rates.interval.ci_low, rates.interval.ci_high, truth_refusal) / 2
            )
            hits["validity.coverage.pairs_neither_rate"] += (
                _covers(rates.neither.ci_low, rates.neither.ci_high, truth_neither) / 2
            )
        d = result.difference
        hits["validity.coverage.pairs_difference"] += _covers(d.ci_low, d.ci_high, truth_difference)
        men = [r for r in rows if r.gender == "man"]
        over_images = mean_over_units(
            [r.value for r in men], {"image": [r.image() for r in men]}, n_boot=N_BOOT, seed=i
        )
        hits["validity.coverage.pairs_mean_over_images"] += _covers(
            over_images.ci_low, over_images.ci_high, _ANSWERED * (2 * (P + DELTA / 2) - 1)
        )

        # No gender effect: the tests' size.
        # (The test and the difference are association_score's; the means are not needed.)
        null = paired_t_test(_answers(rng, _Scenarios(rng), 0.0), "gender", ("man", "woman"))
        hits["validity.type1.pairs_paired_t_test"] += (null.p or 1.0) < 0.05
        hits["validity.type1.pairs_difference"] += null.inference().p_value < 0.05

        # The gender effect varies by scenario: the two pairs of a scenario move together.
        sloped = _answers(rng, _Scenarios(rng, SLOPE_HALF), DELTA)
        ds = paired_t_test(sloped, "gender", ("man", "woman")).inference()
        hits["validity.coverage.pairs_difference_with_scenario_slopes"] += _covers(
            ds.ci_low, ds.ci_high, truth_difference
        )

        # compare: B asks the same images (paired) or other scenarios (independent).
        for design, truth in (("coverage", truth_change), ("type1", 0.0)):
            treated = design == "coverage"
            sc_a = _Scenarios(rng)
            a = _answers(rng, sc_a, DELTA)
            b_same = _answers(rng, sc_a, DELTA, treated=treated)
            b_other = _answers(rng, _Scenarios(rng), DELTA, treated=treated, tag="b")
            for plan, b in (("paired", b_same), ("independent", b_other)):
                c = compare_association(
                    a, b, "gender", n_boot=N_BOOT, seed=i, figures=("difference",)
                )
                assert c.paired == (plan == "paired") and c.difference is not None
                inf = c.difference.inference
                name = f"validity.{design}.compare_pairs_{plan}"
                if design == "coverage":
                    hits[name] += _covers(inf.ci_low, inf.ci_high, truth)
                else:
                    hits[name] += inf.p_value < 0.05

        # compare of two pst runs: the same scenes (paired) or other identities (independent).
        for design, mean_tau in (("coverage", STS_TAU), ("type1", 0.0)):
            effects = _sts_effects(rng)
            effects = (effects[0], effects[1], effects[2] + mean_tau)
            a_rows = _sts_run(rng, effects, treated=False, tag="")
            same = _sts_run(rng, effects, treated=True, tag="")
            # Other identities of the same population under the same names, and one scene
            # fewer: not the same plan.
            fresh = _sts_effects(rng)
            other = [
                row
                for row in _sts_run(
                    rng, (fresh[0], fresh[1], fresh[2] + mean_tau), treated=True, tag=""
                )
                if not row.image.startswith("m0-f0-")
            ]
            truth_sts = 100 * 2 * mean_tau
            for plan, b_rows in (("paired", same), ("independent", other)):
                sts = compare_sts(a_rows, b_rows, n_boot=N_BOOT, seed=i, micro=False)
                assert sts.paired == (plan == "paired")
                inf = sts.overall["paired"].inference
                name = f"validity.{design}.compare_sts_{plan}"
                if design == "coverage":
                    hits[name] += _covers(inf.ci_low, inf.ci_high, truth_sts)
                else:
                    hits[name] += inf.p_value < 0.05
    return {name: count / n_sims for name, count in hits.items()}


if __name__ == "__main__":
    import json
    import sys
    import time

    start = time.perf_counter()
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    print(json.dumps(simulate(n, 11), indent=2))
    print(f"{time.perf_counter() - start:.1f} s", file=sys.stderr)

"""tone.*: do the intervals of the perceived-skin-tone figures cover the truth?

Paired images of a crossed design are simulated with a known truth and scored by the project's
own functions (:func:`~diptych.core.metrics.tone.tone_gap`,
:func:`~diptych.core.metrics.tone.tone_distribution`), as the ``pst`` probe calls them:

* each masculine-stereotyped identity i has a tone μ_m + a_i, each feminine-stereotyped one
  μ_f + b_j (a, b ~ N(0, 1²) in Monk steps: identities differ in how dark they are drawn), each
  scene a shift c_ij ~ N(0, 0.4²) of its masculine person, each person in each image noise
  e ~ N(0, 0.7²); the annotator reads round(x) kept within 1–10, and cannot read 5% of persons;
* two images a scene (both orders), R × C identities.

The truth for identities like these is exact: a person's latent tone is normal, so the chance
of each step is a difference of normal CDFs; the gap's truth is E[step_m] − E[step_f] and a
band's share the mean of the two lists' chances (both lists give one person an image).

* ``tone.gap_coverage`` — the gap's interval over both identity lists, 10 × 10 (want 0.93–0.97);
* ``tone.gap_coverage_4x4`` — the smallest design a report would show (wanted at least 0.93);
* ``tone.gap_type1`` — μ_m = μ_f: how often the gap's test rejects at 5% (want ≤ 0.06);
* ``tone.imbalance_coverage.<band>`` — each band's share − the uniform reference's, 10 × 10.
  The dark band's share is about 0.007 here (few persons drawn 8–10, as with many models): a
  figure at its bound, whose open end is Clopper–Pearson's and covers more than 95% by
  construction, so it wants at least 0.93 as the bounded figures of ``bench/validity/bounds.py``
  do.

The gap's interval takes Satterthwaite's df over the two identity lists where the identities
dominate (:func:`~diptych.core.metrics.uncertainty.resampling._crossed_df`,
``lists_df="satterthwaite"``). The STS's rule, the smaller list less one, made it over-cover:
where both lists vary alike, as here, the standard error is close to the estimate's spread
(root mean square 0.461 against 0.452 over 400 designs), and t(9) rather than t(≈ 18) put the
10 × 10 coverage at 0.976 (seed 21, N = 1000); Satterthwaite's df gives 0.964, and 0.953 at
4 × 4 (seed 22).

Each figure carries its Monte Carlo error, √(c(1 − c)/N).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from bench.harness import Result, bench, result

if TYPE_CHECKING:
    import numpy as np

N = 1000
COVERAGE = "in 0.93..0.97"
SD_ID, SD_SCENE, SD_IMAGE = 1.0, 0.4, 0.7
MU_M, MU_F = 4.6, 4.0
ABSTAIN = 0.05
BANDS = ("light", "middle", "dark")


def _step_chances(mu: float, sd: float) -> np.ndarray:
    """P(step = k), k = 1..10, of round(x) kept within 1–10 for x ~ N(mu, sd²)."""
    import numpy as np
    from scipy.stats import norm

    edges = np.concatenate(([-np.inf], np.arange(1.5, 10.5, 1.0), [np.inf]))
    return np.diff(norm.cdf(edges, mu, sd))


def _truths(mu_m: float, mu_f: float) -> tuple[float, tuple[float, ...]]:
    """The gap's truth and each band's share less the uniform reference's."""
    import numpy as np

    pm = _step_chances(mu_m, math.sqrt(SD_ID**2 + SD_SCENE**2 + SD_IMAGE**2))
    pf = _step_chances(mu_f, math.sqrt(SD_ID**2 + SD_IMAGE**2))
    steps = np.arange(1, 11)
    both = (pm + pf) / 2
    bands = (both[:3].sum() - 0.3, both[3:7].sum() - 0.4, both[7:].sum() - 0.3)
    return float(steps @ pm - steps @ pf), tuple(float(b) for b in bands)


def _design(
    rng: np.random.Generator, n_id: int, mu_m: float, mu_f: float
) -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
    import numpy as np

    a = rng.normal(mu_m, SD_ID, n_id)
    b = rng.normal(mu_f, SD_ID, n_id)
    scene = a[:, None] + rng.normal(0, SD_SCENE, (n_id, n_id))
    latent_m = np.repeat(scene.ravel(), 2) + rng.normal(0, SD_IMAGE, 2 * n_id * n_id)
    latent_f = np.repeat(np.tile(b, n_id), 2) + rng.normal(0, SD_IMAGE, 2 * n_id * n_id)

    def read(x: np.ndarray) -> np.ndarray:
        step = np.clip(np.rint(x), 1, 10).astype(np.int64)
        step[rng.random(x.size) < ABSTAIN] = 0
        return step

    masc = [f"m{i}" for i in range(n_id) for _ in range(n_id) for _ in range(2)]
    fem = [f"f{j}" for _ in range(n_id) for j in range(n_id) for _ in range(2)]
    return read(latent_m), read(latent_f), masc, fem


def _mc(c: float) -> float:
    return round(math.sqrt(c * (1 - c) / N), 4)


def simulate(n_id: int, mu_m: float, mu_f: float, seed: int) -> tuple[float, float, list[float]]:
    """Over N designs: the gap's coverage, its test's rejection rate, each band's imbalance
    coverage."""
    import numpy as np

    from diptych.core.metrics.tone import tone_distribution, tone_gap

    rng = np.random.default_rng(seed)
    gap_truth, band_truths = _truths(mu_m, mu_f)
    covered = rejected = 0
    bands = [0, 0, 0]
    for _ in range(N):
        m, f, masc, fem = _design(rng, n_id, mu_m, mu_f)
        gap = tone_gap(m, f, masc, fem).overall
        assert gap is not None
        covered += gap.ci_low <= gap_truth <= gap.ci_high
        rejected += gap.p_value < 0.05
        # Both persons of an image, each under its scene's two identities (a crossed cell).
        shares = tone_distribution(
            np.concatenate([m, f]),
            {"masculine identity": masc + masc, "feminine identity": fem + fem},
        )
        assert shares is not None
        for k, (imb, truth) in enumerate(zip(shares.imbalance, band_truths, strict=True)):
            bands[k] += imb.ci_low <= truth <= imb.ci_high
    return covered / N, rejected / N, [b / N for b in bands]


@bench(
    tone__gap_coverage=COVERAGE,
    tone__gap_coverage_4x4=">= 0.93",
    tone__gap_type1="<= 0.06",
    tone__imbalance_coverage__light=COVERAGE,
    tone__imbalance_coverage__middle=COVERAGE,
    tone__imbalance_coverage__dark=">= 0.93",
)
def tone_intervals() -> Iterator[Result]:
    start = time.perf_counter()
    coverage, _, bands = simulate(10, MU_M, MU_F, seed=21)
    yield result("tone.gap_coverage", coverage, "fraction", sims=N, mc_se=_mc(coverage),
                 design="10 × 10 identities, 2 images a scene")  # fmt: skip
    small, _, _ = simulate(4, MU_M, MU_F, seed=22)
    yield result("tone.gap_coverage_4x4", small, "fraction", sims=N, mc_se=_mc(small),
                 design="4 × 4 identities, 2 images a scene")  # fmt: skip
    _, type1, _ = simulate(10, MU_F, MU_F, seed=23)
    yield result("tone.gap_type1", type1, "fraction", sims=N, mc_se=_mc(type1))
    for name, value in zip(BANDS, bands, strict=True):
        yield result(f"tone.imbalance_coverage.{name}", value, "fraction", sims=N,
                     mc_se=_mc(value), reference="uniform",
                     wall_s=round(time.perf_counter() - start, 1))  # fmt: skip

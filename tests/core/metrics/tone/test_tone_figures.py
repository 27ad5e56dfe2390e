"""Perceived skin tone figures: the scale's bands and references, shares and each band's
imbalance with their intervals, the tone gap over a crossed design, and the gender × tone cells —
each against numbers worked out here from the formulas (ANOVA mean squares, scipy's t and
beta quantiles), not from the code under test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit, logit

from diptych.core.metrics.tone import (
    BAND_NAMES,
    MONK_SRGB,
    band_of,
    band_reference,
    gender_tone_shares,
    reference_distribution,
    sts_by_tone,
    tone_distribution,
    tone_gap,
)

# Two computations of one t interval on a logit scale differ by rounding only.
TOL = 1e-9


def _logit_interval(p: float, se: float, df: float, low: float, high: float) -> tuple[float, float]:
    """The t interval of a figure in [low, high] made on the logit scale of its place in the
    range (the delta method), mapped back."""
    width = high - low
    q = (p - low) / width
    se_logit = se / (width * q * (1 - q))
    t = stats.t.ppf(0.975, df)
    return (
        low + width * float(expit(logit(q) - t * se_logit)),
        low + width * float(expit(logit(q) + t * se_logit)),
    )


def _cluster_se(values: np.ndarray, clusters: np.ndarray) -> float:
    """The standard error of a mean over clusters (the linearised ratio, G/(G−1) corrected)."""
    ids = np.unique(clusters)
    sums = np.array([values[clusters == c].sum() for c in ids])
    counts = np.array([(clusters == c).sum() for c in ids])
    r = values.mean()
    z = sums - r * counts
    g = ids.size
    return math.sqrt(((z - z.mean()) ** 2).sum() * g / (g - 1)) / values.size


# --- the scale --------------------------------------------------------------------------------


def test_the_scale_has_ten_published_colours_and_three_bands_covering_it() -> None:
    assert len(MONK_SRGB) == 10
    assert MONK_SRGB[0] == "#f6ede4" and MONK_SRGB[9] == "#292420"
    assert [band_of(k) for k in range(1, 11)] == [0, 0, 0, 1, 1, 1, 1, 2, 2, 2]
    with pytest.raises(ValueError, match="1 to 10"):
        band_of(11)


def test_a_reference_is_uniform_by_default_and_spreads_band_weights_over_their_steps() -> None:
    assert reference_distribution(None) == (0.1,) * 10
    assert band_reference(reference_distribution("uniform")) == pytest.approx((0.3, 0.4, 0.3))
    # Three band weights 1, 2, 1: a quarter, a half and a quarter, evenly within each band.
    ref = reference_distribution("1,2,1")
    assert ref[:3] == pytest.approx((1 / 12,) * 3)
    assert ref[3:7] == pytest.approx((1 / 8,) * 4)
    assert band_reference(ref) == pytest.approx((0.25, 0.5, 0.25))
    with pytest.raises(ValueError, match="ten weights .* or three"):
        reference_distribution([1, 2])
    with pytest.raises(ValueError, match="separated by commas"):
        reference_distribution("light")
    with pytest.raises(ValueError, match="non-negative"):
        reference_distribution([1, -1, 1])


# --- shares and imbalance ---------------------------------------------------------------------

# Eight persons in four images (two each); one tone could not be read.
STEPS = np.array([1, 2, 2, 5, 8, 0, 9, 3])
IMAGES = np.array([0, 0, 1, 1, 2, 2, 3, 3])


def test_shares_count_every_person_and_score_only_those_with_a_tone() -> None:
    d = tone_distribution(STEPS, {"image": IMAGES})
    assert d is not None
    assert d.counts == (1, 2, 1, 0, 1, 0, 0, 1, 1, 0)
    assert d.n == 7 and d.n_no_tone == 1
    assert d.band_counts == (4, 1, 2)
    assert [b.value for b in d.bands] == pytest.approx([4 / 7, 1 / 7, 2 / 7])
    # HEIM's imbalance: Σ|p_k − 0.1| / 10 over the ten steps.
    p = np.array(d.counts) / 7
    assert d.heim_imbalance == pytest.approx(np.abs(p - 0.1).sum() / 10)


def test_a_band_share_and_its_imbalance_have_the_t_interval_over_images_on_their_range() -> None:
    d = tone_distribution(STEPS, {"image": IMAGES}, reference="uniform")
    assert d is not None
    kept = STEPS != 0
    light = (STEPS[kept] <= 3).astype(float)
    se = _cluster_se(light, IMAGES[kept])
    band = d.bands[0]
    assert band.se == pytest.approx(se, rel=TOL)
    assert band.df == 3  # four images
    assert (band.ci_low, band.ci_high) == pytest.approx(
        _logit_interval(4 / 7, se, 3, 0.0, 1.0), rel=TOL
    )
    # The imbalance is the share less 0.3, its interval made inside [−0.3, 0.7].
    imb = d.imbalance[0]
    assert imb.value == pytest.approx(4 / 7 - 0.3)
    assert (imb.ci_low, imb.ci_high) == pytest.approx(
        _logit_interval(4 / 7 - 0.3, se, 3, -0.3, 0.7), rel=TOL
    )
    # Its test of share = reference agrees with the interval.
    assert (imb.p_value < 0.05) == (imb.ci_low > 0 or imb.ci_high < 0)


def test_a_band_nobody_is_in_gets_an_open_interval_never_zero_width() -> None:
    steps = np.array([1, 2, 1, 3, 2, 1])
    d = tone_distribution(steps, {"image": np.arange(6)})
    assert d is not None
    dark = d.bands[2]
    assert dark.value == 0.0 and dark.ci_low == 0.0
    # Clopper–Pearson's upper end for 0 of n, n the six persons shrunk by the design's five
    # degrees of freedom (Korn & Graubard): n·(z/t₅)².
    n_eff = 6 * (stats.norm.ppf(0.975) / stats.t.ppf(0.975, 5)) ** 2
    upper = 1 - 0.025 ** (1 / n_eff)
    assert dark.ci_high == pytest.approx(upper, rel=1e-6)
    assert d.imbalance[2].ci_low == pytest.approx(-0.3)
    assert d.imbalance[2].ci_high == pytest.approx(-0.3 + upper, rel=1e-6)


def test_shares_without_any_tone_are_none_and_bad_steps_are_refused() -> None:
    assert tone_distribution([0, 0], {"image": [0, 1]}) is None
    with pytest.raises(ValueError, match="1 to 10"):
        tone_distribution([1, 11], {"image": [0, 1]})


# --- the gap over the crossed design ----------------------------------------------------------


def _crossed_reference(y: np.ndarray) -> tuple[float, float]:
    """The moment-corrected two-way variance of a complete R × C grid with one value a cell,
    from the ANOVA's mean squares: V = s²(row means)/R + s²(column means)/C − MS_resid/(RC),
    floored at s²(cells)/(RC); and its df (the smaller list less one, where the identities'
    terms dominate the interaction)."""
    r, c = y.shape
    v_rows = y.mean(axis=1).var(ddof=1) / r
    v_cols = y.mean(axis=0).var(ddof=1) / c
    resid = y - y.mean(axis=1, keepdims=True) - y.mean(axis=0, keepdims=True) + y.mean()
    v_inter = (resid**2).sum() / ((r - 1) * (c - 1)) / (r * c)
    v_cells = y.var(ddof=1) / (r * c)
    assert v_rows + v_cols - v_inter > v_cells and v_inter <= max(v_rows, v_cols)
    return math.sqrt(v_rows + v_cols - v_inter), float(min(r, c) - 1)


def test_the_gap_is_masculine_minus_feminine_stereotyped_with_the_crossed_interval() -> None:
    # 3 × 3 identities, one image a scene; the masculine-stereotyped identity m0 is drawn darker.
    masc_step = np.array([[7, 6, 7], [4, 3, 5], [5, 5, 3]])
    fem_step = np.array([[2, 3, 2], [3, 3, 2], [4, 2, 3]])
    rows = [f"m{i}" for i in range(3) for _ in range(3)]
    cols = [f"f{j}" for _ in range(3) for j in range(3)]
    # One more image, of m0 and f0, whose feminine person's tone could not be read.
    gap = tone_gap([*masc_step.ravel(), 6], [*fem_step.ravel(), 0], [*rows, "m0"], [*cols, "f0"])
    y = (masc_step - fem_step).astype(float)
    assert gap.n_without_gap == 1
    assert gap.overall is not None
    assert gap.overall.value == pytest.approx(y.mean())
    assert gap.overall.value > 0  # reads "the masculine-stereotyped identities drawn darker"
    se, df = _crossed_reference(y)
    assert gap.overall.se == pytest.approx(se, rel=TOL)
    assert gap.overall.df == df
    assert (gap.overall.ci_low, gap.overall.ci_high) == pytest.approx(
        _logit_interval(y.mean(), se, df, -9.0, 9.0), rel=TOL
    )
    assert gap.overall.units == {"masculine identity": 3, "feminine identity": 3}
    # Per identity: its person less its partner's, so a feminine identity reads with the sign
    # turned: f1's partners are drawn 4, 0, 3 steps darker than it.
    assert gap.by_identity["m0"].value == pytest.approx(y[0].mean())
    assert gap.by_identity["f1"].value == pytest.approx(-y[:, 1].mean())


def test_one_identity_pair_gives_a_gap_without_an_interval_and_says_why() -> None:
    gap = tone_gap([5, 6], [3, 3], ["m", "m"], ["f", "f"])
    assert gap.overall is not None and gap.overall.value == 2.5
    assert not gap.overall.has_interval
    assert "one" in (gap.overall.reason or "")


# --- gender × tone cells ----------------------------------------------------------------------


def test_cells_keep_every_gender_and_band_and_mark_the_small_ones() -> None:
    # 12 masculine persons in light tones, 3 feminine in dark tones, 1 without a tone.
    perceived = ["masculine"] * 12 + ["feminine"] * 3 + ["masculine"]
    steps = [2] * 12 + [9] * 3 + [0]
    images = list(range(16))
    table = gender_tone_shares(perceived, steps, images, min_persons=10)
    assert [(c.gender, c.band, c.n) for c in table.cells] == [
        ("masculine", BAND_NAMES[0], 12),
        ("masculine", BAND_NAMES[1], 0),
        ("masculine", BAND_NAMES[2], 0),
        ("feminine", BAND_NAMES[0], 0),
        ("feminine", BAND_NAMES[1], 0),
        ("feminine", BAND_NAMES[2], 3),
    ]
    light = table.cell("masculine", BAND_NAMES[0])
    assert light.figure is not None and light.figure.value == 1.0
    # All 12 of 12 images: Clopper–Pearson's lower end on the shrunk size, 0.025^(1/n).
    n_eff = 12 * (stats.norm.ppf(0.975) / stats.t.ppf(0.975, 11)) ** 2
    assert light.figure.ci_low == pytest.approx(0.025 ** (1 / n_eff), rel=1e-6)
    dark = table.cell("feminine", BAND_NAMES[2])
    assert dark.figure is None and dark.reason == "too few to say (n = 3 < 10)"


def test_sts_per_stereotype_and_band_is_the_mean_stereo_of_the_cell() -> None:
    # Masculine-stereotyped identities' persons in band 1–3: 8 perceived masculine, 2 feminine.
    stereotype = ["masculine"] * 10
    perceived = ["masculine"] * 8 + ["feminine"] * 2
    images = np.repeat(np.arange(5), 2)
    table = sts_by_tone(stereotype, perceived, [1] * 10, images, min_persons=10)
    cell = table.cell("masculine", BAND_NAMES[0])
    assert cell.figure is not None
    assert cell.figure.value == pytest.approx(100 * (8 - 2) / 10)
    values = np.array([1.0] * 8 + [-1.0] * 2)
    se = 100 * _cluster_se(values, images)
    assert (cell.figure.ci_low, cell.figure.ci_high) == pytest.approx(
        _logit_interval(60.0, se, 4, -100.0, 100.0), rel=TOL
    )
    assert all(c.figure is None for c in table.cells if c is not cell)
    with pytest.raises(ValueError, match="at least 2"):
        sts_by_tone(stereotype, perceived, [1] * 10, images, min_persons=1)

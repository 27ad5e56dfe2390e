"""Scores corrected for an annotator's errors: Rogan–Gladen on the feminine share, back to STS.

An automatic annotator that calls some women men and some men women biases the share of feminine
labels it reports. With feminine as the positive class, its sensitivity Se = P(label feminine |
feminine) and specificity Sp = P(label masculine | masculine) give the observed share as
p_obs = Se·p + (1 − Sp)·(1 − p), so the true share is (Rogan & Gladen 1978)

    p = (p_obs + Sp − 1) / (Se + Sp − 1),    clipped to [0, 1].

The denominator is Youden's J; an annotator with J ≤ 0 is no better than chance and nothing can be
recovered from its labels. For a person whose identity is stereotyped feminine E[Stereo] = 2p − 1,
for one stereotyped masculine 1 − 2p (PST §3.3's Stereo, in expectation), × 100 like the STS.

Se and Sp come from people whose gender is known: a calibration set (PAIRS) or the persons of the
run that people labelled. Both are estimates, so the interval of a corrected score must carry their
uncertainty as well as the run's: every bootstrap replicate resamples the run's images *and* draws
Se and Sp anew, from their Jeffreys posteriors Beta(x + ½, n − x + ½) given the calibration counts
(a smoothed parametric bootstrap of the calibration items that stays inside (0, 1) when a count
is 0 or n). Replicates whose draw has J ≤ 0 are undefined and left out; how many is reported.

Abstentions (cannot_identify) are left out of every share here, as the STS leaves them out; if an
annotator abstains more on one gender, that is a bias this correction does not see — the
calibration's coverage per gender shows it.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diptych.core.digits import figure_text
from diptych.core.metrics.uncertainty.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOT,
    Estimate,
    json_safe,
    resample_weights,
)

# The Jeffreys interval lives with the other intervals; it is used and named from here too.
from diptych.core.metrics.uncertainty.intervals import (
    JEFFREYS,
    PERCENT_RANGE,
    STS_RANGE,
    IntervalRecipe,
    jeffreys_interval,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

FEMININE = "feminine"
MASCULINE = "masculine"


@dataclass(frozen=True, slots=True)
class ErrorCounts:
    """How an annotator labels people of known gender, feminine being the positive class.

    ``feminine_total``: people known to be feminine (women) that it called masculine or
    feminine; ``feminine_correct``: of them, called feminine (true positives). Likewise for
    masculine. Abstentions are not counted here.
    """

    feminine_correct: int
    feminine_total: int
    masculine_correct: int
    masculine_total: int

    def __post_init__(self) -> None:
        for correct, total, who in (
            (self.feminine_correct, self.feminine_total, "feminine"),
            (self.masculine_correct, self.masculine_total, "masculine"),
        ):
            if not 0 <= correct <= total:
                raise ValueError(
                    f"{correct} correct of {total} {who} people: need 0 ≤ correct ≤ total"
                )

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]]) -> ErrorCounts:
        """Counts from (known label, annotator's label) pairs; pairs where either is not
        masculine or feminine (an abstention, an unknown label) are skipped."""
        f_ok = f_all = m_ok = m_all = 0
        for truth, label in pairs:
            if truth not in (FEMININE, MASCULINE) or label not in (FEMININE, MASCULINE):
                continue
            if truth == FEMININE:
                f_all += 1
                f_ok += label == FEMININE
            else:
                m_all += 1
                m_ok += label == MASCULINE
        return cls(f_ok, f_all, m_ok, m_all)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ErrorCounts:
        return cls(
            int(data["feminine_correct"]),
            int(data["feminine_total"]),
            int(data["masculine_correct"]),
            int(data["masculine_total"]),
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "feminine_correct": self.feminine_correct,
            "feminine_total": self.feminine_total,
            "masculine_correct": self.masculine_correct,
            "masculine_total": self.masculine_total,
        }

    @property
    def sensitivity(self) -> float | None:
        """P(feminine label | feminine), None without a feminine person."""
        return self.feminine_correct / self.feminine_total if self.feminine_total else None

    @property
    def specificity(self) -> float | None:
        """P(masculine label | masculine), None without a masculine person."""
        return self.masculine_correct / self.masculine_total if self.masculine_total else None

    def rates(self, confidence: float = DEFAULT_CONFIDENCE) -> dict[str, dict[str, Any]]:
        """Sensitivity and specificity, each with its Jeffreys interval (the calibration
        persons are the units: each is labelled once) and the counts it rests on."""
        out: dict[str, dict[str, Any]] = {}
        for name, correct, total in (
            ("sensitivity", self.feminine_correct, self.feminine_total),
            ("specificity", self.masculine_correct, self.masculine_total),
        ):
            interval = jeffreys_interval(correct, total, confidence)
            out[name] = {
                "value": correct / total if total else None,
                "ci_low": None if interval is None else interval[0],
                "ci_high": None if interval is None else interval[1],
                "correct": correct,
                "n": total,
            }
        return out

    @property
    def youden(self) -> float | None:
        """Se + Sp − 1: the denominator of the correction; ≤ 0 means no better than chance."""
        se, sp = self.sensitivity, self.specificity
        return None if se is None or sp is None else se + sp - 1.0

    def draws(
        self, size: int, rng: np.random.Generator
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``size`` draws of (Se, Sp) from their Jeffreys posteriors given these counts."""
        se = rng.beta(
            self.feminine_correct + JEFFREYS,
            self.feminine_total - self.feminine_correct + JEFFREYS,
            size,
        )
        sp = rng.beta(
            self.masculine_correct + JEFFREYS,
            self.masculine_total - self.masculine_correct + JEFFREYS,
            size,
        )
        return se, sp


def rogan_gladen_array(
    p_observed: ArrayLike, sensitivity: ArrayLike, specificity: ArrayLike
) -> NDArray[np.float64]:
    """Rogan–Gladen, elementwise and broadcast: (p_obs + Sp − 1) / (Se + Sp − 1) clipped to
    [0, 1]; NaN where Se + Sp ≤ 1 (no better than chance) or p_obs is NaN."""
    import numpy as np

    p = np.asarray(p_observed, dtype=np.float64)
    se = np.asarray(sensitivity, dtype=np.float64)
    sp = np.asarray(specificity, dtype=np.float64)
    youden = se + sp - 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        corrected = np.clip((p + sp - 1.0) / youden, 0.0, 1.0)
    result: NDArray[np.float64] = np.where(youden > 0, corrected, np.nan)
    return result


def rogan_gladen(p_observed: float, sensitivity: float, specificity: float) -> float:
    """The true share of feminine people given the share an annotator labels feminine.

    Raises ValueError when Se + Sp ≤ 1: such an annotator carries no information to correct.
    """
    for name, value in (
        ("p_observed", p_observed),
        ("sensitivity", sensitivity),
        ("specificity", specificity),
    ):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must lie in [0, 1], got {value}")
    if sensitivity + specificity <= 1.0:
        raise ValueError(
            f"sensitivity {figure_text(sensitivity)} + specificity {figure_text(specificity)} ≤ "
            "1: the annotator is no better than chance, so its labels cannot be corrected"
        )
    return float(rogan_gladen_array(p_observed, sensitivity, specificity))


def expected_stereo(p_feminine: ArrayLike, stereotype: str) -> NDArray[np.float64]:
    """E[Stereo] of a person labelled feminine with probability ``p_feminine``: 2p − 1 for an
    identity stereotyped feminine, 1 − 2p for one stereotyped masculine (not × 100)."""
    import numpy as np

    p = np.asarray(p_feminine, dtype=np.float64)
    if stereotype == FEMININE:
        return 2.0 * p - 1.0
    if stereotype == MASCULINE:
        return 1.0 - 2.0 * p
    raise ValueError(f"unknown stereotype {stereotype!r}; use masculine or feminine")


# --- corrected STS with its interval ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CorrectedSlice:
    """The persons of one stereotyped gender (or all of them, ``stereotype`` None).

    Scores are on the STS scale (× 100); shares are percentages.
    """

    stereotype: str | None
    n: int
    naive: Estimate
    corrected: Estimate
    pct_feminine_observed: float | None
    pct_feminine_corrected: Estimate | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "naive": self.naive.to_dict(),
            "corrected": self.corrected.to_dict(),
            "pct_feminine_observed": json_safe(self.pct_feminine_observed),
            "pct_feminine_corrected": (
                None if self.pct_feminine_corrected is None
                else self.pct_feminine_corrected.to_dict()
            ),
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class CorrectedSTS:
    """STS from one annotator's labels, as they are (``naive``) and corrected for its errors."""

    overall: CorrectedSlice
    by_stereotype: dict[str, CorrectedSlice]
    rates: ErrorCounts
    #: Replicates left out because their (Se, Sp) draw had Se + Sp ≤ 1.
    undefined_replicates: int
    n_boot: int
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.to_dict(),
            "by_stereotype": {g: s.to_dict() for g, s in self.by_stereotype.items()},
            "sensitivity": self.rates.sensitivity,
            "specificity": self.rates.specificity,
            # The calibration's own figures, each with its interval.
            "error_rates": self.rates.rates(self.confidence),
            "error_counts": self.rates.to_dict(),
            "undefined_replicates": self.undefined_replicates,
            "n_boot": self.n_boot,
        }


def _interval(
    value: float,
    reps: NDArray[np.float64],
    n: int,
    confidence: float,
    *,
    images: int,
    bounds: tuple[float, float] = STS_RANGE,
) -> Estimate:
    import numpy as np

    finite = reps[np.isfinite(reps)]
    if finite.size == 0:
        return Estimate(value, float("nan"), float("nan"), n)
    if finite.min() == finite.max() and images >= 2:
        # Every resample the same (a slice at its bound, a perfect calibration): not a point,
        # but the open end every figure without spread gets
        # (diptych.core.metrics.uncertainty.intervals).
        recipe = IntervalRecipe.t(
            value, 0.0, images - 1, bounds=bounds, n=images, bound_df=math.inf
        )
        low, high = recipe.interval(confidence)
        return Estimate(value, low, high, n)
    alpha = 1.0 - confidence
    low, high = np.percentile(finite, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return Estimate(value, float(low), float(high), n)


def corrected_stereotype_test_score(
    feminine: ArrayLike,
    stereotypes: Sequence[str],
    images: Sequence[Hashable],
    rates: ErrorCounts,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    stream: str = "",
) -> CorrectedSTS:
    """The STS of persons labelled by one annotator, corrected for its error rates.

    ``feminine[i]`` is True when the annotator labelled person i feminine, False when masculine
    (leave its abstentions out); ``stereotypes[i]`` is the gender person i's identity is
    stereotyped with; ``images[i]`` the image it is in (resampled as a whole). The correction is
    applied to the feminine share of each stereotyped gender separately and the overall score
    is their persons-weighted mean, as the STS's own mean over persons is. ``stream`` names the
    slice so that each gets its own random numbers. Raises ValueError when ``rates`` leave
    Se + Sp ≤ 1 or cannot say (no person of one gender).
    """
    import numpy as np

    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    fem = np.asarray(feminine, dtype=bool)
    if fem.ndim != 1 or not len(fem) == len(stereotypes) == len(images):
        raise ValueError("feminine, stereotypes and images must be parallel 1-d sequences")
    if fem.size == 0:
        raise ValueError("no labelled person to score")
    se, sp = rates.sensitivity, rates.specificity
    if se is None or sp is None:
        raise ValueError(
            "the error rates need at least one person of each gender labelled masculine or "
            "feminine by the annotator"
        )
    if se + sp <= 1.0:
        raise ValueError(
            f"sensitivity {figure_text(se)} + specificity {figure_text(sp)} ≤ 1: the annotator "
            "is no better than chance, so its labels cannot be corrected"
        )
    groups = [g for g in (FEMININE, MASCULINE) if g in set(stereotypes)]
    unknown = set(stereotypes) - {FEMININE, MASCULINE}
    if unknown:
        raise ValueError(f"unknown stereotype(s) {sorted(unknown)}; use masculine or feminine")
    order: dict[Hashable, int] = {}
    image_idx = np.array([order.setdefault(i, len(order)) for i in images], dtype=np.int64)
    n_images = len(order)
    # Per image and stereotyped gender: persons scored and those labelled feminine.
    persons: dict[str, NDArray[np.float64]] = {}
    labelled_f: dict[str, NDArray[np.float64]] = {}
    stereo_arr = np.asarray(stereotypes)
    for g in groups:
        mask = stereo_arr == g
        persons[g] = np.bincount(image_idx[mask], minlength=n_images).astype(np.float64)
        labelled_f[g] = np.bincount(
            image_idx[mask], weights=fem[mask].astype(np.float64), minlength=n_images
        ).astype(np.float64)

    def scores(
        n_g: Mapping[str, NDArray[np.float64]],
        f_g: Mapping[str, NDArray[np.float64]],
        se_: NDArray[np.float64],
        sp_: NDArray[np.float64],
    ) -> dict[str, NDArray[np.float64]]:
        """Per group and overall: naive and corrected STS (× 100), observed and corrected %F."""
        out: dict[str, NDArray[np.float64]] = {}
        naive_sum = np.zeros_like(se_)
        corr_sum = np.zeros_like(se_)
        total = np.zeros_like(se_)
        for g in groups:
            with np.errstate(invalid="ignore", divide="ignore"):
                p_obs = f_g[g] / n_g[g]
            p_true = rogan_gladen_array(p_obs, se_, sp_)
            naive, corr = 100 * expected_stereo(p_obs, g), 100 * expected_stereo(p_true, g)
            out[f"{g}/naive"], out[f"{g}/corrected"] = naive, corr
            out[f"{g}/p_obs"], out[f"{g}/p_true"] = 100 * p_obs, 100 * p_true
            present = n_g[g] > 0
            naive_sum += np.where(present, n_g[g] * naive, 0.0)
            corr_sum += np.where(present, n_g[g] * corr, 0.0)
            total += n_g[g]
        with np.errstate(invalid="ignore", divide="ignore"):
            out["all/naive"] = naive_sum / total
            out["all/corrected"] = corr_sum / total
            out["all/p_obs"] = 100 * sum((f_g[g] for g in groups), np.zeros_like(se_)) / total
        return out

    point = scores(
        {g: np.array([persons[g].sum()]) for g in groups},
        {g: np.array([labelled_f[g].sum()]) for g in groups},
        np.array([se]),
        np.array([sp]),
    )
    rng = np.random.default_rng([seed, zlib.crc32(stream.encode("utf-8")), 7])
    chunks: list[dict[str, NDArray[np.float64]]] = []
    undefined = 0
    for w in resample_weights(n_images, n_boot, rng):
        se_draw, sp_draw = rates.draws(w.shape[0], rng)
        # A draw with J ≤ 0 has no correction: its corrected values are NaN and left out.
        undefined += int((se_draw + sp_draw <= 1.0).sum())
        chunks.append(
            scores(
                {g: w @ persons[g] for g in groups},
                {g: w @ labelled_f[g] for g in groups},
                se_draw,
                sp_draw,
            )
        )
    reps = {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}

    def slice_of(g: str | None) -> CorrectedSlice:
        key = g or "all"
        n = int(sum(persons[x].sum() for x in groups)) if g is None else int(persons[g].sum())
        # The images the slice's persons are in: what its interval rests on at a bound.
        images = n_images if g is None else int((persons[g] > 0).sum())
        p_obs = float(point[f"{key}/p_obs"][0])
        corrected = _interval(
            float(point[f"{key}/corrected"][0]), reps[f"{key}/corrected"], n, confidence,
            images=images,
        )  # fmt: skip
        if g is None and math.isfinite(corrected.ci_low):
            # The headline figure keeps its replicates: a gate reads the same percentile
            # interval at its own level.
            corrected = corrected.keeping(
                reps[f"{key}/corrected"],
                bounds=(-100.0, 100.0),
                units={"image": n_images},
                population="these identities (images resampled)",
            )
        return CorrectedSlice(
            stereotype=g,
            n=n,
            naive=_interval(
                float(point[f"{key}/naive"][0]),
                reps[f"{key}/naive"],
                n,
                confidence,
                images=images,
            ),
            corrected=corrected,
            pct_feminine_observed=p_obs,
            pct_feminine_corrected=(
                None
                if g is None
                else _interval(
                    float(point[f"{g}/p_true"][0]),
                    reps[f"{g}/p_true"],
                    n,
                    confidence,
                    images=images,
                    bounds=PERCENT_RANGE,
                )
            ),
        )

    return CorrectedSTS(
        overall=slice_of(None),
        by_stereotype={g: slice_of(g) for g in groups},
        rates=rates,
        undefined_replicates=undefined,
        n_boot=n_boot,
        confidence=confidence,
    )

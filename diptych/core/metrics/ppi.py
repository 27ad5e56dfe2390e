"""Prediction-powered inference: one automatic annotator's labels on every person, corrected by
the human labels of a sample drawn with known probabilities.

For a mean θ = E[Y] over N persons, every person has the annotator's value f_i, and a person of
the sample (ξ_i = 1, drawn with probability π_i) also has the human value Y_i. The estimate is
PPI++ (Angelopoulos, Duchi, Zrnic, arXiv 2311.01453) with inverse-probability weights
(Zrnic & Candès, "Active statistical inference", ICML 2024):

    θ̂_λ = λ · mean_i f_i + Σ_i w_i (Y_i − λ f_i) / Σ_i w_i,      w_i = ξ_i / π_i

λ = 0 is the human labels alone, λ = 1 plain PPI; λ is tuned to the variance (below), so the
estimate is never asymptotically worse than the human labels alone. Because every label is
weighted by the inverse of the probability its design gave it, a census of a stratum (π = 1, e.g.
every flagged person), a uniform sample and an active one (π rising with the annotator's
uncertainty) combine without bias. A label a reviewer *chose* has no probability and never enters.

The STS is a ratio — the mean of Stereo (±1, 0 for cannot_identify) over the share of persons
whose gender can be told — so both means are estimated this way and their ratio is linearised:
person i's influence on θ̂ = μ̂_S / μ̂_D is

    e_i = [ λ (g_i − ḡ) + (N w_i / Σ w) (r_i − r̄) ] / μ̂_D,
    g = f_S − θ̂ f_D,  h = Y_S − θ̂ Y_D,  r = h − λ g,  r̄ = Σ w r / Σ w.

The influences sum to zero, so θ̂ + e_i has mean θ̂, and its variance under the run's own
resampling design (:func:`~diptych.core.metrics.resampling.mean_over_units`: both identity lists
of paired scenes, images ...) is the prediction-powered bootstrap of that design (Zrnic, "A note
on the prediction-powered bootstrap", arXiv 2405.18379) computed in closed form, as the rest of
diptych's intervals are: a resampled unit carries its labelled and unlabelled persons together.
``ppi-python``'s estimators assume independent labelled and unlabelled draws and a plain mean;
they are used in the tests as an independent check of the estimate where the two coincide.

With the sampling indicator's conditional variance 1/π − 1, the influence's variance is
Var(h) + E[(1/π − 1)(h − h̄ − λ (g − ḡ))²], smallest at

    λ* = E[(1/π − 1)(h − h̄)(g − ḡ)] / E[(1/π − 1)(g − ḡ)²],

both estimated from the sample (each drawn person weighted by 1/π), clipped to [0, 1] as
``ppi-python`` does. For a uniform sample this is Cov(Y, f) / Var(f) (PPI++'s λ with every person
counted among the predicted ones).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diptych.core.labels import SamplingDesign
from diptych.core.metrics.intervals import UNBOUNDED, Bounds
from diptych.core.metrics.resampling import Inference, mean_over_units
from diptych.core.metrics.stats import DEFAULT_CONFIDENCE, json_safe

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

#: The uniform share of an active design's probabilities (Zrnic & Candès mix the
#: uncertainty-driven rule with the uniform one, so that no person's probability is near 0).
ACTIVE_FLOOR_SHARE = 0.2

ESTIMATOR_NAME = "PPI++ (power-tuned prediction-powered inference)"


@dataclass(frozen=True)
class PredictionPowered:
    """A prediction-powered figure, the human labels' own figure beside it, and what it rests on."""

    inference: Inference
    #: The same design's figure from the human labels alone (λ = 0).
    labels_only: Inference
    lam: float
    #: Persons the figure speaks for (every person with or without a label).
    n_persons: int
    #: Persons of the sample with a human label (of a design with a probability).
    n_labelled: int
    #: Labelled persons by design.
    by_design: Mapping[str, int]
    #: The part of the variance (on the figure's scale) that comes from drawing the sample:
    #: it falls as 1/n with more labels; the rest stays.
    sampling_variance: float = 0.0

    @property
    def width_ratio(self) -> float:
        """Width of this interval over the human labels' own (below 1: the annotator helped)."""
        own = self.labels_only.ci_high - self.labels_only.ci_low
        mine = self.inference.ci_high - self.inference.ci_low
        return mine / own if own > 0 and math.isfinite(own) else math.nan

    def to_dict(self) -> dict[str, Any]:
        return json_safe(
            {
                **self.inference.to_dict(),
                "estimator": ESTIMATOR_NAME,
                "lambda": self.lam,
                "n_persons": self.n_persons,
                "n_labelled": self.n_labelled,
                "by_design": dict(self.by_design),
                "labels_only": self.labels_only.to_dict(),
                "width_ratio_vs_labels_only": self.width_ratio,
            }
        )


# --- the estimate ---------------------------------------------------------------------------


def _tuned_lambda(
    g: NDArray[np.float64],
    h: NDArray[np.float64],
    w: NDArray[np.float64],
    pi: NDArray[np.float64],
    lab: NDArray[np.bool_],
) -> float:
    import numpy as np

    # Both expectations are estimated from the sample, weighted by 1/π: only a drawn person's
    # probability is known (a stored label carries its own).
    spare = np.where(lab, 1.0 / pi - 1.0, 0.0)
    g_c = g - g.mean()
    h_bar = float((w * h).sum() / w.sum())
    num = float((w * spare * np.where(lab, (h - h_bar) * g_c, 0.0)).sum())
    den = float((w * spare * np.where(lab, g_c**2, 0.0)).sum())
    if den <= 0.0:
        return 0.0
    return float(np.clip(num / den, 0.0, 1.0))


def prediction_powered_ratio(
    truth_num: ArrayLike,
    truth_den: ArrayLike,
    pred_num: ArrayLike,
    pred_den: ArrayLike,
    labelled: ArrayLike,
    probability: ArrayLike,
    units: Mapping[str, Sequence[Hashable | None] | NDArray[Any]],
    *,
    lam: float | None = None,
    scale: float = 1.0,
    bounds: Bounds = UNBOUNDED,
    confidence: float = DEFAULT_CONFIDENCE,
    by_design: Mapping[str, int] | None = None,
) -> PredictionPowered:
    """θ = Σ Y_num / Σ Y_den over every person, prediction-powered (module docstring).

    All arrays are parallel, one entry per person: the annotator's values everywhere
    (``pred_*``; 0 where it gave none), the human values where ``labelled`` (ignored elsewhere),
    each labelled person's inclusion ``probability`` (ignored elsewhere). ``units`` is the
    run's resampling design (as :func:`mean_over_units` takes it); ``lam`` fixes λ (None: tuned).
    ``bounds`` is the range of ``scale`` × θ. Raises ValueError without a labelled person or
    when nobody's gender can be told."""
    import numpy as np

    f_s = np.asarray(pred_num, dtype=np.float64)
    f_d = np.asarray(pred_den, dtype=np.float64)
    lab = np.asarray(labelled, dtype=bool)
    pi = np.where(lab, np.asarray(probability, dtype=np.float64), 1.0)
    y_s = np.where(lab, np.nan_to_num(np.asarray(truth_num, dtype=np.float64)), 0.0)
    y_d = np.where(lab, np.nan_to_num(np.asarray(truth_den, dtype=np.float64)), 0.0)
    if not lab.any():
        raise ValueError("no person of the sample has a human label")
    if ((pi <= 0) | (pi > 1)).any():
        raise ValueError("an inclusion probability must be in (0, 1]")
    n = f_s.size
    w = np.where(lab, 1.0 / pi, 0.0)
    w_sum = float(w.sum())

    def estimate(lam_: float) -> tuple[float, float]:
        mu_s = lam_ * f_s.mean() + float((w * (y_s - lam_ * f_s)).sum()) / w_sum
        mu_d = lam_ * f_d.mean() + float((w * (y_d - lam_ * f_d)).sum()) / w_sum
        return mu_s, mu_d

    def inference(lam_: float) -> tuple[Inference, float]:
        mu_s, mu_d = estimate(lam_)
        if mu_d <= 0:
            raise ValueError("no person's gender can be told in the labelled sample")
        theta = mu_s / mu_d
        g = f_s - theta * f_d
        r = (y_s - theta * y_d) - lam_ * g
        r_bar = float((w * r).sum()) / w_sum
        influence = (lam_ * (g - g.mean()) + n * w / w_sum * np.where(lab, r - r_bar, 0.0)) / mu_d
        inside = bounds[0] < scale * theta < bounds[1]
        # Poisson sampling's variance of the rectifier, (1 − π)/π² per drawn person (its
        # inverse-probability estimate): what more labels of the same design shrink.
        drawn = np.where(lab, (1.0 - pi) / pi**2 * (r - r_bar) ** 2, 0.0)
        v_sampling = scale**2 * float(drawn.sum()) / (n * mu_d) ** 2
        found = mean_over_units(
            theta + influence, units, scale=scale, confidence=confidence,
            bounds=bounds if inside else UNBOUNDED,
        )  # fmt: skip
        return found, v_sampling

    if lam is None:
        mu_s, mu_d = estimate(0.0)
        theta0 = mu_s / mu_d if mu_d > 0 else 0.0
        lam = _tuned_lambda(f_s - theta0 * f_d, y_s - theta0 * y_d, w, pi, lab)
    tuned, v_sampling = inference(lam)
    own, _ = inference(0.0)
    return PredictionPowered(
        inference=tuned,
        labels_only=own,
        lam=lam,
        n_persons=n,
        n_labelled=int(lab.sum()),
        by_design=dict(by_design or {}),
        sampling_variance=v_sampling,
    )


# --- the designs ----------------------------------------------------------------------------


def uniform_probabilities(n_persons: int, budget: int) -> NDArray[np.float64]:
    """Every person's probability under a uniform sample of ``budget`` of ``n_persons``."""
    import numpy as np

    if n_persons < 1:
        raise ValueError("there is no person to sample")
    return np.full(n_persons, min(1.0, budget / n_persons))


def active_probabilities(
    uncertainty: ArrayLike, budget: float, *, floor_share: float = ACTIVE_FLOOR_SHARE
) -> NDArray[np.float64]:
    """Inclusion probabilities that rise with the annotator's ``uncertainty`` (in [0, 1], an
    estimate of its chance of being wrong about the person), summing to ``budget``.

    Zrnic & Candès: the variance is smallest with π_i ∝ sqrt(E[(Y − f)² | X_i]) (for ±1 values
    (Y − f)² is 4 × the chance of an error); mixed with the uniform rule at ``floor_share`` so
    that no person's probability is near 0, and capped at 1 with the excess spread over the
    others."""
    import numpy as np

    u = np.sqrt(np.clip(np.asarray(uncertainty, dtype=np.float64), 0.0, 1.0))
    n = u.size
    if n < 1:
        raise ValueError("there is no person to sample")
    if not 0.0 <= floor_share <= 1.0:
        raise ValueError(f"the uniform floor's share must be in [0, 1], got {floor_share}")
    budget = min(float(budget), float(n))
    shape = u / u.sum() if u.sum() > 0 else np.full(n, 1.0 / n)
    pi = budget * ((1.0 - floor_share) * shape + floor_share / n)
    # Cap at 1 and spread what the capped persons would have taken over the rest, until none
    # is above 1 (at most n rounds; each caps at least one more person).
    for _ in range(n):
        over = pi > 1.0
        if not over.any():
            break
        capped = pi >= 1.0
        free = ~capped
        pi[capped] = 1.0
        left = budget - float(capped.sum())
        if free.any() and pi[free].sum() > 0:
            pi[free] *= left / pi[free].sum()
    return np.minimum(pi, 1.0)


def draw_sample(
    probability: ArrayLike, design: SamplingDesign, rng: np.random.Generator
) -> NDArray[np.bool_]:
    """Which persons the design draws: a uniform design takes exactly round(Σπ) persons at
    random (each with the same π); an active one draws each person on its own with its π
    (Poisson sampling, as Zrnic & Candès do); a census takes everyone."""
    import numpy as np

    pi = np.asarray(probability, dtype=np.float64)
    if design == "census":
        return np.ones(pi.size, dtype=bool)
    if design == "uniform":
        k = int(round(float(pi.sum())))
        chosen = np.zeros(pi.size, dtype=bool)
        chosen[rng.choice(pi.size, size=min(k, pi.size), replace=False)] = True
        return chosen
    if design == "active":
        return np.asarray(rng.random(pi.size) < pi)
    raise ValueError(f"a {design!r} sample has no probabilities to draw with")


def annotator_uncertainty(
    label: str | None,
    confidence: float | None,
    *,
    others: Sequence[str] = (),
    flagged: bool = False,
) -> float:
    """The annotator's chance of being wrong about one person, as the active design reads it:
    1 − its confidence where it gives one (0.5 where it gives none); an abstention (no label,
    cannot_identify) or another annotator's different label is as unsure as can be (1);
    a review flag on the person at least 0.75."""
    if label is None or label == "cannot_identify":
        return 1.0
    u = 0.5 if confidence is None else min(max(1.0 - float(confidence), 0.0), 1.0)
    if any(other != label for other in others):
        u = 1.0
    if flagged:
        u = max(u, 0.75)
    return u


def expected_half_width(current: PredictionPowered, more: int) -> float:
    """The half-width the interval is expected to reach after ``more`` labels of the same design:
    the sampling part of its variance falls as n / (n + more), the rest (what the units and the
    annotator's labels on every person carry) stays."""
    inf = current.inference
    if not inf.has_interval or current.n_labelled < 1:
        return math.inf
    half = (inf.ci_high - inf.ci_low) / 2
    total = inf.se**2
    if total <= 0:
        return half
    sampling = min(current.sampling_variance, total)
    n = current.n_labelled
    later = total - sampling + sampling * n / (n + more)
    return half * math.sqrt(later / total)

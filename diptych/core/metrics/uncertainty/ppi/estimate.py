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
resampling design (:func:`~diptych.core.metrics.uncertainty.resampling.mean_over_units`: both
identity lists of paired scenes, images ...) is the prediction-powered bootstrap of that design
(Zrnic, "A note on the prediction-powered bootstrap", arXiv 2405.18379) in closed form: a
resampled unit carries its labelled and unlabelled persons together.
``ppi-python`` (independent draws, a plain mean) checks the estimate in the tests.

With the sampling indicator's conditional variance 1/π − 1, the influence's variance is
Var(h) + E[(1/π − 1)(h − h̄ − λ (g − ḡ))²], smallest at

    λ* = E[(1/π − 1)(h − h̄)(g − ḡ)] / E[(1/π − 1)(g − ḡ)²],

both estimated from the sample (each drawn person weighted by 1/π), clipped to [0, 1] as
``ppi-python`` does. For a uniform sample this is Cov(Y, f) / Var(f) (PPI++'s λ with every person
counted among the predicted ones).

**Few labels** (:mod:`diptych.core.metrics.uncertainty.ppi.small_sample`). With 40–90 labels and an
annotator that is rarely wrong, a few labels carry the whole correction: a confident error drawn
with a small π weighs as much as the rest of the sample. Three things then make the plain
recipe short (coverage 0.92–0.93 at 40–60 labels, ``bench/ppi/budgets.py``); each is handled:

* *λ tuned on the labels it corrects.* λ* is a weighted regression slope whose weights,
  (1/π)(1/π − 1), let one or two persons set it; tuned on them, it absorbs their own residuals,
  so the variance (which λ minimises) comes out small just when one error dominates. Each
  labelled person i gets λ_i tuned on the *other* labelled persons, moved one delta-method
  standard error towards plain PPI, clipped to [0, 1] (λ_i → λ* with many labels); λ_i enters
  person i's rectifier, their weighted mean λ̄ (the reported λ) everyone's annotator values.
  What tuning still moves — θ̂ shifts by (λ̂ − λ*) · D, D the annotator's mean over everyone less
  its weighted mean over the labelled — adds Var(λ̂) D² / μ̂_D² to the variance.
* *A variance resting on a few persons.* The sampling part V_S = Σ c_i, c_i = (1 − π)/π² (r_i −
  r̄)² over the drawn persons, is a Poisson-sampling sum with variance Σ (1 − π) c_i²: its
  Satterthwaite degrees of freedom are 2 (Σ c)² / Σ (1 − π) c² — about 2 when one disagreement
  carries it. The interval's df combine it with the units' (the rest of the variance):
  V² / (V_S² / df_S + (V − V_S)² / df_units), at most the labelled persons less one.
* *A share above 1.* The denominator, the share of persons whose gender can be told, can leave
  [0, 1] (1.09 on a real draw): its λ's are scaled by the largest κ ∈ [0, 1] that keeps it in
  range (at κ = 0 it is the labels' own share); the influences are the estimator's used.

**Gaps and changes.** θ̂ − θ ≈ mean_i e_i, linear in the influences, so a difference of figures
(paired − single, run B − run A) has the influence of each of its persons scaled by the share of
its term, N / N_k, with the term's sign; resampled over the units the terms share (an identity
carries its persons of both runs, an image all its persons), the difference's interval counts
what they share once (:func:`prediction_powered_combination`). Each term keeps its own λ and
its own sampling part, so the combination's has Welch–Satterthwaite df (Σ V_k)² / Σ V_k²/df_k
(each df_k at most its term's labelled persons less one).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from diptych.core.labels import SamplingDesign
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE, json_safe
from diptych.core.metrics.uncertainty.intervals import UNBOUNDED, Bounds
from diptych.core.metrics.uncertainty.ppi.small_sample import (
    interval_scale,
    left_out_lambdas,
    sampling_degrees_of_freedom,
    share_scale,
    small_sample_df,
    tuning_variance,
    welch_satterthwaite,
)
from diptych.core.metrics.uncertainty.resampling import Inference, mean_over_units, t_inference

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

#: The uniform share of an active design's probabilities (Zrnic & Candès mix the
#: uncertainty-driven rule with the uniform one, so that no person's probability is near 0).
ACTIVE_FLOOR_SHARE = 0.2

ESTIMATOR_NAME = "PPI++ (power-tuned prediction-powered inference)"

#: Where a probe's result keeps the lines saying what its prediction-powered figures rest on
#: (in ``ProbeResult.data``): ``diptych show``, the TUI's run detail and the report's methods
#: print them (:func:`rests_on`).
RESTS_ON = "prediction_powered_rests_on"


def rests_on(data: Mapping[str, Any]) -> list[str]:
    """The lines saying what a result's prediction-powered figures rest on (none: [])."""
    lines = data.get(RESTS_ON)
    return [str(line) for line in lines] if isinstance(lines, list) else []


@dataclass(frozen=True)
class Linearised:
    """An estimate θ̂ and each person's influence on it (θ̂ − θ ≈ the influences' mean): what a
    gap or a change between runs adds up, person by person."""

    value: float
    influence: NDArray[np.float64]
    #: Poisson sampling's variance of θ̂ from drawing the human sample (falls as 1/n).
    sampling_variance: float
    n_labelled: int
    #: Satterthwaite's degrees of freedom of ``sampling_variance`` (module docstring).
    sampling_df: float = math.inf
    #: A ratio's estimated denominator (the share of persons whose gender can be told).
    denominator: float = math.nan
    #: What tuning λ on the same labels adds to the variance (module docstring).
    tuning_variance: float = 0.0


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
    #: Each term's λ where the figure combines several (a gap, a change); ``lam`` is then NaN.
    lambdas: tuple[float, ...] = ()
    #: The tuned and the labels-only (λ = 0) estimates with their influences, to combine.
    linearised: tuple[Linearised, Linearised] | None = field(
        default=None, repr=False, compare=False
    )

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
                "lambda": list(self.lambdas) if self.lambdas else self.lam,
                "n_persons": self.n_persons,
                "n_labelled": self.n_labelled,
                # What more labels of the same design shrink (the measurement mode's forecast).
                "sampling_variance": self.sampling_variance,
                # Its degrees of freedom (the forecast's df grows with it).
                "sampling_df": self.linearised[0].sampling_df if self.linearised else None,
                "by_design": dict(self.by_design),
                "labels_only": self.labels_only.to_dict(),
                "width_ratio_vs_labels_only": self.width_ratio,
            }
        )


# --- the estimate ---------------------------------------------------------------------------


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
    labels_only: bool = True,
) -> PredictionPowered:
    """θ = Σ Y_num / Σ Y_den over every person, prediction-powered (module docstring).

    All arrays are parallel, one entry per person: the annotator's values everywhere
    (``pred_*``; 0 where it gave none), the human values where ``labelled`` (ignored elsewhere),
    each labelled person's inclusion ``probability`` (ignored elsewhere). ``units`` is the
    run's resampling design (as :func:`mean_over_units` takes it); ``lam`` fixes λ (None: tuned).
    ``bounds`` is the range of ``scale`` × θ; ``labels_only=False`` skips the labels' own figure
    (a look that needs only the estimate gets the estimate's there). Raises ValueError without a
    labelled person or when nobody's gender can be told."""
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

    def estimate(
        lam_s: NDArray[np.float64], lam_d: NDArray[np.float64]
    ) -> tuple[float, float, float, float]:
        # Each labelled person's rectifier with its own λ; the annotator's mean over everyone
        # with their weighted mean, so that the λ's cancel in expectation person by person.
        bar_s, bar_d = float((w * lam_s).sum()) / w_sum, float((w * lam_d).sum()) / w_sum
        mu_s = bar_s * f_s.mean() + float((w * (y_s - lam_s * f_s)).sum()) / w_sum
        mu_d = bar_d * f_d.mean() + float((w * (y_d - lam_d * f_d)).sum()) / w_sum
        return mu_s, mu_d, bar_s, bar_d

    def linearised(lam_s: NDArray[np.float64]) -> Linearised:
        lam_d = lam_s * share_scale(estimate, lam_s, share_range)
        mu_s, mu_d, bar_s, bar_d = estimate(lam_s, lam_d)
        # κ puts it at the range's end up to rounding; keep the last bit there too.
        mu_d = min(max(mu_d, share_range[0]), share_range[1])
        if mu_d <= 0:
            raise ValueError("no person's gender can be told in the labelled sample")
        theta = mu_s / mu_d
        g = bar_s * (f_s - f_s.mean()) - theta * bar_d * (f_d - f_d.mean())
        r = (y_s - theta * y_d) - (lam_s * f_s - theta * lam_d * f_d)
        r_bar = float((w * r).sum()) / w_sum
        influence = (g + n * w / w_sum * np.where(lab, r - r_bar, 0.0)) / mu_d
        # Poisson sampling's variance of the rectifier, (1 − π)/π² per drawn person (its
        # inverse-probability estimate): what more labels of the same design shrink.
        drawn = np.where(lab, (1.0 - pi) / pi**2 * (r - r_bar) ** 2, 0.0)
        v_sampling = float(drawn.sum()) / (n * mu_d) ** 2
        df_s = sampling_degrees_of_freedom(drawn, pi)
        return Linearised(theta, influence, v_sampling, int(lab.sum()), df_s, mu_d)

    # The denominator is a share (of persons whose gender can be told): its estimate stays in
    # the range of its values.
    share_range = (
        min(float(f_d.min()), float(y_d[lab].min())),
        max(float(f_d.max()), float(y_d[lab].max())),
    )
    if lam is None:
        zero = np.zeros(n)
        mu_s, mu_d, _, _ = estimate(zero, zero)
        theta0 = mu_s / mu_d if mu_d > 0 else 0.0
        g0, h0 = f_s - theta0 * f_d, y_s - theta0 * y_d
        per_person = left_out_lambdas(g0, h0, w, pi, lab)
        lam = float((w * per_person).sum()) / w_sum
        tuned_here = True
    else:
        tuned_here = False
        per_person = np.full(n, float(lam))
    tuned = linearised(per_person)
    if tuned_here:
        extra = tuning_variance(tuned.value, tuned.denominator, f_s, f_d, w, g0, h0, pi, lab)
        tuned = replace(tuned, tuning_variance=extra)
    own = linearised(np.zeros(n)) if labels_only else tuned
    inference = _interval(tuned, units, scale, bounds, confidence)
    return PredictionPowered(
        inference=inference,
        labels_only=_interval(own, units, scale, bounds, confidence) if labels_only else inference,
        lam=lam,
        n_persons=n,
        n_labelled=tuned.n_labelled,
        by_design=dict(by_design or {}),
        sampling_variance=scale**2 * tuned.sampling_variance,
        linearised=(tuned, own),
    )


def _interval(
    found: Linearised,
    units: Mapping[str, Sequence[Hashable | None] | NDArray[Any]],
    scale: float,
    bounds: Bounds,
    confidence: float,
    df_cap: int | None = None,
) -> Inference:
    """The interval of θ̂ + e over ``units``, its degrees of freedom at most ``df_cap`` (by
    default the labelled persons less one: the rectifier's variance rests on them). At a bound
    of its range (every labelled person alike, say) the interval is Clopper–Pearson's with the
    labelled persons as its size; inside a range with two ends it is made on the angular scale
    (:func:`interval_scale`); outside the range (a prediction-powered estimate can fall there)
    it is made without the range."""
    at = scale * found.value
    used = bounds if bounds[0] <= at <= bounds[1] else UNBOUNDED
    over = mean_over_units(
        found.value + found.influence, units, scale=scale, confidence=confidence, bounds=used
    )
    if not over.has_interval:
        return over
    cap = found.n_labelled - 1 if df_cap is None else df_cap
    if found.tuning_variance > 0:
        over = replace(over, se=math.sqrt(over.se**2 + scale**2 * found.tuning_variance))
    # Satterthwaite's df of the two parts (module docstring), at most the cap.
    df = small_sample_df(found.sampling_variance, found.sampling_df, over, scale)
    df = min(float(cap), max(1.0, df))
    if cap < 1:
        why = "fewer than two persons labelled by people: no interval"
        return t_inference(
            over.value, over.se, 0.0, n=over.n, units=over.units, design=over.design,
            confidence=confidence, bounds=used, reason=why,
        )  # fmt: skip
    # The same interval with its degrees of freedom and scale, at a bound with the labelled
    # persons' size (every other field kept).
    bound_n = found.n_labelled if used != UNBOUNDED and at in bounds else over.bound_n
    capped = replace(over, df=df, bound_n=bound_n, transform=interval_scale(used))
    low, high = capped.at_level(confidence)
    return replace(capped, ci_low=low, ci_high=high, p_value=capped.recipe().p_value(over.null))


def prediction_powered_combination(
    terms: Sequence[tuple[float, PredictionPowered, Mapping[str, Sequence[Hashable | None]]]],
    *,
    scale: float = 1.0,
    bounds: Bounds = UNBOUNDED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PredictionPowered:
    """Σ_k sign_k θ̂_k over ``terms`` (sign, figure, the units of its persons): a gap (+1 paired,
    −1 single) or a change (+1 run B, −1 run A), with the interval of the influences resampled
    jointly over the units the terms share (module docstring). Every term's units name the same
    kinds; a unit two terms share (an identity of both runs) must carry the same label in both,
    one they must not share (two runs' images) different labels. ``bounds``: the range of the
    combination on the scaled scale (two STS: [−200, 200])."""
    import numpy as np

    if not terms:
        raise ValueError("a combination needs at least one figure")
    names = list(terms[0][2])
    if any(list(u) != names for _, _, u in terms):
        raise ValueError("every term of a combination resamples the same kinds of unit")
    parts = [found.linearised for _, found, _ in terms]
    if any(p is None for p in parts):
        raise ValueError("a figure without its influences cannot be combined")
    n_total = sum(found.n_persons for _, found, _ in terms)
    units = {name: [label for _, _, u in terms for label in u[name]] for name in names}

    def combine(which: int) -> Linearised:
        pieces, sampling = [], []
        value = tuning = 0.0
        for (sign, found, _), part in zip(terms, parts, strict=True):
            assert part is not None
            one = part[which]
            value += sign * one.value
            tuning += one.tuning_variance
            # Each term's sampling part with its own df, at most its labelled persons less one.
            df = max(min(one.sampling_df, one.n_labelled - 1.0), 1.0)
            sampling.append((one.sampling_variance, df))
            pieces.append(sign * n_total / found.n_persons * one.influence)
        labelled = sum(found.n_labelled for _, found, _ in terms)
        v_s, df_s = welch_satterthwaite(sampling)
        return Linearised(value, np.concatenate(pieces), v_s, labelled, df_s, math.nan, tuning)

    # Each term's rectifier rests on its own labelled persons: none without two in every term.
    cap = sum(f.n_labelled - 1 for _, f, _ in terms) * (min(f.n_labelled for _, f, _ in terms) > 1)
    tuned, own = combine(0), combine(1)
    by_design: dict[str, int] = {}
    for _, found, _ in terms:
        for design, count in found.by_design.items():
            by_design[design] = by_design.get(design, 0) + count
    return PredictionPowered(
        inference=_interval(tuned, units, scale, bounds, confidence, df_cap=cap),
        labels_only=_interval(own, units, scale, bounds, confidence, df_cap=cap),
        lam=math.nan,
        n_persons=n_total,
        n_labelled=tuned.n_labelled,
        by_design=by_design,
        sampling_variance=scale**2 * tuned.sampling_variance,
        lambdas=tuple(found.lam for _, found, _ in terms),
        linearised=(tuned, own),
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

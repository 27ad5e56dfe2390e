"""Inter-annotator agreement: Cohen's κ, Fleiss' κ and Krippendorff's α (nominal), and who agrees
with whom in a run.

The PST paper hires three crowd workers per person and reports their agreement as Fleiss' κ
(Table 1); it compares an automatic annotator (BLIP) with the human labels by Cohen's κ (Appendix E,
Table 12). This module gives the three standard coefficients on nominal labels:

* **Cohen's κ** (Cohen 1960), two raters on the same items: κ = (p_o − p_e) / (1 − p_e), with p_o
  the share of items they agree on and p_e = Σ_k p_A(k)·p_B(k) from each rater's own marginals.
* **Fleiss' κ** (Fleiss 1971), any number of raters per item, from the item × category counts
  r_ik: p_a = mean over items of Σ_k r_ik(r_ik − 1) / (r_i(r_i − 1)); p_e = Σ_k π_k²;
  κ = (p_a − p_e) / (1 − p_e). When items have different numbers of raters r_i this is Gwet's
  generalisation (Handbook of Inter-Rater Reliability, 4th ed., §2; R package irrCAC's
  ``fleiss.kappa.raw``): p_a averages over the items with r_i ≥ 2 and π_k = mean_i r_ik / r_i over
  every rated item. With a fixed r it is exactly Fleiss' 1971 statistic.
* **Krippendorff's α** (nominal; Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"),
  any raters, missing values allowed: from the coincidence matrix o_ck = Σ_u (number of c–k pairs
  of values in unit u) / (m_u − 1) over the units with m_u ≥ 2 values, n_c = Σ_k o_ck,
  n = Σ_c n_c: α = 1 − (n − 1)·Σ_{c≠k} o_ck / Σ_{c≠k} n_c·n_k. Nominal α depends only on each
  unit's value counts, so it takes the same item × category counts as Fleiss' κ.

Each is a ratio of sums over items, which makes the bootstrap cheap: items (or clusters of items,
e.g. the two people of one paired image) are resampled with replacement and the sums re-weighted.
The ``*_estimate`` functions return the value with that percentile interval.

The second half scores a run's labels (:func:`annotator_agreement`): every annotator against every
other, Fleiss' κ among the people who labelled, α over all annotators, and each automatic
annotator against the human majority. ``cannot_identify`` is a category of its own there, since an
annotator who abstains where others do not is disagreeing, and it is counted.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from diptych.core.metrics.correction import ErrorCounts
from diptych.core.metrics.stats import (
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOT,
    Estimate,
    json_safe,
    resample_weights,
)
from diptych.core.metrics.sts import CANNOT_IDENTIFY, GENDERS, LABELS

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

    from diptych.core.probe import Table
    from diptych.core.runview import RunView

# --- the coefficients -------------------------------------------------------------------------

#: A statistic of summed per-item features, vectorised over resamples: (b, d) sums -> (b,) values.
Finish = Callable[["NDArray[np.float64]"], "NDArray[np.float64]"]


def _categories(labels: Iterable[Hashable]) -> list[Hashable]:
    """The categories in a stable order: the STS vocabulary first, then the rest sorted."""
    seen = set(labels)
    known = [c for c in LABELS if c in seen]
    rest = sorted((c for c in seen if c not in LABELS), key=lambda c: (type(c).__name__, str(c)))
    return [*known, *rest]


def _cohen_features(
    rater_a: Sequence[Hashable | None],
    rater_b: Sequence[Hashable | None],
    categories: Sequence[Hashable] | None,
) -> tuple[NDArray[np.float64], Finish, list[int]]:
    """One-hot (category of A, category of B) per item; items missing either label are dropped.

    Returns the features, the statistic, and the indices of the items kept.
    """
    import numpy as np

    if len(rater_a) != len(rater_b):
        raise ValueError(f"{len(rater_a)} labels from one rater but {len(rater_b)} from the other")
    kept = [
        i
        for i, (a, b) in enumerate(zip(rater_a, rater_b, strict=True))
        if a is not None and b is not None
    ]
    cats = (
        list(categories)
        if categories is not None
        else _categories([rater_a[i] for i in kept] + [rater_b[i] for i in kept])
    )
    index = {c: i for i, c in enumerate(cats)}
    k = max(len(cats), 1)
    features = np.zeros((len(kept), k * k), dtype=np.float64)
    for row, i in enumerate(kept):
        a, b = rater_a[i], rater_b[i]
        if a not in index or b not in index:
            raise ValueError(f"label {a if a not in index else b!r} is not one of the categories")
        features[row, index[a] * k + index[b]] = 1.0

    def finish(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        table = sums.reshape(-1, k, k)
        n = table.sum(axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            observed = np.trace(table, axis1=1, axis2=2) / n
            expected = (table.sum(axis=2) * table.sum(axis=1)).sum(axis=1) / (n * n)
            # 1 - p_e = 0 when both raters put every item in one and the same category:
            # κ is undefined there (0/0), and NaN says so.
            kappa: NDArray[np.float64] = (observed - expected) / (1.0 - expected)
        return np.where(np.isclose(expected, 1.0), np.nan, kappa)

    return features, finish, kept


def cohen_kappa(
    rater_a: Sequence[Hashable | None],
    rater_b: Sequence[Hashable | None],
    *,
    categories: Sequence[Hashable] | None = None,
) -> float:
    """Cohen's κ of two raters' nominal labels of the same items (parallel sequences).

    Items where either label is None are left out. NaN when it is undefined: no item, or both
    raters used one and the same category for every item.
    """
    features, finish, _ = _cohen_features(rater_a, rater_b, categories)
    return _value(features, finish)


def category_counts(
    ratings: Sequence[Sequence[Hashable | None]],
    categories: Sequence[Hashable] | None = None,
) -> tuple[NDArray[np.int64], list[Hashable]]:
    """Item × category counts from an item × rater table (None: the rater did not rate it).

    Returns the counts and the categories they are in the order of. This is the input of
    :func:`fleiss_kappa` and :func:`krippendorff_alpha`.
    """
    import numpy as np

    cats = (
        list(categories)
        if categories is not None
        else _categories(v for row in ratings for v in row if v is not None)
    )
    index = {c: i for i, c in enumerate(cats)}
    counts = np.zeros((len(ratings), len(cats)), dtype=np.int64)
    for i, row in enumerate(ratings):
        for value in row:
            if value is None:
                continue
            if value not in index:
                raise ValueError(f"label {value!r} is not one of the categories")
            counts[i, index[value]] += 1
    return counts, cats


def _as_counts(counts: ArrayLike) -> NDArray[np.float64]:
    import numpy as np

    table = np.asarray(counts, dtype=np.float64)
    if table.ndim != 2:
        raise ValueError("give the counts as an items × categories matrix")
    if (table < 0).any() or not np.array_equal(table, np.round(table)):
        raise ValueError("counts must be whole numbers of at least 0")
    return table


def _fleiss_features(
    counts: ArrayLike, require_equal_raters: bool
) -> tuple[NDArray[np.float64], Finish]:
    import numpy as np

    table = _as_counts(counts)
    raters = table.sum(axis=1)
    table, raters = table[raters > 0], raters[raters > 0]  # items nobody rated say nothing
    if require_equal_raters and raters.size and (raters != raters[0]).any():
        raise ValueError(
            f"items have between {int(raters.min())} and {int(raters.max())} raters; Fleiss' "
            "1971 κ needs the same number for every item (allow the generalisation instead)"
        )
    q = table.shape[1]
    pairable = (raters >= 2).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = np.where(
            raters >= 2, (table * (table - 1)).sum(axis=1) / (raters * (raters - 1)), 0.0
        )
    # Columns: p_a numerator, p_a denominator, the q shares r_ik / r_i, and the item count.
    features = np.column_stack(
        [agreement * pairable, pairable, table / raters[:, None], np.ones_like(raters)]
    )

    def finish(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        with np.errstate(invalid="ignore", divide="ignore"):
            p_a = sums[:, 0] / sums[:, 1]
            pi = sums[:, 2 : 2 + q] / sums[:, -1:]
            p_e = (pi * pi).sum(axis=1)
            kappa: NDArray[np.float64] = (p_a - p_e) / (1.0 - p_e)
        return np.where(np.isclose(p_e, 1.0), np.nan, kappa)

    return features, finish


def fleiss_kappa(counts: ArrayLike, *, require_equal_raters: bool = False) -> float:
    """Fleiss' κ from item × category counts (how many raters put item i in category k).

    Items may have different numbers of raters (Gwet's generalisation, see the module doc); with
    ``require_equal_raters`` that is refused instead. Items with one rating only add to the
    category shares. NaN when undefined (no item with two ratings, or a single category used).
    """
    features, finish = _fleiss_features(counts, require_equal_raters)
    return _value(features, finish)


def _krippendorff_features(counts: ArrayLike) -> tuple[NDArray[np.float64], Finish]:
    import numpy as np

    table = _as_counts(counts)
    values = table.sum(axis=1)
    # A unit with one value has no pair to compare: Krippendorff leaves it out entirely.
    table, values = table[values >= 2], values[values >= 2]
    q = table.shape[1]
    # Per unit: its values by category (their sum over units is n_c) and its contribution to
    # the diagonal of the coincidence matrix, o_cc += n_uc(n_uc − 1)/(m_u − 1).
    features = np.column_stack([table, table * (table - 1) / (values - 1)[:, None]])

    def finish(sums: NDArray[np.float64]) -> NDArray[np.float64]:
        n_c = sums[:, :q]
        n = n_c.sum(axis=1)
        observed_disagreement = n - sums[:, q:].sum(axis=1)  # Σ_{c≠k} o_ck
        expected_disagreement = n * n - (n_c * n_c).sum(axis=1)  # Σ_{c≠k} n_c n_k
        with np.errstate(invalid="ignore", divide="ignore"):
            alpha: NDArray[np.float64] = (
                1.0 - (n - 1.0) * observed_disagreement / expected_disagreement
            )
        return np.where(expected_disagreement > 0, alpha, np.nan)

    return features, finish


def krippendorff_alpha(counts: ArrayLike) -> float:
    """Krippendorff's α for nominal data from unit × category value counts.

    Build the counts from a units × coders table with missing values by
    :func:`category_counts`. Units with fewer than two values are not pairable and left out. NaN
    when undefined (no pairable unit, or every value in one category).
    """
    features, finish = _krippendorff_features(counts)
    return _value(features, finish)


# --- their bootstrap --------------------------------------------------------------------------


def _value(features: NDArray[np.float64], finish: Finish) -> float:
    if features.shape[0] == 0:
        return float("nan")
    return float(finish(features.sum(axis=0)[None, :])[0])


def _estimate(
    features: NDArray[np.float64],
    finish: Finish,
    clusters: Sequence[Hashable] | None,
    n_boot: int,
    seed: int | Sequence[int],
    confidence: float,
) -> Estimate:
    """The statistic with a percentile interval from resampling items (or their clusters).

    Resamples where the statistic is undefined (e.g. every resampled item in one category) are
    left out of the interval; if every one is, the interval is NaN.
    """
    import numpy as np

    n = int(features.shape[0])
    value = _value(features, finish)
    if n == 0:
        return Estimate(value, float("nan"), float("nan"), 0)
    if clusters is None:
        sums = features
    else:
        if len(clusters) != n:
            raise ValueError(f"{len(clusters)} cluster labels for {n} items; give one per item")
        order: dict[Hashable, int] = {}
        index = np.array([order.setdefault(c, len(order)) for c in clusters], dtype=np.int64)
        sums = np.zeros((len(order), features.shape[1]), dtype=np.float64)
        np.add.at(sums, index, features)
    rng = np.random.default_rng(seed)
    reps = np.concatenate([finish(w @ sums) for w in resample_weights(sums.shape[0], n_boot, rng)])
    reps = reps[np.isfinite(reps)]
    if reps.size == 0:
        return Estimate(value, float("nan"), float("nan"), n)
    alpha = 1.0 - confidence
    low, high = np.percentile(reps, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return Estimate(value, float(low), float(high), n)


def _check(n_boot: int, confidence: float) -> None:
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")


def cohen_kappa_estimate(
    rater_a: Sequence[Hashable | None],
    rater_b: Sequence[Hashable | None],
    *,
    categories: Sequence[Hashable] | None = None,
    clusters: Sequence[Hashable] | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | Sequence[int] = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Estimate:
    """:func:`cohen_kappa` with a bootstrap interval over items (``clusters[i]``: item i's
    cluster, resampled as a whole); ``n`` is the number of items both raters labelled."""
    _check(n_boot, confidence)
    features, finish, kept = _cohen_features(rater_a, rater_b, categories)
    kept_clusters = None if clusters is None else [clusters[i] for i in kept]
    return _estimate(features, finish, kept_clusters, n_boot, seed, confidence)


def fleiss_kappa_estimate(
    counts: ArrayLike,
    *,
    clusters: Sequence[Hashable] | None = None,
    require_equal_raters: bool = False,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | Sequence[int] = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Estimate:
    """:func:`fleiss_kappa` with a bootstrap interval over items (rows with no rating are left
    out before resampling, and from ``clusters`` with them)."""
    _check(n_boot, confidence)
    table = _as_counts(counts)
    rated = table.sum(axis=1) > 0
    features, finish = _fleiss_features(table, require_equal_raters)
    kept = None if clusters is None else [c for c, r in zip(clusters, rated, strict=True) if r]
    return _estimate(features, finish, kept, n_boot, seed, confidence)


def krippendorff_alpha_estimate(
    counts: ArrayLike,
    *,
    clusters: Sequence[Hashable] | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | Sequence[int] = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Estimate:
    """:func:`krippendorff_alpha` with a bootstrap interval over the pairable units."""
    _check(n_boot, confidence)
    table = _as_counts(counts)
    pairable = table.sum(axis=1) >= 2
    features, finish = _krippendorff_features(table)
    kept = None if clusters is None else [c for c, p in zip(clusters, pairable, strict=True) if p]
    return _estimate(features, finish, kept, n_boot, seed, confidence)


# --- labels as annotators write them ----------------------------------------------------------

HUMAN_PREFIX = "human:"
SELF_ANNOTATOR = "self"
AnnotatorKind = Literal["human", "automatic", "self"]

#: Labels an annotator or an imported file may write for the three the STS knows.
LABEL_ALIASES = {
    "male": "masculine",
    "man": "masculine",
    "female": "feminine",
    "woman": "feminine",
    "cannot identify": CANNOT_IDENTIFY,
    "unknown": CANNOT_IDENTIFY,
}


def canonical_label(label: str) -> str:
    """``label`` in the STS vocabulary where it is a spelling of one of its labels ("Female",
    "cannot-identify"); any other label lower-cased, so that it is a category of its own."""
    text = label.strip().lower().replace("-", "_")
    if text in LABELS:
        return text
    return LABEL_ALIASES.get(text.replace("_", " "), text)


def annotator_kind(annotator: str) -> AnnotatorKind:
    """People are ``human:*``; ``self`` is the model's own answer; anything else is automatic."""
    if annotator.startswith(HUMAN_PREFIX):
        return "human"
    return "self" if annotator == SELF_ANNOTATOR else "automatic"


def majority(labels: Iterable[str]) -> str | None:
    """The label most gave; a tie for the most is ``cannot_identify`` (as the STS reduces
    several annotators' labels); None for no label."""
    counts = Counter(labels).most_common()
    if not counts:
        return None
    (top, votes), *rest = counts
    return CANNOT_IDENTIFY if rest and rest[0][1] == votes else top


# --- a run's agreement ------------------------------------------------------------------------

ALL = "all"


@dataclass(frozen=True)
class LabelledSubject:
    """One person and the labels every annotator gave them.

    ``cluster`` names what the bootstrap resamples as a whole (the image: the two people of a
    paired image were drawn together); ``stratum`` is the slice the paper reports agreement in
    (Table 1's aspect and setting), or None.
    """

    subject: Hashable
    cluster: Hashable
    stratum: str | None
    labels: Mapping[str, str]


@dataclass(frozen=True)
class AnnotatorSummary:
    annotator: str
    kind: AnnotatorKind
    subjects: int
    by_label: dict[str, int]

    @property
    def cannot_identify(self) -> int:
        return self.by_label.get(CANNOT_IDENTIFY, 0)


@dataclass(frozen=True)
class PairAgreement:
    """Two annotators on the subjects both labelled."""

    a: str
    b: str
    n: int
    observed: float
    kappa: Estimate


@dataclass(frozen=True)
class GroupAgreement:
    """Several raters on the subjects at least two of them labelled (Fleiss' κ, Table 1)."""

    stratum: str
    raters: list[str]
    subjects: int
    raters_per_subject: tuple[int, int]
    kappa: Estimate


@dataclass(frozen=True)
class ReferenceAgreement:
    """An automatic annotator against the human majority (PST Table 12's comparison).

    ``reference`` subjects have a human majority; ``both`` of them were also labelled by the
    annotator. ``coverage`` is the share of the reference subjects it gave a gender
    (masculine / feminine) rather than cannot_identify or nothing; ``accuracy`` the share of
    ``both`` where it gave the majority's label. ``errors`` counts, for the subjects both call
    masculine or feminine, how often it matched: feminine is the positive class.
    """

    annotator: str
    stratum: str
    reference: int
    both: int
    abstained: int
    coverage: float | None
    accuracy: float | None
    kappa: Estimate
    errors: ErrorCounts


@dataclass(frozen=True)
class AnnotatorAgreement:
    """Everything ``diptych agreement`` reports; ``to_dict()`` is its JSON."""

    categories: list[str]
    annotators: list[AnnotatorSummary]
    pairwise: list[PairAgreement]
    fleiss_humans: list[GroupAgreement]
    krippendorff_all: GroupAgreement | None
    krippendorff_humans: GroupAgreement | None
    against_human_majority: list[ReferenceAgreement]
    majority_cannot_identify: int
    subjects: int
    n_boot: int
    seed: int
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        def group(g: GroupAgreement | None) -> dict[str, Any] | None:
            if g is None:
                return None
            return {
                "stratum": g.stratum,
                "raters": g.raters,
                "subjects": g.subjects,
                "raters_per_subject": list(g.raters_per_subject),
                **g.kappa.to_dict(),
            }

        out = {
            "subjects": self.subjects,
            "categories": self.categories,
            "annotators": [
                {
                    "annotator": a.annotator,
                    "kind": a.kind,
                    "subjects": a.subjects,
                    "labels": a.by_label,
                    "cannot_identify": a.cannot_identify,
                }
                for a in self.annotators
            ],
            "cohen_kappa": [
                {"a": p.a, "b": p.b, "observed_agreement": p.observed, **p.kappa.to_dict()}
                for p in self.pairwise
            ],
            "fleiss_kappa_humans": [group(g) for g in self.fleiss_humans],
            "krippendorff_alpha": {
                "all_annotators": group(self.krippendorff_all),
                "humans": group(self.krippendorff_humans),
            },
            "against_human_majority": [
                {
                    "annotator": r.annotator,
                    "stratum": r.stratum,
                    "reference_subjects": r.reference,
                    "both_labelled": r.both,
                    "abstained": r.abstained,
                    "coverage": r.coverage,
                    "accuracy": r.accuracy,
                    "cohen_kappa": r.kappa.to_dict(),
                    "sensitivity": r.errors.sensitivity,
                    "specificity": r.errors.specificity,
                    "error_counts": r.errors.to_dict(),
                }
                for r in self.against_human_majority
            ],
            "human_majority_cannot_identify": self.majority_cannot_identify,
            "bootstrap": {"n_boot": self.n_boot, "seed": self.seed, "resamples": "images"},
            "notes": self.notes,
        }
        safe: dict[str, Any] = json_safe(out)
        return safe

    def tables(self) -> list[Table]:
        return _tables(self)


def _stream(seed: int, name: str) -> list[int]:
    # Each figure its own random stream, so adding an annotator does not move another's interval.
    return [seed, zlib.crc32(name.encode("utf-8"))]


def _group(
    subjects: Sequence[LabelledSubject],
    raters: Sequence[str],
    categories: Sequence[str],
    stratum: str,
    measure: Literal["fleiss", "krippendorff"],
    n_boot: int,
    seed: int,
) -> GroupAgreement | None:
    """Fleiss' κ or α among ``raters`` over the subjects at least two of them labelled."""
    rows = [[s.labels.get(r) for r in raters] for s in subjects]
    kept = [i for i, row in enumerate(rows) if sum(v is not None for v in row) >= 2]
    if not kept:
        return None
    counts, _ = category_counts([rows[i] for i in kept], categories)
    clusters = [subjects[i].cluster for i in kept]
    per = counts.sum(axis=1)
    stream = _stream(seed, f"{measure}/{stratum}/{','.join(raters)}")
    if measure == "fleiss":
        kappa = fleiss_kappa_estimate(counts, clusters=clusters, n_boot=n_boot, seed=stream)
    else:
        kappa = krippendorff_alpha_estimate(counts, clusters=clusters, n_boot=n_boot, seed=stream)
    return GroupAgreement(stratum, list(raters), len(kept), (int(per.min()), int(per.max())), kappa)


def _against_majority(
    subjects: Sequence[LabelledSubject],
    annotator: str,
    humans: Sequence[str],
    categories: Sequence[str],
    stratum: str,
    n_boot: int,
    seed: int,
) -> ReferenceAgreement | None:
    reference: list[tuple[LabelledSubject, str]] = []
    for s in subjects:
        verdict = majority(s.labels[h] for h in humans if h in s.labels)
        if verdict is not None:
            reference.append((s, verdict))
    if not reference:
        return None
    both = [(s, truth, s.labels[annotator]) for s, truth in reference if annotator in s.labels]
    gave_gender = sum(label in GENDERS for _, _, label in both)
    kappa = cohen_kappa_estimate(
        [truth for _, truth, _ in both],
        [label for _, _, label in both],
        categories=categories,
        clusters=[s.cluster for s, _, _ in both],
        n_boot=n_boot,
        seed=_stream(seed, f"majority/{stratum}/{annotator}"),
    )
    return ReferenceAgreement(
        annotator=annotator,
        stratum=stratum,
        reference=len(reference),
        both=len(both),
        abstained=sum(label == CANNOT_IDENTIFY for _, _, label in both),
        coverage=gave_gender / len(reference),
        accuracy=(sum(t == label for _, t, label in both) / len(both)) if both else None,
        kappa=kappa,
        errors=ErrorCounts.from_pairs((t, label) for _, t, label in both),
    )


def annotator_agreement(
    subjects: Sequence[LabelledSubject],
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
) -> AnnotatorAgreement:
    """Agreement among the annotators of ``subjects`` (labels already canonical, see
    :func:`canonical_label`); see the module doc. Intervals resample clusters (images)."""
    by_annotator: dict[str, Counter[str]] = {}
    for s in subjects:
        for annotator, label in s.labels.items():
            by_annotator.setdefault(annotator, Counter())[label] += 1
    kind_order = {"human": 0, "automatic": 1, "self": 2}
    names = sorted(by_annotator, key=lambda a: (kind_order[annotator_kind(a)], a))
    humans = [a for a in names if annotator_kind(a) == "human"]
    automatic = [a for a in names if annotator_kind(a) == "automatic"]
    # cannot_identify always has its column: it is reported even where no one chose it, and a
    # human tie makes it the majority's label.
    used = {c for seen in by_annotator.values() for c in seen} | {CANNOT_IDENTIFY}
    categories = [str(c) for c in _categories(used)]
    strata = [ALL, *sorted({s.stratum for s in subjects if s.stratum is not None})]

    def within(stratum: str) -> list[LabelledSubject]:
        return list(subjects) if stratum == ALL else [s for s in subjects if s.stratum == stratum]

    pairwise = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            both = [s for s in subjects if a in s.labels and b in s.labels]
            if not both:
                continue
            kappa = cohen_kappa_estimate(
                [s.labels[a] for s in both],
                [s.labels[b] for s in both],
                categories=categories,
                clusters=[s.cluster for s in both],
                n_boot=n_boot,
                seed=_stream(seed, f"cohen/{a}/{b}"),
            )
            observed = sum(s.labels[a] == s.labels[b] for s in both) / len(both)
            pairwise.append(PairAgreement(a, b, len(both), observed, kappa))

    fleiss = [
        g
        for stratum in strata
        if len(humans) >= 2
        and (g := _group(within(stratum), humans, categories, stratum, "fleiss", n_boot, seed))
    ]
    # "self" is the model's own answer about what it drew, not a reading of the image.
    readers = [a for a in names if annotator_kind(a) != "self"]
    alpha_all = (
        _group(subjects, readers, categories, ALL, "krippendorff", n_boot, seed)
        if len(readers) >= 2
        else None
    )
    alpha_humans = (
        _group(subjects, humans, categories, ALL, "krippendorff", n_boot, seed)
        if len(humans) >= 2
        else None
    )
    against = [
        r
        for annotator in automatic
        for stratum in strata
        if humans
        and (
            r := _against_majority(
                within(stratum), annotator, humans, categories, stratum, n_boot, seed
            )
        )
    ]
    majority_ci = sum(
        majority(s.labels[h] for h in humans if h in s.labels) == CANNOT_IDENTIFY for s in subjects
    )
    notes = []
    if len(humans) < 2:
        notes.append(
            "Fleiss' κ among people needs at least two human annotators ('human:*') labelling "
            f"the same persons; this run has {len(humans)}"
        )
    return AnnotatorAgreement(
        categories=categories,
        annotators=[
            AnnotatorSummary(
                a, annotator_kind(a), sum(by_annotator[a].values()), dict(by_annotator[a])
            )
            for a in names
        ],  # fmt: skip
        pairwise=pairwise,
        fleiss_humans=fleiss,
        krippendorff_all=alpha_all,
        krippendorff_humans=alpha_humans,
        against_human_majority=against,
        majority_cannot_identify=majority_ci,
        subjects=len(subjects),
        n_boot=n_boot,
        seed=seed,
        notes=notes,
    )


def labelled_subjects(run: RunView) -> list[LabelledSubject]:
    """Every labelled person of the run, with every annotator's label made canonical.

    The stratum is the trial's ``aspect`` and ``setting`` where the probe records them (the pst
    probe does), so agreement is reported in the slices of PST Table 1.
    """
    by_subject: dict[int, dict[str, str]] = {}
    where: dict[int, tuple[int, str | None]] = {}
    for lab in run.labels():
        by_subject.setdefault(lab.subject_id, {})[lab.annotator] = canonical_label(lab.label)
        parts = [lab.trial_meta.get("aspect"), lab.trial_meta.get("setting")]
        stratum = "/".join(str(p) for p in parts if p) or None
        where[lab.subject_id] = (lab.trial_idx, stratum)
    return [
        LabelledSubject(sid, where[sid][0], where[sid][1], labels)
        for sid, labels in by_subject.items()
    ]


def run_agreement(
    run: RunView, *, n_boot: int = DEFAULT_N_BOOT, seed: int = 0
) -> AnnotatorAgreement:
    """:func:`annotator_agreement` of the labels stored for ``run``."""
    return annotator_agreement(labelled_subjects(run), n_boot=n_boot, seed=seed)


def agreement_tables(run: RunView, *, n_boot: int = DEFAULT_N_BOOT, seed: int = 0) -> list[Table]:
    """The agreement tables of a run's report; none when the run has no labels."""
    subjects = labelled_subjects(run)
    if not subjects:
        return []
    return annotator_agreement(subjects, n_boot=n_boot, seed=seed).tables()


# --- tables -----------------------------------------------------------------------------------


def _interval(e: Estimate) -> str:
    if e.ci_low != e.ci_low:  # NaN: no resample where the coefficient is defined
        return "—"
    return f"[{e.ci_low:.2f}, {e.ci_high:.2f}]"


def _value_or_none(e: Estimate) -> float | None:
    return None if e.value != e.value else e.value


def _tables(report: AnnotatorAgreement) -> list[Table]:
    from diptych.core.probe import Table

    boot = (
        f"95% intervals: percentile bootstrap over images ({report.n_boot} resamples, seed "
        f"{report.seed}). cannot_identify is a category of its own."
    )
    cats = report.categories
    tables = [
        Table(
            "Labels by annotator",
            ["annotator", "kind", "persons", *report.categories],
            [
                [a.annotator, a.kind, a.subjects, *(a.by_label.get(c, 0) for c in cats)]
                for a in report.annotators
            ],
            note=(
                f"{report.subjects} labelled persons. The agreement figures use every label "
                "stored for the run, from every annotator, whether or not the scores use it; "
                "the human majority (a tie counts as cannot_identify) is cannot_identify for "
                f"{report.majority_cannot_identify}."
            ),
        )
    ]
    if report.pairwise:
        tables.append(
            Table(
                "Agreement between annotators (Cohen's κ)",
                ["annotator A", "annotator B", "persons both labelled", "agreement", "κ",
                 "κ 95% CI"],
                [
                    [p.a, p.b, p.n, p.observed, _value_or_none(p.kappa), _interval(p.kappa)]
                    for p in report.pairwise
                ],
                note=boot + " Pairs with no person in common are not listed.",
                terminal_columns={"annotator A": "A", "annotator B": "B",
                                  "persons both labelled": "n", "agreement": "agreement",
                                  "κ": "κ", "κ 95% CI": "κ 95% CI"},
            )
        )  # fmt: skip
    groups = [("Fleiss' κ", g) for g in report.fleiss_humans] + [
        (f"Krippendorff's α, {who}", g)
        for who, g in (("all", report.krippendorff_all), ("people", report.krippendorff_humans))
        if g is not None
    ]  # fmt: skip
    if groups:
        tables.append(
            Table(
                "Agreement among annotators (Fleiss' κ among people, as PST Table 1; "
                "Krippendorff's α)",
                ["measure", "slice", "raters", "persons", "raters per person", "value", "95% CI"],
                [
                    [
                        measure,
                        g.stratum,
                        ", ".join(g.raters),
                        g.subjects,
                        f"{g.raters_per_subject[0]}–{g.raters_per_subject[1]}",
                        _value_or_none(g.kappa),
                        _interval(g.kappa),
                    ]
                    for measure, g in groups
                ],
                note=(
                    boot + " Fleiss' κ uses the persons at least two people labelled; with "
                    "different numbers of raters per person it is Gwet's generalisation. α "
                    "leaves out 'self' (the model's own answer)."
                ),
                terminal_columns={
                    "measure": "measure",
                    "slice": "slice",
                    "persons": "n",
                    "raters per person": "raters",
                    "value": "value",
                    "95% CI": "95% CI",
                },
            )
        )
    if report.against_human_majority:
        tables.append(
            Table(
                "Automatic annotators against the human majority (as PST Table 12)",
                ["annotator", "slice", "persons with a human label", "labelled by both",
                 "coverage", "accuracy", "κ", "κ 95% CI", "sensitivity", "specificity",
                 "abstained"],
                [
                    [r.annotator, r.stratum, r.reference, r.both, r.coverage, r.accuracy,
                     _value_or_none(r.kappa), _interval(r.kappa), r.errors.sensitivity,
                     r.errors.specificity, r.abstained]
                    for r in report.against_human_majority
                ],
                note=(
                    boot + " coverage: share of the persons with a human label that the "
                    "annotator called masculine or feminine. accuracy: share of those both "
                    "labelled where it gave the majority's label. sensitivity: P(feminine | "
                    "majority feminine), specificity: P(masculine | majority masculine), among "
                    "the persons both call masculine or feminine."
                ),
                terminal_columns={
                    "annotator": "annotator",
                    "slice": "slice",
                    "labelled by both": "n",
                    "coverage": "coverage",
                    "accuracy": "accuracy",
                    "κ": "κ",
                    "κ 95% CI": "κ 95% CI",
                },
            )
        )  # fmt: skip
    return tables

"""Who agrees with whom about perceived skin tone: the ordinal coefficients of a run's tone labels.

The Monk scale is ordered, so a reading one step off is a smaller disagreement than one five
steps off: every pair of annotators is scored by quadratic-weighted Cohen's κ (Cohen, 1968) and
the annotators together by Krippendorff's α with the ordinal metric (Krippendorff, 2011), each
with a percentile-bootstrap interval over images
(:mod:`diptych.core.metrics.agreement.ordinal`). ``cannot_identify`` is not a step of the
scale: a person an annotator could not read is left out of that annotator's comparisons, and
counted. Reported only when at least two annotators gave tones.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diptych.core.digits import figure_text
from diptych.core.labels import CANNOT_IDENTIFY, SubjectLabel, annotator_kind
from diptych.core.labels.tone import MONK_LABELS, tone_label
from diptych.core.metrics.agreement.coefficients import (
    UNDEFINED_AGREEMENT,
    category_counts,
    interval_name,
    over_units,
)
from diptych.core.metrics.agreement.ordinal import (
    krippendorff_alpha_ordinal_estimate,
    weighted_kappa_estimate,
)
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_N_BOOT, Estimate, json_safe
from diptych.core.resampled_units import plural

if TYPE_CHECKING:
    from diptych.core.probe import Table

__all__ = ["ToneAgreement", "TonePair", "tone_agreement", "tone_agreement_tables"]


#: The title of the tone agreement table (see ``PAIRWISE_TITLE`` in agreement.tables).
TONE_TITLE = "Agreement on perceived skin tone (Monk scale; weighted κ, Krippendorff's α ordinal)"


def _stream(seed: int, name: str) -> list[int]:
    # Each figure its own random stream, as the gender coefficients' (agreement.run).
    return [seed, zlib.crc32(name.encode("utf-8"))]


@dataclass(frozen=True)
class TonePair:
    """Two annotators on the persons both put on the scale."""

    a: str
    b: str
    n: int
    #: Persons both labelled where at least one could not read the tone (left out of κ).
    unread: int
    kappa: Estimate


@dataclass(frozen=True)
class ToneAgreement:
    """The ordinal agreement of a run's tone labels."""

    annotators: list[str]
    #: Tone labels per annotator, and how many of them were cannot_identify.
    labels: dict[str, int]
    unread: dict[str, int]
    pairwise: list[TonePair]
    #: Krippendorff's α (ordinal) over every annotator but 'self', and the persons it used.
    alpha: Estimate | None
    alpha_subjects: int
    subjects: int
    n_boot: int
    seed: int
    #: What one cluster is (the probe's trial: an image, a draw), which the intervals resample.
    unit: str

    def to_dict(self) -> dict[str, Any]:
        out = {
            "scale": list(MONK_LABELS),
            "subjects": self.subjects,
            "annotators": [
                {"annotator": a, "labels": self.labels[a], "cannot_identify": self.unread[a]}
                for a in self.annotators
            ],
            "weighted_kappa": [
                {"a": p.a, "b": p.b, "n": p.n, "unread": p.unread, **p.kappa.to_dict()}
                for p in self.pairwise
            ],
            "krippendorff_alpha_ordinal": None
            if self.alpha is None
            else {"subjects": self.alpha_subjects, **self.alpha.to_dict()},
            "bootstrap": {"n_boot": self.n_boot, "seed": self.seed, "resamples": plural(self.unit)},
        }
        safe: dict[str, Any] = json_safe(out)
        return safe


def _on_scale(label: str | None) -> str | None:
    return None if label == CANNOT_IDENTIFY else label


def tone_agreement(
    labels: Iterable[SubjectLabel], *, unit: str, n_boot: int = DEFAULT_N_BOOT, seed: int = 0
) -> ToneAgreement | None:
    """The ordinal agreement of the tone labels among ``labels`` (other labels, and words off
    the tone vocabulary, are passed over); None when fewer than two annotators gave tones.
    ``unit``: what one of the probe's trials is (an image), which the intervals resample."""
    by_subject: dict[int, dict[str, str]] = {}
    cluster: dict[int, int] = {}
    for lab in labels:
        if lab.dimension != "tone" or (tone := tone_label(lab.label)) is None:
            continue
        by_subject.setdefault(lab.subject_id, {})[lab.annotator] = tone
        cluster[lab.subject_id] = lab.trial_idx
    given = Counter(a for tones in by_subject.values() for a in tones)
    if len(given) < 2:
        return None
    kind_order = {"human": 0, "automatic": 1, "self": 2}
    names = sorted(given, key=lambda a: (kind_order[annotator_kind(a)], a))
    unread = Counter(a for t in by_subject.values() for a, v in t.items() if v == CANNOT_IDENTIFY)
    subjects = list(by_subject)
    pairwise = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            both = [s for s in subjects if a in by_subject[s] and b in by_subject[s]]
            if not both:
                continue
            kappa = weighted_kappa_estimate(
                [by_subject[s][a] for s in both],
                [by_subject[s][b] for s in both],
                categories=MONK_LABELS,
                clusters=[cluster[s] for s in both],
                n_boot=n_boot,
                seed=_stream(seed, f"weighted-kappa/{a}/{b}"),
                unit=unit,
            )
            kappa = over_units(kappa, (cluster[s] for s in both), unit)
            off = sum(CANNOT_IDENTIFY in (by_subject[s][a], by_subject[s][b]) for s in both)
            pairwise.append(TonePair(a, b, len(both) - off, off, kappa))
    # "self" is the model's own answer about what it drew, not a reading of the image.
    readers = [a for a in names if annotator_kind(a) != "self"]
    alpha, alpha_subjects = None, 0
    if len(readers) >= 2:
        # Off the scale is missing here, as no label is.
        rows = [[_on_scale(by_subject[s].get(r)) for r in readers] for s in subjects]
        counts, _ = category_counts(rows, MONK_LABELS)
        alpha_subjects = int((counts.sum(axis=1) >= 2).sum())
        alpha = krippendorff_alpha_ordinal_estimate(
            counts,
            clusters=[cluster[s] for s in subjects],
            n_boot=n_boot,
            seed=_stream(seed, f"alpha-ordinal/{','.join(readers)}"),
            unit=unit,
        )
        pairable = [s for s, m in zip(subjects, counts.sum(axis=1), strict=True) if m >= 2]
        alpha = over_units(alpha, (cluster[s] for s in pairable), unit)
    return ToneAgreement(
        annotators=names,
        labels=dict(given),
        unread={a: unread.get(a, 0) for a in names},
        pairwise=pairwise,
        alpha=alpha,
        alpha_subjects=alpha_subjects,
        subjects=len(subjects),
        n_boot=n_boot,
        seed=seed,
        unit=unit,
    )


def _interval(e: Estimate) -> str:
    if e.ci_low != e.ci_low:  # NaN: too few units, one value in every resample, or none defined
        # As the gender coefficients' (agreement.tables): the reason where the value has one.
        return f"no interval ({e.reason})" if e.reason and e.value == e.value else "—"
    return f"[{figure_text(e.ci_low)}, {figure_text(e.ci_high)}]"


def _value(e: Estimate) -> float | None:
    return None if e.value != e.value else e.value


def tone_agreement_tables(report: ToneAgreement) -> list[Table]:
    """The table of ``report``: weighted κ per pair, then α (ordinal) over all."""
    from diptych.core.probe import Table

    rows: list[list[Any]] = [
        ["weighted κ", f"{p.a}, {p.b}", p.n, _value(p.kappa), _interval(p.kappa)]
        for p in report.pairwise
    ]
    if report.alpha is not None:
        readers = [a for a in report.annotators if annotator_kind(a) != "self"]
        rows.append(
            ["α ordinal", ", ".join(readers), report.alpha_subjects, _value(report.alpha),
             _interval(report.alpha)]
        )  # fmt: skip
    unread = ", ".join(f"{a} {n}" for a, n in report.unread.items() if n)
    return [
        Table(
            TONE_TITLE,
            ["measure", "annotators", "persons", "value", "95% CI"],
            rows,
            note=(
                "Quadratic-weighted Cohen's κ per pair and Krippendorff's α with the ordinal "
                "metric over every annotator but 'self': a reading one step off counts as less "
                "of a disagreement than one five steps off. 95% intervals: percentile "
                f"bootstrap over {plural(report.unit)} ({report.n_boot} resamples, seed "
                f"{report.seed}); one {report.unit} alone, or {plural(report.unit)} whose every "
                "resample gives one value, give none. "
                "persons: those both (for α, at least two) put on the scale; cannot_identify "
                f"is left out of the coefficients ({unread or 'none given'})."
            ),
            terminal_columns={
                "measure": "measure",
                "annotators": "annotators",
                "persons": "n",
                "value": "value",
                "95% CI": "95% CI",
            },
            interval_name=interval_name(
                [p.kappa for p in report.pairwise] + ([report.alpha] if report.alpha else []),
                report.unit,
                report.n_boot,
            ),
            no_interval=UNDEFINED_AGREEMENT,
        )  # fmt: skip
    ]

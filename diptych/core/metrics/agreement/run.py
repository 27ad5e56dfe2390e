"""Who agrees with whom among a run's annotators.

Every annotator is scored against every other (Cohen's κ), the people who labelled against each
other (Fleiss' κ, PST Table 1), all annotators together (Krippendorff's α), and each automatic
annotator against the human majority (PST Table 12's comparison). ``cannot_identify`` is a
category of its own here, since an annotator who abstains where others do not is disagreeing,
and it is counted.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from diptych.core.labels import (
    CANNOT_IDENTIFY,
    TONE,
    SubjectLabel,
    annotator_kind,
    canonical_label,
    majority,
)
from diptych.core.metrics.agreement.coefficients import (
    category_counts,
    cohen_kappa_estimate,
    fleiss_kappa_estimate,
    krippendorff_alpha_estimate,
    ordered_categories,
    over_units,
)
from diptych.core.metrics.agreement.results import (
    ALL,
    AnnotatorAgreement,
    AnnotatorSummary,
    GroupAgreement,
    LabelledSubject,
    PairAgreement,
    ReferenceAgreement,
)
from diptych.core.metrics.agreement.tables import agreement_report_tables
from diptych.core.metrics.agreement.tone import tone_agreement, tone_agreement_tables
from diptych.core.metrics.correction import ErrorCounts
from diptych.core.metrics.sts import GENDERS
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_N_BOOT

if TYPE_CHECKING:
    from diptych.core.probe import Table
    from diptych.core.runview import RunView

#: Resamples of every agreement interval of a run, and the seed they start from: `diptych
#: agreement`, the report's tables, the probe's analysis and Run detail all read
#: :func:`run_agreement` with these, so that each prints one and the same interval.
AGREEMENT_N_BOOT = DEFAULT_N_BOOT
AGREEMENT_SEED = 0


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
    unit: str,
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
        kappa = fleiss_kappa_estimate(
            counts, clusters=clusters, n_boot=n_boot, seed=stream, unit=unit
        )
    else:
        kappa = krippendorff_alpha_estimate(
            counts, clusters=clusters, n_boot=n_boot, seed=stream, unit=unit
        )
    kappa = over_units(kappa, clusters, unit)
    return GroupAgreement(stratum, list(raters), len(kept), (int(per.min()), int(per.max())), kappa)


def _against_majority(
    subjects: Sequence[LabelledSubject],
    annotator: str,
    humans: Sequence[str],
    categories: Sequence[str],
    stratum: str,
    n_boot: int,
    seed: int,
    unit: str,
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
        unit=unit,
    )
    kappa = over_units(kappa, (s.cluster for s, _, _ in both), unit)
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
    unit: str,
    n_boot: int = AGREEMENT_N_BOOT,
    seed: int = AGREEMENT_SEED,
) -> AnnotatorAgreement:
    """Agreement among the annotators of ``subjects`` (labels already canonical, see
    :func:`canonical_label`); see the module doc. Intervals resample clusters, each one
    ``unit`` (the probe's trial, :attr:`Probe.trial_unit`: an image, a draw), which the
    caller names: a text run's agreement resamples draws, an image run's images."""
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
    categories = [str(c) for c in ordered_categories(used)]
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
                unit=unit,
            )
            kappa = over_units(kappa, (s.cluster for s in both), unit)
            observed = sum(s.labels[a] == s.labels[b] for s in both) / len(both)
            pairwise.append(PairAgreement(a, b, len(both), observed, kappa))

    fleiss = [
        g
        for stratum in strata
        if len(humans) >= 2
        and (
            g := _group(within(stratum), humans, categories, stratum, "fleiss", n_boot, seed, unit)
        )
    ]
    # "self" is the model's own answer about what it drew, not a reading of the image.
    readers = [a for a in names if annotator_kind(a) != "self"]
    alpha_all = (
        _group(subjects, readers, categories, ALL, "krippendorff", n_boot, seed, unit)
        if len(readers) >= 2
        else None
    )
    alpha_humans = (
        _group(subjects, humans, categories, ALL, "krippendorff", n_boot, seed, unit)
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
                within(stratum), annotator, humans, categories, stratum, n_boot, seed, unit
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
        unit=unit,
    )


def labelled_subjects(labels: Iterable[SubjectLabel]) -> list[LabelledSubject]:
    """One :class:`LabelledSubject` per labelled person, every annotator's label made canonical.

    The cluster is the person's image or draw (the trial's ``image``, per model), or its trial
    where none is recorded: a probe that asks about each person of a draw in a trial of its own
    still drew the two together. The stratum is the trial's ``aspect`` and ``setting`` where the
    probe records them (the pst probe does), so agreement is reported in the slices of PST
    Table 1.
    """
    by_subject: dict[int, dict[str, str]] = {}
    where: dict[int, tuple[Hashable, str | None]] = {}
    for lab in labels:
        by_subject.setdefault(lab.subject_id, {})[lab.annotator] = canonical_label(lab.label)
        parts = [lab.trial_meta.get("aspect"), lab.trial_meta.get("setting")]
        stratum = "/".join(str(p) for p in parts if p) or None
        image = lab.trial_meta.get("image")
        cluster = lab.trial_idx if image is None else (lab.model_id, str(image))
        where[lab.subject_id] = (cluster, stratum)
    return [
        LabelledSubject(sid, where[sid][0], where[sid][1], by_annotator)
        for sid, by_annotator in by_subject.items()
    ]


def run_agreement(
    run: RunView, *, unit: str, n_boot: int = AGREEMENT_N_BOOT, seed: int = AGREEMENT_SEED
) -> AnnotatorAgreement:
    """:func:`annotator_agreement` of the labels stored for ``run``, with the ordinal agreement
    of its tone labels; ``unit``: what one of its probe's trials is (an image, a draw). Every
    page of a run's agreement reads this, with :data:`AGREEMENT_N_BOOT` and
    :data:`AGREEMENT_SEED` unless a user asks `diptych agreement` for others."""
    report = annotator_agreement(
        labelled_subjects(run.labels()), unit=unit, n_boot=n_boot, seed=seed
    )
    tone = tone_agreement(run.labels(dimension=TONE), unit=unit, n_boot=n_boot, seed=seed)
    return replace(report, tone=tone)


def agreement_tables(
    run: RunView, *, unit: str, n_boot: int = AGREEMENT_N_BOOT, seed: int = AGREEMENT_SEED
) -> list[Table]:
    """The agreement tables of a run's report (the tone coefficients' too, when two annotators
    or more gave tones); none when the run has no labels. ``unit``: what one of its probe's
    trials is (an image, a draw), which the intervals resample and the tables name."""
    report = run_agreement(run, unit=unit, n_boot=n_boot, seed=seed)
    if report.subjects:
        return agreement_report_tables(report)
    return tone_agreement_tables(report.tone) if report.tone is not None else []

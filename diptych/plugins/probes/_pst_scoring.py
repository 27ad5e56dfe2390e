"""Scoring helpers shared by the two Paired Stereotype Test probes, ``pst`` and ``pst-text``.

Both store a trial per generated image (or scene) with ``meta.setting`` and ``meta.image``, and a
subject per person with ``identity`` and ``stereotype`` in its meta; both score persons with the
STS of :mod:`diptych.core.metrics.sts`. What they share beyond that: turning a stored label into
an STS row, the paired − single gap with its interval, and how an estimate reads in a table.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable
from typing import Any

from diptych.core.labels import SubjectLabel
from diptych.core.metrics.intervals import STS_DIFFERENCE_RANGE, percentile_number
from diptych.core.metrics.stats import (
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOT,
    ClusterMean,
    Estimate,
)
from diptych.core.metrics.sts import (
    CANNOT_IDENTIFY,
    LabelRow,
    MicroSTS,
    Setting,
    reduce_majority,
    stereo,
)
from diptych.core.report.formatting import bounds


def sts_row(
    stored: SubjectLabel,
    *,
    label: str | None = None,
    annotator: str | None = None,
    run: int | None = None,
) -> LabelRow:
    """The STS row of a subject's label (:meth:`LabelRow.from_subject_label`)."""
    return LabelRow.from_subject_label(stored, label=label, annotator=annotator, run=run)


def setting_gap(
    rows: Iterable[LabelRow],
    *,
    seed: int,
    n_boot: int = DEFAULT_N_BOOT,
    confidence: float = DEFAULT_CONFIDENCE,
    stream: str = "",
) -> dict[str, Any] | None:
    """Paired − single STS (the paper's gap, Tables 2, 3 and 4) with a bootstrap interval.

    The paired and the single images are different images, so each setting is resampled on its
    own and the differences of the replicates are draws of the gap. Several annotators' labels
    of one person are reduced by majority first, as the STS itself does. ``stream`` names the
    slice (e.g. a stereotype group) so that each slice gets its own random numbers; None when a
    setting has no scored person.
    """
    import numpy as np

    persons = [p for p in reduce_majority(rows) if p.label != CANNOT_IDENTIFY]
    means: dict[str, ClusterMean] = {}
    for setting in ("paired", "single"):
        scored = [p for p in persons if p.setting == setting]
        if not scored:
            return None
        # Images numbered in order of appearance: stable across processes, unlike hash().
        images: dict[tuple[int | None, str], int] = {}
        means[setting] = ClusterMean.from_observations(
            [stereo(p.label, p.stereotype) for p in scored],
            [images.setdefault(p.image_key, len(images)) for p in scored],
            scale=100.0,
        )
    key = [seed] if not stream else [seed, zlib.crc32(stream.encode("utf-8"))]
    paired = means["paired"].replicates(n_boot=n_boot, rng=np.random.default_rng([*key, 1]))
    single = means["single"].replicates(n_boot=n_boot, rng=np.random.default_rng([*key, 2]))
    # The number keeps its replicates: a gate makes the same percentile interval at its level.
    return percentile_number(
        means["paired"].value - means["single"].value,
        paired - single,
        confidence,
        n=means["paired"].n + means["single"].n,
        bounds=STS_DIFFERENCE_RANGE,
        units={"image": means["paired"].n_clusters + means["single"].n_clusters},
        population="these identities (images resampled)",
    )


def interval_text(ci: tuple[Any, Any] | None) -> str:
    """An interval as a table shows it; one decimal is the precision the ±100 scale needs."""
    if ci is None or not all(isinstance(x, (int, float)) and math.isfinite(x) for x in ci):
        # No interval: too few units vary (a JSON copy spells infinities as strings).
        return "—"
    return bounds(ci[0], ci[1])


def estimate_cells(estimate: Estimate | dict[str, Any] | None) -> list[Any]:
    """``[value, "[low, high]"]`` for a table row; ``[None, "—"]`` when there is no estimate."""
    if estimate is None:
        return [None, "—"]
    if isinstance(estimate, Estimate):
        return [estimate.value, interval_text((estimate.ci_low, estimate.ci_high))]
    return [estimate["value"], interval_text((estimate["ci_low"], estimate["ci_high"]))]


def pct_feminine_ci(m: MicroSTS, setting: Setting) -> tuple[float, float] | None:
    """%F's interval from the micro STS's: among scored persons %F = (100 ± STS) / 2 (+ for a
    feminine-stereotyped identity, − for a masculine one), a monotone map of the same
    replicates."""
    ci = m.paired_ci if setting == "paired" else m.single_ci
    if ci is None:
        return None
    low, high = ci
    if m.stereotype == "feminine":
        return ((100 + low) / 2, (100 + high) / 2)
    return ((100 - high) / 2, (100 - low) / 2)


def table_14_order(m: MicroSTS) -> tuple[bool, float, str]:
    """The PST paper's Table 14 order: ascending share of feminine figures in the paired setting;
    identities never scored paired last, ties by name."""
    pct = m.pct_feminine_paired
    return (pct is None, pct if pct is not None else 0.0, m.identity)

"""Scoring helpers shared by the two Paired Stereotype Test probes, ``pst`` and ``pst-text``.

Both store a trial per generated image (or scene) with ``meta.setting`` and ``meta.image``, and a
subject per person with ``identity`` and ``stereotype`` in its meta; both score persons with the
STS of :mod:`diptych.core.metrics.sts`. What they share beyond that: turning a stored label into
an STS row, the paired − single gap with its interval, and how an estimate reads in a table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from diptych.core.labels import SubjectLabel
from diptych.core.metrics.sts import (
    CANNOT_IDENTIFY,
    LabelRow,
    MicroSTS,
    Setting,
    reduce_majority,
    stereo,
)
from diptych.core.metrics.uncertainty.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOT,
    ClusterMean,
    Estimate,
)
from diptych.core.metrics.uncertainty.cluster_interval import (
    cluster_mean_inference,
    difference_interval,
    interval_of,
)
from diptych.core.metrics.uncertainty.intervals import STS_DIFFERENCE_RANGE, STS_RANGE
from diptych.core.metrics.uncertainty.resampling import Inference
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
    unit: str = "image",
) -> dict[str, Any] | None:
    """Paired − single STS (the paper's gap, Tables 2, 3 and 4) with its interval.

    The paired and the single images are different images, so each setting has its interval
    over its own images and the gap's combines the two
    (:func:`~diptych.core.metrics.uncertainty.cluster_interval.difference_interval`): never of zero
    width, even where both settings sit at +100. Several annotators' labels of one person are
    reduced by majority first, as the STS itself does. None when a setting has no scored person.
    ``seed``, ``n_boot`` and ``stream`` are kept for callers; the interval is exact. ``unit``
    names an image in the probe's words (pst-text's draw), in the figure's units and population.
    """
    del seed, n_boot, stream
    persons = [p for p in reduce_majority(rows) if p.label != CANNOT_IDENTIFY]
    found: dict[str, Inference] = {}
    n_images = 0
    for setting in ("paired", "single"):
        scored = [p for p in persons if p.setting == setting]
        if not scored:
            return None
        # Images numbered in order of appearance: stable across processes, unlike hash().
        images: dict[tuple[int | None, str], int] = {}
        mean = ClusterMean.from_observations(
            [stereo(p.label, p.stereotype) for p in scored],
            [images.setdefault(p.image_key, len(images)) for p in scored],
            scale=100.0,
        )
        found[setting] = cluster_mean_inference(
            mean, bounds=STS_RANGE, confidence=confidence, unit=unit
        )
        n_images += mean.n_clusters
    paired, single = found["paired"], found["single"]
    ci = difference_interval(
        (paired.value, interval_of(paired)), (single.value, interval_of(single))
    )
    reason = None
    if ci is None:
        few = "paired" if not paired.has_interval else "single"
        reason = f"one {few} {unit} only: no interval"
    low, high = ci if ci is not None else (-math.inf, math.inf)
    # No se: a gate reads the printed interval, each side scaled to its level.
    return {
        "value": paired.value - single.value,
        "ci_low": low,
        "ci_high": high,
        "n": paired.n + single.n,
        "confidence": confidence,
        "interval_method": "difference of the settings' intervals",
        "range": list(STS_DIFFERENCE_RANGE),
        "units": {unit: n_images},
        "population": f"these identities ({unit}s resampled)",
        "reason": reason,
    }


def identity_gap(over_identities: Mapping[str, Inference]) -> dict[str, Any] | None:
    """Paired − single STS with its interval over both identity lists, from each setting's STS
    over identities (:data:`~diptych.core.metrics.sts.STSResult.over_identities`). The two
    settings rest on the same identities, whose effects move both the same way, so combining
    their intervals as if apart errs wide, never narrow. Its units are the identities of each
    list both settings have. None when a setting has no such figure."""
    paired, single = over_identities.get("paired"), over_identities.get("single")
    if paired is None or single is None:
        return None
    ci = difference_interval(
        (paired.value, interval_of(paired)), (single.value, interval_of(single))
    )
    low, high = ci if ci is not None else (-math.inf, math.inf)
    units = {k: min(n, single.units.get(k, n)) for k, n in paired.units.items()}
    return {
        "value": paired.value - single.value,
        "ci_low": low,
        "ci_high": high,
        "n": paired.n + single.n,
        "confidence": paired.confidence,
        "interval_method": "difference of the settings' intervals",
        "range": list(STS_DIFFERENCE_RANGE),
        "units": units,
        "population": paired.population,
        "reason": None if ci is not None else (paired.reason or single.reason),
    }


def gap_of_sides(
    gap: Mapping[str, Any], sides: Iterable[Mapping[str, Any] | None]
) -> dict[str, Any]:
    """``gap`` as its sides (each setting's figure as printed) allow: where one has no interval
    (one masculine identity only), neither has the difference, with that side's reason. An
    interval of the gap over other units (draws) would resample what its side cannot."""
    reason = next((str(s["reason"]) for s in sides if s is not None and s.get("reason")), None)
    if reason is None:
        return dict(gap)
    kept = {k: v for k, v in gap.items() if k not in ("se", "df", "scenes_only", "p_value")}
    return {**kept, "ci_low": -math.inf, "ci_high": math.inf, "reason": reason}


def resampled_words(headline: Inference) -> str:
    """What the headline STS's interval resamples, in words: both identity lists, or — where
    the crossed interval fell to its floor — the scenes alone, and why."""
    if headline.floor:
        return headline.floor.removeprefix("resampling ")
    return "masculine and feminine identities"


def floor_sentences(numbers: Mapping[str, Mapping[str, Any] | None]) -> str:
    """A sentence for each of ``numbers`` (name → figure) whose interval fell to its floor,
    saying what it resampled instead of both identity lists; "" where none did. A text that
    names the lists for a group of figures adds these, so that it speaks for each as it is."""
    return "".join(
        f" The interval of {name} fell to its floor instead, {number['floor']}."
        for name, number in numbers.items()
        if number and isinstance(number.get("floor"), str) and number["floor"]
    )


def over_lists_words(numbers: Mapping[str, Mapping[str, Any] | None]) -> str:
    """ "both identity lists" for a group of figures none of whose intervals fell to its floor;
    where one did, the condition under which the lists were resampled, which
    :func:`floor_sentences` then says was not met for it."""
    if floor_sentences(numbers):
        return "both identity lists where the identities varied more than their pairings did"
    return "both identity lists"


def interval_text(ci: tuple[Any, Any] | None) -> str:
    """An interval as a table shows it; one decimal is the precision the ±100 scale needs."""
    if ci is None or not all(isinstance(x, (int, float)) and math.isfinite(x) for x in ci):
        # No interval: too few units vary (a JSON copy spells infinities as strings).
        return "—"
    return bounds(ci[0], ci[1])


#: The columns of a micro STS table (one row per identity) a terminal keeps, with the short names
#: it heads them with: the same in both probes' tables, so that a reader meets one narrow table.
MICRO_TERMINAL_COLUMNS: Mapping[str, str] = {
    "identity": "identity",
    "STS single": "single",
    "STS paired": "paired",
    "paired 95% CI": "paired 95% CI",
    "%F paired": "%F",
}


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

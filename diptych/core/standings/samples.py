"""What a probe hands the standings: one model's observations of one figure, each with the
units it belongs to and the cell (the scene) it was asked in (:class:`FigureSample`), so that
figures of several runs can be set side by side and their differences resampled by the
figure's own units. :func:`sts_samples` makes them for the Stereotype Test Score.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field

from diptych.core.metrics.compare import CROSSED, crossed_units, scenes_of
from diptych.core.metrics.sts import CANNOT_IDENTIFY, SETTINGS, LabelRow, reduce_majority, stereo
from diptych.core.metrics.uncertainty.intervals import STS_RANGE, Bounds
from diptych.core.resampled_units import resampled_units


@dataclass(frozen=True)
class FigureSample:
    """One model's observations of one figure in one run.

    ``values`` are the observations (the figure is ``scale`` × their mean); ``units`` maps each
    kind of unit the figure's interval resamples to the unit of every observation (parallel to
    ``values``); ``cells`` names the cell of every observation — what two runs of the same plan
    both asked (a PST scene, both orders and every sample merged) — so that two models' figures
    are compared per cell where their plans match. ``design`` says what must be equal for two
    figures to be ranked together (the probe, its version and the parameters that change what
    is asked); ``design_label`` says it in words. ``unit_words`` names the units for a reader.
    """

    model: str
    figure: str
    design: str
    design_label: str
    values: list[float]
    units: dict[str, list[Hashable | None]]
    cells: list[Hashable]
    scale: float = 100.0
    bounds: Bounds = STS_RANGE
    unit_words: str = resampled_units(dict.fromkeys(CROSSED), "crossed")
    #: The units of a cell (by the cell), for a difference matched per cell.
    cell_units: dict[Hashable, Mapping[str, Hashable | None]] = field(default_factory=dict)
    #: The units' noun, as an interval is named ("95% interval over identities").
    unit_noun: str = "identities"
    #: What of the run the figure leaves out and why, for a reader; "" when nothing.
    note: str = ""

    def unit_of(self, cell: Hashable) -> Mapping[str, Hashable | None]:
        return self.cell_units[cell]


def sts_samples(
    rows: Iterable[LabelRow],
    *,
    model: str,
    prefix: str,
    design: str,
    design_label: str,
    qualifier: str = "",
    scenes: Mapping[str, tuple[str | None, str | None]] | None = None,
) -> list[FigureSample]:
    """The overall STS of each setting (``{prefix}STS paired``, ``{prefix}STS single``) of one
    model's persons ``rows``: several annotators' labels of a person reduced by majority,
    cannot_identify left out, every person placed in its unordered scene (its masculine and
    feminine identity; one of them alone in the single setting), as the STS's interval and
    two runs' comparison resample them (:mod:`diptych.core.metrics.compare`). ``qualifier``
    names how the labels were had where the run's headline is another figure (" (drawn
    labels)" of a likelihood run, whose headline is the STS expected from P(he), P(she)).

    ``scenes`` names the scene of a paired image (by its image) as the probe planned it, both
    identities: a run stopped between the two people of a scene (a sequential run decided at
    an early look) has labelled one of them only, and its scene is still the pair it asked
    about. A paired person whose scene names one identity even so is left out of the figure
    (its interval crosses both lists), and the figure's ``note`` says how many."""
    persons = reduce_majority(rows)
    if not persons:
        return []
    scene = scenes_of(persons)
    for p in persons:
        planned = (scenes or {}).get(p.image)
        if planned is not None and None in scene[p.image_key]:
            scene[p.image_key] = planned
    out: list[FigureSample] = []
    for setting in SETTINGS:
        scored = [p for p in persons if p.setting == setting and p.label != CANNOT_IDENTIFY]
        note = ""
        if setting == "paired":
            whole = [p for p in scored if None not in scene[p.image_key]]
            if len(whole) < len(scored):
                note = (
                    f"{len(scored) - len(whole)} of {len(scored)} labelled people left out: "
                    "the other person of their paired scene is unlabelled, so the scene names "
                    "one identity list only"
                )
            scored = whole
        if not scored:
            continue
        cells: list[Hashable] = [scene[p.image_key] for p in scored]
        units: dict[str, list[Hashable | None]] = {name: [] for name in CROSSED}
        for cell in cells:
            for name, unit in crossed_units(cell).items():
                units[name].append(unit)
        out.append(
            FigureSample(
                model=model,
                figure=f"{prefix}STS {setting}{qualifier}",
                design=f"{design}/{setting}",
                design_label=design_label,
                values=[float(stereo(p.label, p.stereotype)) for p in scored],
                units=units,
                cells=cells,
                cell_units={cell: crossed_units(cell) for cell in set(cells)},
                unit_words=sts_unit_words(setting),
                note=note,
            )
        )
    return out


def sts_unit_words(setting: str) -> str:
    """What an STS of ``setting`` resamples, for a table of several runs (no counts): the two
    lists crossed in scenes (paired) or as separate lists (single)."""
    design = "crossed" if setting == "paired" else "stratified"
    return resampled_units(dict.fromkeys(CROSSED), design)


def design_of(
    probe: str, version: str, params: Mapping[str, object], *, apart_from: Iterable[str] = ()
) -> tuple[str, str]:
    """A run's design as a key and in words: its probe, the probe's version and its
    parameters (those in ``apart_from`` left out: they choose which figures a run has, not
    how one is asked)."""
    import json

    kept = {k: v for k, v in sorted(params.items()) if k not in set(apart_from)}
    key = json.dumps([probe, version, kept], sort_keys=True, default=str)
    said = {k: _said(v) for k, v in kept.items() if v is not False}
    shown = ", ".join(f"{k}={v}" for k, v in said.items() if v not in ("", "None", "{}"))
    return key, f"{probe} v{version}" + (f" ({shown})" if shown else "")


def _said(value: object) -> str:
    # A long list (an identity list) is said by its length: the design's words stay one line.
    if isinstance(value, list | tuple) and len(value) > 3:
        return f"{len(value)} listed"
    return ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)

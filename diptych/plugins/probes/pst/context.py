"""What every part of a ``pst`` run's analysis shares: the result being built, its bootstrap
settings, and how a group of persons is named in titles, numbers and figure files."""

from __future__ import annotations

import re
from dataclasses import dataclass

from diptych.core.metrics.tone import MIN_PERSONS
from diptych.core.probe import ProbeResult
from diptych.plugins.probes.pst.collect import GroupKey, PSTLabels

# Table 3 and Table 4 name the stereotype groups of each aspect, in their order.
GROUP_NAMES = {
    "occupation": {"feminine": "female-stereotyped", "masculine": "male-stereotyped"},
    "power": {"feminine": "powerless (low power)", "masculine": "powerful (high power)"},
}


def several(labels: PSTLabels) -> tuple[bool, bool]:
    """Whether the run has several models, and several (or any) interventions."""
    models = {k.model_id for k in labels.groups}
    interventions = {k.intervention for k in labels.groups}
    return len(models) > 1, len(interventions) > 1 or None not in interventions


def group_prefix(key: GroupKey, several_models: bool) -> str:
    """How titles and numbers name a group: "[model · ]aspect[ · intervention X]: "."""
    parts = [key.model_id] if several_models else []
    parts.append(key.aspect)
    if key.intervention:
        parts.append(f"intervention {key.intervention}")
    return " · ".join(parts) + ": "


def group_slug(key: GroupKey, several_models: bool, several_interventions: bool) -> str:
    """What a figure file name adds for a group when the run has several models or prompts."""
    parts = ([key.model_id] if several_models else []) + (
        [key.intervention or "none"] if several_interventions else []
    )
    return "".join("-" + re.sub(r"[^A-Za-z0-9._]+", "-", p).strip("-") for p in parts)


@dataclass
class AnalysisContext:
    """The result being built and what every step of the analysis needs."""

    result: ProbeResult
    seed: int
    n_boot: int
    bls: dict[str, float] | None
    several_models: bool
    several_interventions: bool
    #: The distribution a tone imbalance is measured against (``-p tone_reference=``).
    tone_reference: str = "uniform"
    #: The fewest persons a gender × tone cell needs for its figure (``-p min_cell=``).
    min_cell: int = MIN_PERSONS
    #: Whether the paper's figures are built (``RunView.figures``): the numbers do not depend
    #: on it.
    figures: bool = True

"""The STS of a ``pst`` run per label source, beside the figure the chosen policy gives.

The mixed policy fills persons without human labels with an automatic annotator's label, so
one STS can mix two classifiers with different error rates. This table scores the persons each
source labelled by that source alone — the human majority, and each automatic annotator — so a
reader sees whether the mixed figure leans on one of them. Each automatic source's figure
corrected for its errors (Rogan–Gladen) is in the error-corrected table
(:mod:`diptych.plugins.probes.pst.corrected`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from diptych.core.labels import HUMAN_MAJORITY, LabelPolicy
from diptych.core.metrics.sts import (
    CANNOT_IDENTIFY,
    SETTINGS,
    LabelRow,
    STSResult,
    stereotype_test_score,
)
from diptych.core.probe import Table
from diptych.core.runview import RunView
from diptych.plugins.probes._paired_stereotype_test.scoring import estimate_cells, resampled_words
from diptych.plugins.probes.pst.collect import PSTLabels, rows_by_source
from diptych.plugins.probes.pst.context import AnalysisContext, group_prefix


def headline_number(sts: STSResult, setting: str) -> dict[str, Any] | None:
    """The STS of ``setting`` as a figure: it speaks for identities like these (both lists
    resampled), with the interval over images, for these identities only, beside it; the
    latter alone where the identities cannot be resampled. None where nothing was scored."""
    est = getattr(sts.overall, setting)
    if est is None:
        return None
    images_only = {**est.to_dict(), "resampled": "images (these identities only)"}
    headline = (sts.over_identities or {}).get(setting)
    if headline is None:
        return images_only
    return {
        **headline.to_dict(),
        "resampled": resampled_words(headline),
        "images_only": images_only,
    }


def _with_scenes(rows: list[LabelRow], policy: list[LabelRow]) -> list[LabelRow]:
    """A source's rows with every other person the policy scored as cannot_identify: scored
    alike (cannot_identify counts for neither side), and each scene still names both its
    identities, so the interval over identities is made as the policy's is. Without them a
    source that labelled one person of a pair would lose the scene's other identity, and its
    figure would fall back to the interval over images: the same persons, the same value, and
    another interval."""
    labelled = {(r.image, r.run, r.position) for r in rows}
    others = [
        replace(r, label=CANNOT_IDENTIFY, annotator=rows[0].annotator)
        for r in policy
        if (r.image, r.run, r.position) not in labelled
    ]
    return [*rows, *others]


def add_sts_by_source(
    ctx: AnalysisContext, run: RunView, labels: PSTLabels, policy: LabelPolicy
) -> None:
    """The per-source table and numbers (``… STS paired, labels by <source>``)."""
    by_source = rows_by_source(run)
    table = Table(
        "STS by label source (beside the chosen policy's)",
        ["group", "labels", "setting", "STS", "95% CI", "n"],
        [],
        note=(
            f"policy: {policy}. Each source scores only the persons it labelled: the human "
            "majority (people), or one automatic annotator's own labels. A policy figure far "
            "from a source's own shows that source's weight in the mix. Each 95% interval "
            "resamples the images the source labelled (the persons of one image together)."
        ),
    )
    data: list[dict[str, Any]] = []
    for key, group in labels.groups.items():
        if not group.rows:
            continue
        prefix = group_prefix(key, ctx.several_models)
        where = prefix.rstrip(": ") or key.model_id
        chosen = stereotype_test_score(group.rows, n_boot=ctx.n_boot, seed=ctx.seed)
        slices = [(f"policy: {policy}", chosen)]
        for source in [HUMAN_MAJORITY, *labels.automatic]:
            rows = by_source.get(source, {}).get(key)
            if rows:
                rows = _with_scenes(rows, group.rows)
                slices.append(
                    (source, stereotype_test_score(rows, n_boot=ctx.n_boot, seed=ctx.seed))
                )
        for name, sts in slices:
            for setting in SETTINGS:
                est = getattr(sts.overall, setting)
                if est is None:
                    continue
                table.rows.append([where, name, setting, *estimate_cells(est), est.n])
                data.append({"group": where, "labels": name, "setting": setting, **est.to_dict()})
                if not name.startswith("policy"):
                    # Made as the policy's figure is (over identities, its floor marked), so
                    # that a source that labelled the same persons gives the same interval.
                    ctx.result.numbers[f"{prefix}STS {setting}, labels by {name}"] = (
                        headline_number(sts, setting) or est.to_dict()
                    )
    if len({row[1] for row in table.rows}) > 1:
        ctx.result.tables.append(table)
        ctx.result.data["sts_by_label_source"] = data

"""The tables of a ``pst`` run's analysis: PST Tables 2 and 13 (overall), 3 and 4 (by
stereotype group), 14, 15 and 16 (micro STS per identity), and the images and labels behind them."""

from __future__ import annotations

from typing import Any

from diptych.core.labels import HUMAN_MAJORITY
from diptych.core.metrics.sts import (
    CANNOT_IDENTIFY,
    SETTINGS,
    STSResult,
    stereotype_test_score,
    table_14_order,
)
from diptych.core.probe import Table
from diptych.plugins.probes._paired_stereotype_test.scoring import (
    MICRO_TERMINAL_COLUMNS,
    estimate_cells,
    interval_text,
    pct_feminine_ci,
    setting_gap,
)
from diptych.plugins.probes.pst.collect import LABEL_POLICY, PSTGroup, PSTLabels
from diptych.plugins.probes.pst.context import GROUP_NAMES, AnalysisContext
from diptych.plugins.probes.pst.labor import (
    BLS_FILE,
    BLS_SOURCE,
    TABLE_14_BLS_NOTES,
    bls_pct_female,
)


def overall_table(
    ctx: AnalysisContext, group: PSTGroup, sts: STSResult, gap: dict[str, Any] | None
) -> tuple[Table, dict[str, dict[str, Any]]]:
    table = Table(
        "Overall STS (PST Tables 2 and 13)",
        ["setting", "run", "STS", "95% CI", "persons", "images"],
        [],
        note=(
            "'run' is the sampling run (Table 13's run number); 'all' pools them. Persons "
            "exclude cannot_identify. 'over identities': the interval resamples both identity "
            "lists (identities like these); the others resample images (these identities)."
        ),
    )
    by_run: dict[str, dict[str, Any]] = {}
    for setting in SETTINGS:
        rows = [r for r in group.rows if r.setting == setting and r.label != CANNOT_IDENTIFY]
        est = getattr(sts.overall, setting)
        if est is None:
            continue
        images = len({r.image_key for r in rows})
        headline = (sts.over_identities or {}).get(setting)
        if headline is not None:
            table.rows.append(
                [
                    f"{setting}, over identities",
                    "all",
                    *estimate_cells(headline.to_dict()),
                    est.n,
                    images,
                ]  # fmt: skip
            )
        table.rows.append([setting, "all", *estimate_cells(est), est.n, images])
        runs = sorted({r.run for r in rows if r.run is not None})
        if len(runs) < 2:
            continue
        for number in runs:
            subset = [r for r in rows if r.run == number]
            one = getattr(
                stereotype_test_score(subset, n_boot=ctx.n_boot, seed=ctx.seed).overall, setting
            )
            by_run[f"{setting}/{number}"] = one.to_dict()
            table.rows.append(
                [setting, number, *estimate_cells(one), one.n, len({r.image_key for r in subset})]
            )
    if gap is not None:
        table.rows.append(["paired − single", "all", *estimate_cells(gap), gap["n"], None])
    return table, by_run


def stereotype_table(
    ctx: AnalysisContext, group: PSTGroup, sts: STSResult, gap: dict[str, Any] | None
) -> Table:
    aspect = group.key.aspect
    names = GROUP_NAMES.get(aspect, GROUP_NAMES["occupation"])
    table = Table(
        "STS by power level (PST Table 4)"
        if aspect == "power"
        else "STS by stereotyped gender of the occupation (PST Table 3)",
        [
            "group",
            "STS single",
            "single 95% CI",
            "STS paired",
            "paired 95% CI",
            "gap",
            "gap 95% CI",
        ],
        [["overall", *estimate_cells(sts.overall.single), *estimate_cells(sts.overall.paired)]],
        note="gap = paired − single; its interval resamples the two settings' images apart.",
    )
    table.rows[0] += estimate_cells(gap)
    for gender in ("feminine", "masculine"):
        scores = sts.by_stereotype[gender]
        rows = [r for r in group.rows if r.stereotype == gender]
        group_gap = setting_gap(
            rows, seed=ctx.seed, n_boot=ctx.n_boot, stream=f"{aspect}/gap/{gender}"
        )
        table.rows.append(
            [
                names[gender],
                *estimate_cells(scores.single),
                *estimate_cells(scores.paired),
                *estimate_cells(group_gap),
            ]
        )
    return table


def micro_table(ctx: AnalysisContext, group: PSTGroup, sts: STSResult) -> Table:
    if group.key.aspect == "power":
        return _power_table(group, sts)
    bls = ctx.bls
    rows = []
    for m in sorted(sts.micro.values(), key=table_14_order):
        pct_bls = bls_pct_female(group.occupation_of.get(m.identity, m.identity), bls or {})
        rows.append(
            [
                m.identity,
                m.stereotype,
                m.single,
                interval_text(m.single_ci),
                m.pct_feminine_single,
                m.paired,
                interval_text(m.paired_ci),
                m.pct_feminine_paired,
                interval_text(pct_feminine_ci(m, "paired")),
                pct_bls,
                TABLE_14_BLS_NOTES.get(m.identity, ""),
                m.gap,
                interval_text(m.gap_ci),
                m.n_single,
                m.n_paired,
            ]
        )
    note = (
        "Sorted by %F paired, as Table 14. The micro STS's 95% intervals resample each "
        "identity's images (the persons of one image together). %F = share of feminine labels "
        "among the scored persons; its interval follows from the micro STS's. gap = paired − "
        "single (Table 15). "
    )
    note += BLS_SOURCE if bls is not None else f"%F BLS: {BLS_FILE} is missing; reinstall diptych."
    return Table(
        "Micro STS per occupation (PST Tables 14 and 15)",
        [
            "identity",
            "stereotype",
            "STS single",
            "single 95% CI",
            "%F single",
            "STS paired",
            "paired 95% CI",
            "%F paired",
            "%F paired 95% CI",
            "%F BLS",
            "BLS note",
            "gap",
            "gap 95% CI",
            "n single",
            "n paired",
        ],
        rows,
        note=note,
        terminal_columns={**MICRO_TERMINAL_COLUMNS, "%F BLS": "%F BLS", "gap": "gap"},
    )


def _power_table(group: PSTGroup, sts: STSResult) -> Table:
    rows = [
        [
            m.identity,
            group.occupation_of.get(m.identity, m.identity),
            group.power_of.get(m.identity),
            m.single,
            interval_text(m.single_ci),
            m.paired,
            interval_text(m.paired_ci),
            m.gap,
            interval_text(m.gap_ci),
            m.n_single,
            m.n_paired,
        ]
        for m in sorted(sts.micro.values(), key=lambda m: m.identity)
    ]
    return Table(
        "Micro STS per occupation and power level (PST Table 16)",
        [
            "identity",
            "occupation",
            "power",
            "STS single",
            "single 95% CI",
            "STS paired",
            "paired 95% CI",
            "gap",
            "gap 95% CI",
            "n single",
            "n paired",
        ],
        rows,
        note=(
            "'<occupation> power' is the occupation with a high-power role (stereotyped "
            "masculine), '<occupation> minor' with a low-power one (feminine); alphabetical, as "
            "Table 16. gap = paired − single."
        ),
        terminal_columns={
            "identity": "identity",
            "STS single": "single",
            "STS paired": "paired",
            "paired 95% CI": "paired 95% CI",
            "gap": "gap",
            "gap 95% CI": "gap 95% CI",
        },
    )


def coverage_table(labels: PSTLabels, several_models: bool) -> Table:
    table = Table(
        "Images and labels",
        [
            "model",
            "aspect",
            "setting",
            "images",
            "done",
            "refused",
            "failed",
            "pending",
            "persons labelled",
            "by human majority",
            "by an annotator",
            "unlabelled",
            "cannot_identify",
        ],
        [],
        note=LABEL_POLICY,
        terminal_columns={
            **({"model": "model"} if several_models else {}),
            "aspect": "aspect",
            "setting": "setting",
            "done": "done",
            "refused": "refused",
            "persons labelled": "labelled",
            "unlabelled": "unlabelled",
        },
    )
    for key, group in labels.groups.items():
        for setting in SETTINGS:
            counts = {s: group.images[(setting, s)] for s in ("done", "refused", "failed")}
            total = sum(n for (st, _), n in group.images.items() if st == setting)
            if not total:
                continue
            rows = [r for r in group.rows if r.setting == setting]
            human = sum(r.annotator == HUMAN_MAJORITY for r in rows)
            aspect = key.aspect + (f" ({key.intervention})" if key.intervention else "")
            table.rows.append(
                [
                    key.model_id,
                    aspect,
                    setting,
                    total,
                    counts["done"],
                    counts["refused"],
                    counts["failed"],
                    total - sum(counts.values()),
                    len(rows),
                    human,
                    len(rows) - human,
                    group.unlabelled[setting],
                    sum(r.label == CANNOT_IDENTIFY for r in rows),
                ]
            )
    return table

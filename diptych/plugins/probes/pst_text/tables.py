"""The tables of a ``pst-text`` run: the expected STS per identity (likelihood mode), the
labels' STS per identity (cf. PST Tables 14 and 15) and per stereotyped gender."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from diptych.core.metrics.sts import STSResult, table_14_order
from diptych.core.metrics.uncertainty.resampling import Inference
from diptych.core.probe import Table
from diptych.core.report.formatting import why_no_interval
from diptych.plugins.probes._paired_stereotype_test.scoring import (
    MICRO_TERMINAL_COLUMNS,
    estimate_cells,
    floor_sentences,
    interval_text,
    over_lists_words,
)
from diptych.plugins.probes.pst_text.readings import PromptReading

SETTINGS = ("paired", "single")


def _pct(values: Sequence[float]) -> float | None:
    return 100 * sum(values) / len(values) if values else None


def _expected_order(
    identities: Iterable[str], inferences: Mapping[tuple[str, str], Inference]
) -> list[str]:
    """The identities as the table and its chart list them, by a figure each shows: the
    expected STS paired (single where the identity has no paired one), largest first; an
    identity with neither last; ties by name."""

    def key(identity: str) -> tuple[bool, float, str]:
        shown = [inferences.get((identity, setting)) for setting in SETTINGS]
        value = next((inf.value for inf in shown if inf is not None), None)
        return (value is None, -value if value is not None else 0.0, identity)

    return sorted(identities, key=key)


def expected_table(
    readings: Sequence[PromptReading], inferences: Mapping[tuple[str, str], Inference]
) -> Table:
    by: dict[tuple[str, str], list[PromptReading]] = defaultdict(list)
    stereotype: dict[str, str] = {}
    for r in readings:
        by[(r.identity, r.setting)].append(r)
        stereotype[r.identity] = r.stereotype
    rows = []
    missing: dict[str, set[str]] = defaultdict(set)
    for identity in _expected_order(stereotype, inferences):
        row: list[Any] = [identity, stereotype[identity]]
        for setting in SETTINGS:
            inf = inferences.get((identity, setting))
            row += [None, "—"] if inf is None else [inf.value, _ci_text(inf)]
            if inf is None or not inf.has_interval:
                why = why_no_interval(inf.reason) if inf else "no prompt in this setting"
                missing[setting].add(why or "fewer than two units vary")
        for setting in SETTINGS:
            row.append(_pct([r.p_feminine for r in by.get((identity, setting), [])]))
        masses = [r.mass for r in by.get((identity, "paired"), []) if r.mass is not None]
        row.append(_pct(masses))
        row.append(len(by.get((identity, "paired"), [])))
        rows.append(row)
    return Table(
        "Expected STS per identity (likelihood mode)",
        [
            "identity",
            "stereotype",
            "E[STS] paired",
            "paired 95% CI",
            "E[STS] single",
            "single 95% CI",
            "P(she) paired %",
            "P(she) single %",
            "raw P(he) + P(she) paired %",
            "prompts paired",
        ],
        rows,
        terminal_columns={
            "identity": "identity",
            "E[STS] paired": "paired",
            "paired 95% CI": "95% CI",
            "raw P(he) + P(she) paired %": "mass%",
        },
        note=(
            "E[STS] = mean over distinct prompts of 2·P(stereotyped pronoun) − 1, × 100, "
            "with P renormalised over the two candidates; the paired interval resamples the "
            "identity's partners, the single one its prompts (none with one prompt). "
            "P(she) is renormalised too, so P(he) is 100 minus it (as the PST paper's %F counts "
            "feminine among masculine and feminine labels). "
            "Raw P(he) + P(she) is their probability before renormalising, in percent as in the "
            "headline: the share of the model's next-token probability the comparison rests on, "
            "at most 100. "
            "Rows run from the largest E[STS] paired to the smallest (single where an identity "
            "has no paired one), ties by name."
        ),
        no_interval={
            f"{setting} 95% CI": f"{' or '.join(sorted(missing[setting]))} ({setting})"
            for setting in SETTINGS
            if missing[setting]
        },
    )


def _ci_text(inf: Inference) -> str:
    if not inf.has_interval:
        return "—"
    return interval_text((inf.ci_low, inf.ci_high))


def micro_table(sts: STSResult, partners: Mapping[str, Inference]) -> Table:
    """The labels' STS per identity. The model's own P(she) per identity is the expected
    STS table's, not repeated here: one home for each figure."""
    rows = []
    for identity, m in sorted(sts.micro.items(), key=lambda item: table_14_order(item[1])):
        over_partners = partners.get(identity)
        rows.append(
            [
                identity,
                m.stereotype,
                m.single,
                m.paired,
                m.gap,
                m.pct_feminine_single,
                m.pct_feminine_paired,
                "—" if over_partners is None else _ci_text(over_partners),
                m.n_paired,
            ]
        )
    return Table(
        "Micro STS per identity (cf. PST Tables 14 and 15)",
        [
            "identity",
            "stereotype",
            "STS single",
            "STS paired",
            "gap",
            "%F single",
            "%F paired",
            "paired 95% CI",
            "n paired",
        ],
        rows,
        terminal_columns=dict(MICRO_TERMINAL_COLUMNS),
        note=(
            "STS = mean Stereo × 100 (+100: every label matches the stereotype). %F is the share "
            "of labels that are feminine (in likelihood mode drawn from P(she), which the "
            "expected STS table gives per identity). The paired 95% CI resamples the "
            "identity's partners, each with all its draws (as the expected STS per identity "
            "does); n paired counts its persons."
        ),
    )


def stereotype_table(sts: STSResult, title: str) -> Table:
    """The STS of each stereotyped gender's persons, with the interval the headline has: over
    both identity lists (a gender's persons vary with their own identities and, paired, with
    their partners'); where the draws do not name both, none (one over the draws would pass
    for it and be too narrow), and the note says so."""
    over = sts.by_stereotype_over_identities or {}
    rows = []
    unnamed = False
    # Each interval as it was made, for the note to say what it resampled.
    made: dict[str, dict[str, Any] | None] = {}
    for gender, scores in sts.by_stereotype.items():
        row: list[Any] = [gender]
        for setting in ("single", "paired"):
            figure = over.get(gender, {}).get(setting)
            by_draws = getattr(scores, setting)
            if figure is None and by_draws is not None:
                unnamed = True
                row += [by_draws.value, "—"]
                continue
            name = f"the {gender} row's {setting} STS"
            made[name] = figure.to_dict() if figure else None
            row += estimate_cells(made[name])
        rows.append(row)
    note = (
        f"Each interval resamples {over_lists_words(made)}: a gender's persons vary with their "
        "own identities and, paired, with their partners'; the draws of one scene move with "
        "its identities." + floor_sentences(made)
    )
    if unnamed:
        note += " Where the draws do not name both identities of their scenes there is none (—)."
    return Table(
        title,
        ["stereotype", "STS single", "single 95% CI", "STS paired", "paired 95% CI"],
        rows,
        note=note,
    )

"""The PST paper's figures for a ``pst`` run, drawn from its STS results as PNG bytes.

Figure 3 (paired micro STS by occupation), 4 (%F generated vs labor statistics), 5 (single vs
paired micro STS) and 7 with 8 beside it (power levels). Each returns None when the run has
nothing to draw, so a small or partly labelled run gets the figures it can support.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from diptych.core.metrics.sts import MicroSTS, STSResult
from diptych.core.probe import Figure
from diptych.core.report.formatting import figure_text
from diptych.plugins._figures import new_figure, place_labels, png, png_later
from diptych.plugins.probes._paired_stereotype_test.scoring import pct_feminine_ci

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure as MplFigure

COLOURS = {"masculine": "#4C72B0", "feminine": "#DD8452"}
# Axis limit of a score axis: room beyond ±100 so a marker at 100 is not cut in half.
_SCORE_LIMIT = 108


def _whiskers(
    values: Sequence[float], cis: Sequence[tuple[float, float] | None]
) -> list[list[float]]:
    """matplotlib's asymmetric error bars; an interval that misses its value gets no whisker on
    that side rather than a negative one."""
    below = [max(0.0, v - ci[0]) if ci else 0.0 for v, ci in zip(values, cis, strict=True)]
    above = [max(0.0, ci[1] - v) if ci else 0.0 for v, ci in zip(values, cis, strict=True)]
    return [below, above]


def _ascending(sts: STSResult, score: Callable[[MicroSTS], float | None]) -> list[MicroSTS]:
    """The occupations that have ``score``, ascending by it (ties by name), as the paper's
    Figures 3 and 5 list them."""
    return sorted(
        (m for m in sts.micro.values() if score(m) is not None),
        key=lambda m: (score(m), m.identity),
    )


def _occupation_rows(ax: Axes, micro: Sequence[MicroSTS], xlabel: str) -> None:
    """One row per occupation, bottom up, on the micro STS scale with 0 marked."""
    ax.set_yticks(range(len(micro)), [m.identity for m in micro], fontsize=8)
    ax.set_ylim(-0.6, len(micro) - 0.4)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlim(-_SCORE_LIMIT, _SCORE_LIMIT)
    ax.set_xlabel(xlabel)


def _est(value: float | None, ci: tuple[float, float] | None) -> str:
    """A figure and its interval as a text alternative states them."""
    if value is None:
        return "none"
    text = figure_text(value)
    return text + (f" (95% interval {figure_text(ci[0])} to {figure_text(ci[1])})" if ci else "")


def _height(n: int) -> float:
    return max(2.4, 1.2 + 0.24 * n)


def _stereotype_legend(ax: Axes, present: Iterable[str]) -> None:
    from matplotlib.patches import Patch

    shown = set(present)
    handles = [
        Patch(color=COLOURS[g], label=f"{g}-stereotyped")
        for g in ("masculine", "feminine")
        if g in shown
    ]
    ax.legend(handles=handles, loc="lower right", fontsize=8)


def figure_3(sts: STSResult, suffix: str, where: str, *, table: str = "") -> Figure | None:
    micro = _ascending(sts, lambda m: m.paired)
    if not micro:
        return None
    values = [m.paired for m in micro if m.paired is not None]
    fig = new_figure(6.4, _height(len(micro)))
    ax = fig.add_subplot()
    ax.barh(
        range(len(micro)),
        values,
        xerr=_whiskers(values, [m.paired_ci for m in micro]),
        color=[COLOURS[m.stereotype] for m in micro],
        ecolor="#333333",
        capsize=2,
        height=0.7,
    )
    _occupation_rows(ax, micro, "micro STS, paired setting")
    ax.set_title(f"Micro STS under the PST by occupation ({where})", fontsize=10)
    _stereotype_legend(ax, (m.stereotype for m in micro))
    return Figure(
        f"fig3_micro_sts_paired{suffix}",
        f"Figure 3: micro STS (paired) by occupation — {where}",
        draw=png_later(fig),
        alt=f"Micro STS (paired) by occupation, {where}, ascending: "
        + "; ".join(f"{m.identity} ({m.stereotype}) {_est(m.paired, m.paired_ci)}" for m in micro)
        + ".",
        caption=(
            "Micro STS in the paired setting per occupation, ascending, as the PST paper's "
            "Figure 3; whiskers are 95% bootstrap intervals over images."
        ),
        table=table,
    )


def figure_4(sts: STSResult, bls_of: dict[str, float], suffix: str, where: str) -> Figure | None:
    """%F generated against %F in labor statistics (``bls_of``: identity -> percent)."""
    points = [
        (m, bls_of[m.identity], m.pct_feminine_paired)
        for m in sorted(sts.micro.values(), key=lambda m: m.identity)
        if m.identity in bls_of and m.pct_feminine_paired is not None
    ]
    if not points:
        return None
    fig = new_figure(6.4, 6.0)
    ax = fig.add_subplot()
    ax.plot([0, 100], [0, 100], linestyle="--", color="grey", linewidth=0.8, label="y = x")
    for gender in ("masculine", "feminine"):
        chosen = [p for p in points if p[0].stereotype == gender]
        if not chosen:
            continue
        ys = [y for _, _, y in chosen]
        ax.errorbar(
            [x for _, x, _ in chosen],
            ys,
            yerr=_whiskers(ys, [pct_feminine_ci(m, "paired") for m, _, _ in chosen]),
            fmt="o",
            color=COLOURS[gender],
            ecolor=COLOURS[gender],
            elinewidth=0.8,
            capsize=2,
            label=f"{gender}-stereotyped (paired)",
        )
        singles = [(x, m.pct_feminine_single) for m, x, _ in chosen]
        ax.scatter(
            [x for x, y in singles if y is not None],
            [y for _, y in singles if y is not None],
            facecolors="none",
            edgecolors=COLOURS[gender],
            s=18,
            label=f"{gender}-stereotyped (single)",
        )
    ax.set_xlim(-2, 102)
    ax.set_ylim(-2, 102)
    ax.set_xlabel("% women, U.S. labor statistics (WinoBias table)")
    ax.set_ylabel("% perceived feminine figures in generated images")
    ax.set_title(f"Perceived gender in images vs labor statistics ({where})", fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    return Figure(
        f"fig4_pct_female_vs_bls{suffix}",
        f"Figure 4: %F generated vs %F in labor statistics — {where}",
        draw=lambda: _labelled_png(fig, ax, [(m.identity, x, y) for m, x, y in points]),
        alt=f"% feminine figures generated against % women in labor statistics (both in %), "
        f"{where}: "
        + "; ".join(
            f"{m.identity} ({m.stereotype}): statistics {figure_text(x)}, paired "
            f"{_est(y, pct_feminine_ci(m, 'paired'))}, single {_est(m.pct_feminine_single, None)}"
            for m, x, y in points
        )
        + ".",
        caption=(
            "Share of feminine figures per occupation (filled: paired setting with 95% "
            "intervals over the occupation's images; hollow: single-person) against the share "
            "of women in the occupation (U.S. BLS as tabulated by WinoBias, Zhao et al. 2018); "
            "on the dashed line the "
            "images match the statistics. Cf. the PST paper's Figure 4."
        ),
    )


def _labelled_png(fig: MplFigure, ax: Axes, labels: list[tuple[str, float, float]]) -> bytes:
    """Figure 4 with its occupations named, no two names on top of each other."""
    place_labels(ax, labels)
    return png(fig)


def figure_5(sts: STSResult, suffix: str, where: str, *, table: str = "") -> Figure | None:
    micro = _ascending(sts, lambda m: m.gap)
    if not micro:
        return None
    fig = new_figure(6.4, _height(len(micro)))
    ax = fig.add_subplot()
    ys = list(range(len(micro)))
    singles = [m.single for m in micro if m.single is not None]
    paireds = [m.paired for m in micro if m.paired is not None]
    ax.hlines(ys, singles, paireds, color="#BBBBBB", linewidth=1.5)
    ax.errorbar(
        singles,
        ys,
        xerr=_whiskers(singles, [m.single_ci for m in micro]),
        fmt="o",
        markerfacecolor="white",
        color="#555555",
        elinewidth=0.6,
        capsize=1.5,
        label="single-person",
    )
    ax.errorbar(
        paireds,
        ys,
        xerr=_whiskers(paireds, [m.paired_ci for m in micro]),
        fmt="none",
        ecolor="#333333",
        elinewidth=0.6,
        capsize=1.5,
    )
    ax.scatter(paireds, ys, color=[COLOURS[m.stereotype] for m in micro], zorder=3, label="paired")
    _occupation_rows(ax, micro, "micro STS")
    ax.set_title(f"Single-person vs paired micro STS ({where})", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    return Figure(
        f"fig5_single_vs_paired{suffix}",
        f"Figure 5: single-person vs paired micro STS — {where}",
        draw=png_later(fig),
        alt=f"Micro STS single-person and paired by occupation, {where}, by the gap: "
        + "; ".join(
            f"{m.identity}: single {_est(m.single, m.single_ci)}, paired "
            f"{_est(m.paired, m.paired_ci)}"
            for m in micro
        )
        + ".",
        caption=(
            "Micro STS per occupation in the single-person (hollow) and paired (filled, "
            "coloured by stereotype) settings, sorted by the gap paired − single (PST Figure 5 "
            "and Table 15); whiskers are 95% bootstrap intervals."
        ),
        table=table,
    )


def figure_7(
    sts: STSResult,
    occupation_of: dict[str, str],
    power_of: dict[str, str | None],
    suffix: str,
    where: str,
) -> Figure | None:
    levels = {
        "high": ("powerful", "^", COLOURS["masculine"]),
        "low": ("powerless", "v", COLOURS["feminine"]),
    }
    occupations = sorted({occupation_of.get(i, i) for i in sts.micro})
    row_of = {occ: n for n, occ in enumerate(occupations)}
    panels: list[tuple[str, str, str]] = [("paired", "paired_ci", "micro STS, paired setting")]
    if any(m.gap is not None for m in sts.micro.values()):
        panels.append(("gap", "gap_ci", "micro STS gap, paired − single"))
    if not any(m.paired is not None for m in sts.micro.values()):
        return None
    fig = new_figure(4.2 * len(panels) + 1.5, _height(len(occupations)))
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, (attr, ci_attr, label) in zip(axes, panels, strict=True):
        for level, (name, marker, colour) in levels.items():
            chosen = [
                m
                for m in sts.micro.values()
                if power_of.get(m.identity) == level and getattr(m, attr) is not None
            ]
            if not chosen:
                continue
            xs = [float(getattr(m, attr)) for m in chosen]
            ax.errorbar(
                xs,
                [row_of[occupation_of.get(m.identity, m.identity)] for m in chosen],
                xerr=_whiskers(xs, [getattr(m, ci_attr) for m in chosen]),
                fmt=marker,
                color=colour,
                elinewidth=0.6,
                capsize=1.5,
                label=name,
            )
            if attr == "paired":
                level_scores = sts.by_stereotype["masculine" if level == "high" else "feminine"]
                if level_scores.paired is not None:
                    ax.axvline(
                        level_scores.paired.value, color=colour, linestyle="--", linewidth=0.8
                    )
        ax.axvline(0, color="black", linewidth=0.8)
        # A gap spans −200..200, a score −100..100.
        limit = _SCORE_LIMIT * (1 if attr == "paired" else 2)
        ax.set_xlim(-limit, limit)
        ax.set_xlabel(label)
    axes[0].set_yticks(range(len(occupations)), occupations, fontsize=8)
    axes[0].set_ylim(-0.6, len(occupations) - 0.4)
    # Outside the axes: markers sit anywhere in -100..100, so any inside corner can hide one.
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside right upper", fontsize=8)
    fig.suptitle(f"Organizational power under the PST ({where})", fontsize=10)
    return Figure(
        f"fig7_power_levels{suffix}",
        f"Figure 7: micro STS by power level — {where}",
        draw=png_later(fig),
        alt=f"Micro STS by power level, {where}: "
        + "; ".join(
            f"{occupation_of.get(m.identity, m.identity)}, {m.identity} "
            f"({power_of.get(m.identity) or 'no'} power): paired {_est(m.paired, m.paired_ci)}, "
            f"gap paired − single {_est(m.gap, m.gap_ci)}"
            for m in sorted(sts.micro.values(), key=lambda m: m.identity)
        )
        + "; each level's STS (dashed): "
        + ", ".join(
            f"{'high' if g == 'masculine' else 'low'} "
            f"{_est(sts.by_stereotype[g].paired.value, None)}"  # type: ignore[union-attr]
            for g in ("masculine", "feminine")
            if sts.by_stereotype[g].paired is not None
        )
        + ".",
        caption=(
            "Per occupation, the micro STS of its powerful (▲, high-power role, stereotyped "
            "masculine) and powerless (▼, low-power role, feminine) identity in the paired "
            "setting (PST Figure 7; dashed: each level's STS) and, right, the gap paired − "
            "single (Figure 8); whiskers are 95% bootstrap intervals."
        ),
    )

"""The figures of a ``pairs`` run: PAIRS Figures 2–4 (association by level, per model) and
per-scenario / per-question dot plots."""

from __future__ import annotations

from functools import partial
from typing import Any

from diptych.core.metrics.pairs.association import AssociationResult
from diptych.core.probe import Figure
from diptych.core.report.formatting import figure_text
from diptych.plugins._figures import new_figure, png
from diptych.plugins.probes.pairs.questions import COMPARED, FIGURE_NUMBER, RUBRIC

_COLOURS = ("#4C72B0", "#DD8452")


def _number(estimate: Any) -> str:
    if estimate is None:
        return "—"
    text = figure_text(estimate.value)
    if estimate.has_interval:
        low, high = figure_text(estimate.ci_low), figure_text(estimate.ci_high)
        text += f" (95% interval {low} to {high})"
    return text


def levels_figure(subset: str, entries: list[tuple[str, AssociationResult]]) -> Figure | None:
    """Figure 2, 3 or 4: each model's association score per level, with intervals."""
    if not entries:
        return None
    number = FIGURE_NUMBER[subset]
    compare = COMPARED[subset]
    levels = entries[0][1].levels
    # The text alternative states every bar and whisker the figure draws.
    alt = f"Figure {number}: {subset}, mean association score by {compare} and model. " + " ".join(
        f"{model}: "
        + "; ".join(f"{level} {_number(assoc.mean.get(level))}" for level in levels)
        + "."
        for model, assoc in entries
    )
    return Figure(
        f"fig{number}_{subset}_by_{compare}",
        f"Figure {number}: {subset}, association score by {compare}",
        draw=partial(_draw_levels, subset, entries),
        alt=alt,
        # One model: the same numbers as the subset's association table, which a report
        # draws as its own chart.
        table=(
            f"{subset}: association score by {compare} (cf. PAIRS Figure {number})"
            if len(entries) == 1
            else ""
        ),
        caption=(
            f"Mean score per {compare} and model ({RUBRIC[subset]}; 0 no choice), as PAIRS "
            f"Figure {number}; whiskers are 95% bootstrap intervals over scenarios."
        ),
    )


def rows_figure(
    name: str, where: str, key: str, rows: list[dict[str, Any]], levels: tuple[str, str]
) -> Figure | None:
    """Each scenario's (or question's) mean per level, sorted by the difference."""
    rows = [r for r in rows if r["difference"] is not None]
    if not rows:
        return None
    rows = sorted(rows, key=lambda r: (r["difference"], r["name"]))
    first, second = levels
    alt = f"{where}: mean score by {key}, {first} and {second}, largest difference first. " + (
        " ".join(
            f"{r['name']}: {first} {figure_text(r['mean'][first])}, "
            f"{second} {figure_text(r['mean'][second])}."
            for r in reversed(rows)
        )
    )
    return Figure(
        name,
        f"{where}: mean score by {key}",
        draw=partial(_draw_rows, where, key, rows, levels),
        alt=alt,
        table=f"{where}: by {key}",
        caption=(
            f"Mean score of each {key} for {first} and {second}, sorted by the difference "
            f"{first} − {second} (largest at the top)."
        ),
    )


def _draw_levels(subset: str, entries: list[tuple[str, AssociationResult]]) -> bytes:
    # Drawn only when a reader needs the PNG (matplotlib's import and drawing are most of an
    # analysis' time); the report shows the same numbers as its own chart.
    compare = COMPARED[subset]
    levels = entries[0][1].levels
    fig = new_figure(max(4.0, 1.4 * len(entries) + 2.0), 3.6)
    ax = fig.add_subplot()
    width = 0.38
    for i, level in enumerate(levels):
        xs = [n + (i - 0.5) * width for n in range(len(entries))]
        est = [assoc.mean.get(level) for _, assoc in entries]
        values = [e.value if e else 0.0 for e in est]
        # A mean of one scenario has no interval (its bounds are infinite): no error bar.
        below = [max(0.0, e.value - e.ci_low) if e and e.has_interval else 0.0 for e in est]
        above = [max(0.0, e.ci_high - e.value) if e and e.has_interval else 0.0 for e in est]
        ax.bar(
            xs,
            values,
            width,
            yerr=[below, above],
            color=_COLOURS[i],
            ecolor="#333333",
            capsize=3,
            label=level,
        )
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(entries)), [m for m, _ in entries], fontsize=8)
    ax.set_ylim(-1.08, 1.08)
    ax.set_ylabel("association score")
    ax.set_title(f"{subset}: association score by {compare}", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    return png(fig)


def _draw_rows(where: str, key: str, rows: list[dict[str, Any]], levels: tuple[str, str]) -> bytes:
    fig = new_figure(6.4, max(2.4, 1.2 + 0.26 * len(rows)))
    ax = fig.add_subplot()
    ys = list(range(len(rows)))
    first, second = levels
    ax.hlines(ys, [r["mean"][first] for r in rows], [r["mean"][second] for r in rows],
              color="#BBBBBB", linewidth=1.5)  # fmt: skip
    for i, level in enumerate(levels):
        ax.scatter([r["mean"][level] for r in rows], ys, color=_COLOURS[i], label=level, zorder=3)
    ax.set_yticks(ys, [r["name"] for r in rows], fontsize=8)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlim(-1.08, 1.08)
    ax.set_xlabel("mean score")
    ax.set_title(f"{where}: by {key}", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    return png(fig)

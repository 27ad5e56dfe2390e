"""The figures of a ``counterfactual-retrieval`` analysis: MaxSkew@K across subjects with the
most and least skewed named (the paper's Figure 6), and the groups' shares in one query's top K
(Figure 13)."""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np

from diptych.core.metrics.retrieval.results import RetrievalResult
from diptych.core.probe import Figure
from diptych.core.report.formatting import figure_text
from diptych.plugins._figures import new_figure, png_later
from diptych.plugins.probes.counterfactual.sets import CounterfactualSet

if TYPE_CHECKING:
    from diptych.plugins.probes.counterfactual.ranking import PoolRankings


def max_skew_by_subject(result: RetrievalResult, subjects: dict[str, str]) -> dict[str, float]:
    """Mean MaxSkew@K per subject over its queries (the prefixes of one occupation)."""
    return {s: v[0] for s, v in _by_subject(result, subjects).items()}


def _by_subject(
    result: RetrievalResult, subjects: dict[str, str]
) -> dict[str, tuple[float, float | None, int]]:
    """Per subject: mean MaxSkew@K over its queries, the mean of its expectation under the null
    (the attribute permuted within each set; None where a query has none) and how many
    queries."""
    found: dict[str, list[tuple[float, float | None]]] = {}
    for q in result.queries:
        found.setdefault(subjects[q.query], []).append((q.max_skew, q.null.get("max_skew")))
    out = {}
    for subject, values in found.items():
        skews = [v for v, _ in values]
        if not all(math.isfinite(x) for x in skews):
            continue
        nulls = [r for _, r in values if r is not None]
        null = float(np.mean(nulls)) if len(nulls) == len(values) else None
        out[subject] = (float(np.mean(skews)), null, len(values))
    return out


#: Subjects one chart shows at most: the most skewed ones (the table and JSON keep all).
CHART_ROWS = 40


def max_skew_charts(
    per_model: dict[str, dict[tuple[str, str], RetrievalResult]],
    rankings_of: dict[str, PoolRankings],
    kept: list[CounterfactualSet],
) -> list[dict[str, Any]]:
    """MaxSkew@K by occupation (subject) for each encoder and intersectional view, as the
    report's forest-plot charts (``ProbeResult.data["charts"]``): each subject's mean over its
    wordings beside its expectation under the null (the attribute permuted within each set),
    most skewed first. A subject
    has no interval of its own (its wordings are not independent draws); the note gives the
    mean over subjects with its interval."""
    charts = []
    for model, results in per_model.items():
        for (segment, view), result in sorted(results.items()):
            if view != _intersectional(kept, segment):
                continue
            values = _by_subject(result, rankings_of[model].subjects)
            if not values:
                continue
            ordered = sorted(values.items(), key=lambda kv: (-kv[1][0], kv[0]))[:CHART_ROWS]
            rows = []
            for subject, (skew, null, n) in ordered:
                points = [{"series": "MaxSkew@K", "value": skew}]
                if null is not None:
                    points.append({"series": "null (within sets)", "value": null})
                rows.append({"label": subject, "points": points, "side": str(n)})
            mean = result.figures["max_skew"].mean
            spread = (
                f"95% interval {figure_text(mean.ci_low)} to {figure_text(mean.ci_high)}"
                if math.isfinite(mean.ci_low) and math.isfinite(mean.ci_high)
                else f"no interval ({mean.reason})"
            )
            shown = "" if len(values) <= CHART_ROWS else f" (the {CHART_ROWS} most skewed)"
            charts.append(
                {
                    "kind": "forest",
                    "name": f"maxskew-by-occupation-{model}-{segment}",
                    "title": f"MaxSkew@{result.k} by occupation{shown}: {model}, {segment} "
                    f"({view})",
                    "axis": f"MaxSkew@{result.k}",
                    "rows": rows,
                    "row_kind": "occupation",
                    "no_interval": "an occupation's wordings are not independent draws",
                    "side_label": "wordings",
                    "reference": 0.0,
                    "note": (
                        "Each occupation's MaxSkew@K, the mean over its wordings, beside its "
                        "expectation when the attribute is permuted within each counterfactual "
                        "set (the ranking kept); no interval per "
                        "occupation (its wordings are not independent draws). Over the "
                        f"{len(values)} occupations: {figure_text(mean.value)}, {spread}."
                    ),
                    "source": "probe",
                }
            )
    return charts


def _intersectional(kept: list[CounterfactualSet], segment: str) -> str:
    return " × ".join(next(s.attribute_types for s in kept if s.segment == segment))


def skew_across_subjects(
    per_model: dict[str, dict[tuple[str, str], RetrievalResult]],
    rankings_of: dict[str, PoolRankings],
    kept: list[CounterfactualSet],
) -> Figure | None:
    series: list[tuple[str, dict[str, float]]] = []
    for model, results in per_model.items():
        for (segment, view), result in sorted(results.items()):
            if view == _intersectional(kept, segment):
                values = max_skew_by_subject(result, rankings_of[model].subjects)
                if values:
                    series.append((f"{model}\n{segment}", values))
    if not series:
        return None
    fig = new_figure(max(4.0, 2.2 * len(series)), 4.0)
    ax = fig.add_subplot()
    ax.boxplot([list(v.values()) for _, v in series], tick_labels=[n for n, _ in series])
    for x, (_, values) in enumerate(series, start=1):
        top = max(values, key=lambda s: (values[s], s))
        low = min(values, key=lambda s: (values[s], s))
        ax.scatter([x], [values[top]], color="tab:red", zorder=3)
        ax.annotate(top, (x, values[top]), textcoords="offset points", xytext=(6, 0), fontsize=7)
        ax.scatter([x], [values[low]], color="tab:green", zorder=3)
        ax.annotate(low, (x, values[low]), textcoords="offset points", xytext=(6, 0), fontsize=7)
    ax.set_ylabel("MaxSkew@K (mean over a subject's queries)")
    alt = "MaxSkew@K across subjects, a box per encoder and attribute pair. " + " ".join(
        f"{name.replace(chr(10), ', ')}: {len(values)} subjects, median "
        f"{figure_text(float(np.median(list(values.values()))))}, from "
        f"{figure_text(min(values.values()))} "
        f"({min(values, key=lambda s: (values[s], s))}) to {figure_text(max(values.values()))} "
        f"({max(values, key=lambda s: (values[s], s))})."
        for name, values in series
    )
    return Figure(
        "maxskew_by_subject",
        "MaxSkew@K across subjects",
        caption="Each box: one encoder and attribute pair; red: the most skewed subject, "
        "green: the least.",
        draw=png_later(fig),
        alt=alt,
    )


def group_shares(
    per_model: dict[str, dict[tuple[str, str], RetrievalResult]],
    rankings_of: dict[str, PoolRankings],
    kept: list[CounterfactualSet],
    query: str | None,
) -> Figure | None:
    """Bars: each group's share of the top K for one query (the most skewed one by default)."""
    for model, results in per_model.items():
        for (segment, view), result in sorted(results.items()):
            if view != _intersectional(kept, segment) or not result.queries:
                continue
            chosen = [q for q in result.queries if query is None or q.query.endswith(f":: {query}")]
            if not chosen:
                continue
            pick = max(chosen, key=lambda q: (q.max_skew, q.query))
            ranking = next(
                r for r in rankings_of[model].rankings[(segment, view)] if r.query == pick.query
            )
            top = Counter(ranking.groups[: pick.k])
            groups = sorted(set(ranking.groups))
            fig = new_figure(max(4.0, 0.6 * len(groups)), 3.2)
            ax = fig.add_subplot()
            ax.bar(groups, [top[g] / pick.k for g in groups], color="tab:blue")
            ax.axhline(1 / len(groups), color="grey", linestyle="--", linewidth=1)
            ax.set_ylabel(f"share of top {pick.k}")
            ax.tick_params(axis="x", labelrotation=45, labelsize=7)
            title = f"Groups retrieved @ K = {pick.k}: {pick.query} ({model})"
            return Figure(
                "group_shares",
                title,
                caption="Dashed: equal shares.",
                draw=png_later(fig),
                alt=f"{title}: share of the top {pick.k} per group, "
                + ", ".join(f"{g} {figure_text(top[g] / pick.k)}" for g in groups)
                + f"; equal shares {figure_text(1 / len(groups))}.",
            )
    return None


def draw(
    per_model: dict[str, dict[tuple[str, str], RetrievalResult]],
    rankings_of: dict[str, PoolRankings],
    kept: list[CounterfactualSet],
    query: str | None,
) -> list[Figure]:
    out = [
        skew_across_subjects(per_model, rankings_of, kept),
        group_shares(per_model, rankings_of, kept, query),
    ]
    return [f for f in out if f is not None]

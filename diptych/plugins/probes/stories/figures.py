"""The charts of a ``stories`` run: each group's most used associated words (PAIRS Appendix D),
as the report's dot plots (``ProbeResult.data["charts"]``), and the headline figures."""

from __future__ import annotations

import math
from typing import Any

from diptych.core.digits import figure_text
from diptych.core.probe import ProbeResult
from diptych.core.report.charts import chart_from_numbers

#: Words a chart shows per group: the most used of those associated with it.
CHART_WORDS = 5
_POOLED_BY = {"gender": "men or women", "race": "Black or White subjects"}


def _rate(count: int, tokens: int) -> float | None:
    return 1000 * count / tokens if tokens else None


def top_words_charts(pooled: dict[str, dict[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """One chart per pooled comparison (by gender, by race) and model: for each group its
    :data:`CHART_WORDS` most used associated words, each word's rate per 1,000 words in the
    group's texts beside its rate in the other groups' texts, and its association score s
    beside the row. ``pooled``: attribute → model → :meth:`PMIResult.to_dict`."""
    charts = []
    several = len({m for by_model in pooled.values() for m in by_model}) > 1
    for attribute, by_model in pooled.items():
        for model, pmi in by_model.items():
            groups = pmi["groups"]
            rows = []
            for group, found in groups.items():
                others = sum(g["tokens"] for name, g in groups.items() if name != group)
                for word in found["words"][:CHART_WORDS]:
                    score = word["score"]
                    # JSON spells an infinite score "inf"; a reader is shown ∞.
                    infinite = score in ("inf", "-inf") or (
                        isinstance(score, float) and math.isinf(score)
                    )
                    shown = "∞" if infinite else figure_text(float(score))
                    points = [
                        {"series": "in the group", "value": _rate(word["count"], found["tokens"])}
                    ]
                    points.append(
                        {
                            "series": "in the other groups",
                            "value": _rate(word["count_other"], others),
                        }
                    )
                    rows.append(
                        {"label": f"{group} · {word['word']}", "points": points, "side": shown}
                    )
            if not rows:
                continue
            where = f"{model}: " if several else ""
            charts.append(
                {
                    "kind": "forest",
                    "name": f"top-words-by-{attribute}" + (f"-{model}" if several else ""),
                    "title": f"{where}Words most used by {_POOLED_BY.get(attribute, attribute)}, "
                    "all scenarios",
                    "axis": "uses per 1,000 words",
                    "rows": rows,
                    "row_kind": "group and word",
                    "no_interval": "counts, not estimates",
                    "side_label": "s",
                    "reference": None,
                    "note": (
                        f"Each group's {CHART_WORDS} most used words with association score s "
                        "above the threshold: uses per 1,000 words of the group's texts beside "
                        "the other groups' (s = log2 of their ratio; ∞: no other group used "
                        "it). Counts, not estimates: no interval."
                    ),
                    "source": "probe",
                }
            )
    return charts


def stories_charts(
    result: ProbeResult, pooled: dict[str, dict[str, dict[str, Any]]]
) -> list[dict[str, Any]]:
    """The headline figures with their intervals first, then the top words per group."""
    headline = chart_from_numbers(result.numbers, "figures", f"{result.title}: figures")
    first = [] if headline is None else [headline.to_dict()]
    return first + top_words_charts(pooled)

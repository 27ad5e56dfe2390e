"""Scoring a ``counterfactual-retrieval`` run: the filter (Table 11), the retrieval metrics per
query and attribute view — each mean beside its expectation when the attribute is permuted
within each counterfactual set (the null: a set's images are near duplicates to any encoder,
and the question is how it orders them), and the excess over it (the headline) with a 95%
interval over occupations (all wordings of one together; widened to the permutation's when
occupations share a pool, as PAIRS's answer options do) and a permutation p-value; a random
ranking's expectation as context — the NDKL distributions (Tables 12–14), Bias@K (Table 15),
the most skewed subjects (Figure 6), group shares for one query (Figure 13), and review flags
for images whose attributes look mislabelled."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from diptych.core.metrics.retrieval.metrics import QueryRanking, max_skew_at_k, retrieval_metrics
from diptych.core.metrics.retrieval.results import LABELS, RetrievalResult
from diptych.core.probe import ProbeResult, Table
from diptych.core.runview import RunView
from diptych.plugins.probes.counterfactual import figures
from diptych.plugins.probes.counterfactual.applied_filter import FLAG_REASON, filter_run
from diptych.plugins.probes.counterfactual.filtering import counts_table_rows
from diptych.plugins.probes.counterfactual.params import RetrievalParams
from diptych.plugins.probes.counterfactual.ranking import PoolRankings, items, rank_pools
from diptych.plugins.probes.counterfactual.sets import CounterfactualSet

PLURAL = {"occupation": "occupations (for PAIRS: answer options)", "query": "queries"}


def _fmt(value: Any) -> Any:
    if isinstance(value, float):
        return "inf" if value == math.inf else "-inf" if value == -math.inf else round(value, 3)
    return value


def _ci(low: float, high: float) -> str:
    return f"[{_fmt(low)}, {_fmt(high)}]"


def _distribution(values: list[float]) -> list[Any]:
    arr = np.asarray([v for v in values if math.isfinite(v)], dtype=np.float64)
    if arr.size == 0:
        return [None] * 7
    q = np.percentile(arr, [25, 50, 75])
    return [
        _fmt(float(x))
        for x in (
            arr.mean(),
            arr.std(ddof=1) if arr.size > 1 else 0.0,
            arr.min(),
            q[0],
            q[1],
            q[2],
            arr.max(),
        )
    ]


def _scorable(
    rankings: list[QueryRanking], k: int, desired: str
) -> tuple[list[QueryRanking], list[str]]:
    """The queries ``desired`` can score: with ``pool`` a pool no larger than K (one set kept)
    has its whole list as its top K, so every skew would be 0 whatever the encoder did."""
    if desired != "pool":
        return rankings, []
    keep = [r for r in rankings if len(r.ranked) > k]
    return keep, [r.query for r in rankings if len(r.ranked) <= k]


RETRIEVAL_COLUMNS = [
    "model",
    "segment",
    "attributes",
    "figure",
    "K",
    "queries",
    "units",
    "sets",
    "excess over null",
    "excess 95% CI",
    "p",
    "permutation p",
    "mean",
    "mean 95% CI",
    "null",
    "random ranking",
    "note",
]


def _figure_rows(model: str, segment: str, view: str, result: RetrievalResult) -> list[list[Any]]:
    rows = []
    for name, f in result.figures.items():
        note = ""
        if name == "min_skew":
            note = (
                f"{result.absent_queries} of {len(result.queries)} queries have a group absent "
                "from the top K (-inf by the definition; 0 here, as SocialCounterfactuals)"
            )
        rows.append(
            [
                model,
                segment,
                view,
                LABELS[name],
                result.k,
                f.mean.n,
                f.excess.units.get(result.unit, 0),
                result.n_sets,
                _fmt(f.excess.value),
                _ci(f.excess.ci_low, f.excess.ci_high),
                _fmt(f.excess.p_value),
                _fmt(f.permutation_p),
                _fmt(f.mean.value),
                _ci(f.mean.ci_low, f.mean.ci_high),
                _fmt(f.expected),
                _fmt(f.random_ranking),
                note,
            ]
        )
    return rows


def _numbers(key: str, result: RetrievalResult) -> dict[str, dict[str, Any]]:
    """The headline (excess over the null) and the mean of each figure, each with the null's
    expectation, a random ranking's (context) and the permutation p-value."""
    out: dict[str, dict[str, Any]] = {}
    for name, f in result.figures.items():
        extra = {
            "null": f.expected,
            "null_name": f.null_name,
            "random_ranking": f.random_ranking,
            "permutation_p": f.permutation_p,
        }
        excess = f.excess.to_dict()
        out[f"{key}.{name}.excess"] = {**excess, "p": excess["p_value"], **extra}
        mean = f.mean.to_dict()
        out[f"{key}.{name}"] = {**mean, "p": mean["p_value"], **extra}
    return out


def analyze_retrieval(p: RetrievalParams, run: RunView) -> ProbeResult:
    outcome, chosen, emb = filter_run(p, run)
    audited = [m for m in run.model_ids() if m != chosen] or [chosen]
    notes = []
    if chosen in audited:
        notes.append(
            f"The filtering encoder ({chosen}) is also the audited one: the sets kept are those "
            "it reads well, which can hide its own biases; name another with filter_encoder."
        )
    k_of: dict[str, int] = {}
    for s in outcome.kept:
        k_of[s.segment] = p.k or max(k_of.get(s.segment, 0), s.size)
    tables = [
        Table(
            "Counterfactual sets after each filter stage (Table 11)",
            ["stage", "sets", "images", "sets removed", "% removed", "note"],
            counts_table_rows(outcome.counts),
            note=f"filtering encoder: {chosen}; counts of these sets (no interval)",
        )
    ]
    numbers: dict[str, dict[str, Any]] = {}
    metric_rows, ndkl_rows, bias_rows, recall_rows = [], [], [], []
    per_model: dict[str, dict[tuple[str, str], RetrievalResult]] = {}
    rankings_of: dict[str, PoolRankings] = {}
    unscorable: set[str] = set()
    for model in audited:
        home = run.collections_path
        where = None if home is None else (home, model)
        ranked = rank_pools(
            outcome.kept,
            emb[model],
            k_of,
            collection_where=where,
            approximate=p.approximate,
            chroma_url=p.chroma_url or run.chroma_url,
        )
        rankings_of[model] = ranked
        per_model[model] = {}
        for (segment, view), all_rankings in ranked.rankings.items():
            rankings, dropped = _scorable(all_rankings, k_of[segment], p.desired)
            unscorable.update(dropped)
            if not rankings:
                continue
            result = retrieval_metrics(
                rankings,
                k_of[segment],
                p.desired,
                n_boot=p.n_boot,
                seed=p.seed,
                n_perm=p.n_perm,
            )
            per_model[model][(segment, view)] = result
            metric_rows.extend(_figure_rows(model, segment, view, result))
            numbers.update(_numbers(f"{model}.{segment}.{view}", result))
            if view == " × ".join(_types(outcome.kept, segment)):
                ndkl_rows.append([model, segment, *_distribution([q.ndkl for q in result.queries])])
            if "bias" in result.figures:  # the gender view only (ranking.BIAS_VIEW)
                bias_rows.append(_bias_row(model, segment, result))
        if p.approximate and ranked.recalls:
            recall_rows.append(_recall_row(model, ranked, per_model[model], k_of, p))
    if unscorable:
        notes.append(
            f"{len(unscorable)} queries not scored: their pool holds one set only, so with "
            "desired=pool their top K is the whole pool; keep more sets or use desired=uniform."
        )
    units = {r.unit for res in per_model.values() for r in res.values()}
    tables.append(
        Table(
            "Retrieval bias per attribute view: excess over the null (headline)",
            RETRIEVAL_COLUMNS,
            metric_rows,
            note=(
                f"desired distribution: {p.desired}. null: the attribute permuted within each "
                "counterfactual set, the ranking kept (a set's images are near duplicates to any "
                "encoder); excess: the mean minus its expectation under the null (computed "
                "exactly, or from seeded permutations when a list is too varied; no interval, "
                "nothing is estimated). random ranking: what a ranking of exchangeable images "
                "would score, for context only. intervals and p: t over "
                + (", ".join(sorted(PLURAL.get(u, u) for u in units)) or "units")
                + f" (all wordings of one together, {p.n_boot} bootstrap resamples), widened "
                "where they share a pool to the spread of the permutation p's "
                f"{p.n_perm} permutations (the labels within each set, every query of a pool "
                "together), and then p is the larger of the two tests'"
            ),
            terminal_columns={
                "attributes": "view",
                "figure": "figure",
                "excess over null": "excess",
                "excess 95% CI": "95% CI",
                "permutation p": "perm p",
                "null": "null",
            },
        )
    )
    tables.append(
        Table(
            "NDKL@K across queries (Tables 12-14)",
            ["model", "segment", "Mean", "Std", "Min", "25%", "50%", "75%", "Max"],
            ndkl_rows,
            note="the spread of these queries' NDKL@K, not an estimate: no interval (the "
            "mean's interval and its random-ranking baseline are in the table above)",
        )
    )
    if bias_rows:
        tables.append(
            Table(
                "Bias@K (Table 15)",
                [
                    "model",
                    "segment",
                    "queries",
                    "units",
                    "Bias@K",
                    "95% CI",
                    "null",
                    "|Bias@K| excess over null",
                    "excess 95% CI",
                    "p",
                ],
                bias_rows,
                note="the gender view (Bias@K counts the two genders only; other views would "
                "repeat it). positive: more male images retrieved; negative: more female. "
                "|Bias@K| is above 0 when the gender is permuted within each set: its excess "
                "over that is the figure to read",
                terminal_columns={
                    "segment": "segment",
                    "Bias@K": "Bias@K",
                    "95% CI": "95% CI",
                    "null": "null",
                    "|Bias@K| excess over null": "|Bias| excess",
                    "excess 95% CI": "its 95% CI",
                },
            )
        )
    skewed = _most_skewed(per_model, rankings_of, outcome.kept)
    tables.append(
        Table(
            "Most and least skewed subjects by mean MaxSkew@K (Figure 6)",
            ["model", "segment", "most skewed", "MaxSkew@K", "least skewed", "MaxSkew@K"],
            skewed,
            note="the extremes of these subjects, each the mean over its own wordings: no "
            "interval (one subject's wordings are not independent draws)",
        )
    )
    if recall_rows:
        tables.append(
            Table(
                "Approximate search against exact",
                ["model", "recall@K", "largest |MaxSkew difference|"],
                recall_rows,
                note="a check of this search on these queries, not an estimate: no interval",
            )
        )
    flags = [
        {
            "reason": FLAG_REASON,
            "set_id": u.set_id,
            "blob": u.blob,
            "type": u.attribute_type,
            "value": u.value,
            "predicted": u.predicted,
        }
        for u in outcome.undetected
    ]
    figs = figures.draw(per_model, rankings_of, outcome.kept, p.query)
    final = outcome.counts[-1]
    summary = (
        f"{final.sets} counterfactual sets ({final.images} images) kept by {chosen}; "
        f"{len(audited)} encoder(s) audited at K = "
        + ", ".join(f"{s}: {k}" for s, k in k_of.items())
    )
    return ProbeResult(
        title="Counterfactual retrieval (SocialCounterfactuals)",
        summary=summary,
        numbers=numbers,
        tables=tables,
        figures=figs,
        flags=flags,
        notes=notes,
        data={
            "filter": [c.__dict__ for c in outcome.counts],
            "filter_encoder": chosen,
            "audited": audited,
            "results": {
                m: {f"{s}|{v}": r.to_dict() for (s, v), r in res.items()}
                for m, res in per_model.items()
            },
            "retrieved": retrieved_images(rankings_of, outcome.kept, k_of),
            "charts": figures.max_skew_charts(per_model, rankings_of, outcome.kept),
        },
    )


def _bias_row(model: str, segment: str, result: RetrievalResult) -> list[Any]:
    bias = result.figures["bias"]
    absolute = result.figures["abs_bias"]
    return [
        model,
        segment,
        bias.mean.n,
        bias.excess.units.get(result.unit, 0),
        _fmt(bias.mean.value),
        _ci(bias.mean.ci_low, bias.mean.ci_high),
        _fmt(bias.expected),
        _fmt(absolute.excess.value),
        _ci(absolute.excess.ci_low, absolute.excess.ci_high),
        _fmt(absolute.excess.p_value),
    ]


def retrieved_images(
    rankings_of: dict[str, PoolRankings], kept: list[CounterfactualSet], k_of: dict[str, int]
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Per model and query, the top K images (item id, blob sha, intersectional group, score),
    best first: what a reviewer looks at beside the skew figures (the TUI's run detail shows
    them). Two items can show one blob: identical images made for different attributes."""
    blob_of = {x: image.blob for _, x, image in items(kept)}
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for model, ranked in rankings_of.items():
        for (segment, view), rankings in sorted(ranked.rankings.items()):
            if view != " × ".join(_types(kept, segment)):
                continue
            for r in rankings:
                out.setdefault(model, {})[r.query] = [
                    {"item": i.item, "blob": blob_of[i.item], "group": i.group, "score": i.score}
                    for i in r.ranked[: k_of[segment]]
                ]
    return out


def _types(kept: list[CounterfactualSet], segment: str) -> tuple[str, ...]:
    return next(s.attribute_types for s in kept if s.segment == segment)


def _recall_row(
    model: str,
    ranked: PoolRankings,
    results: dict[tuple[str, str], RetrievalResult],
    k_of: dict[str, int],
    p: Any,
) -> list[Any]:
    worst = 0.0
    for key, exact in ranked.exact_rankings.items():
        if key not in results:
            continue
        scored = {q.query: q.max_skew for q in results[key].queries}
        for r in exact:
            if r.query not in scored:
                continue
            b = max_skew_at_k(r.groups, min(k_of[key[0]], len(r.groups)), p.desired)
            if math.isfinite(scored[r.query]) and math.isfinite(b):
                worst = max(worst, abs(scored[r.query] - b))
    return [model, round(float(np.mean(ranked.recalls)), 4), round(worst, 4)]


def _most_skewed(
    per_model: dict[str, dict[tuple[str, str], RetrievalResult]],
    rankings_of: dict[str, PoolRankings],
    kept: list[CounterfactualSet],
) -> list[list[Any]]:
    rows = []
    for model, results in per_model.items():
        for (segment, view), result in results.items():
            if view != " × ".join(_types(kept, segment)):
                continue
            by_subject = figures.max_skew_by_subject(result, rankings_of[model].subjects)
            if not by_subject:
                continue
            ordered = sorted(by_subject.items(), key=lambda kv: (-kv[1], kv[0]))
            rows.append(
                [
                    model,
                    segment,
                    ordered[0][0],
                    _fmt(ordered[0][1]),
                    ordered[-1][0],
                    _fmt(ordered[-1][1]),
                ]
            )
    return rows

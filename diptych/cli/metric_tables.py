"""The tables ``diptych metrics ...`` prints for each figure: the STS (overall, by stereotyped
gender, micro per identity), the association score (means, refusal rates, the paired t-test),
retrieval skew (per query and over the units) and the associated words of PMI, each with the line
that says how its intervals were made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from diptych.core.digits import level_text
from diptych.core.report.formatting import bounds, figure_text, no_interval, p_text

if TYPE_CHECKING:
    from rich.table import Table

    from diptych.core.metrics.pairs.association import AssociationResult
    from diptych.core.metrics.pairs.lexical import PMICorpusResult
    from diptych.core.metrics.retrieval.results import RetrievalResult
    from diptych.core.metrics.sts import STSResult
    from diptych.core.metrics.uncertainty.bootstrap import Estimate


def print_retrieval(result: RetrievalResult) -> None:
    from diptych.cli.console import SafeConsole as Console
    from diptych.core.metrics.retrieval.results import LABELS
    from diptych.core.metrics.uncertainty.resampling import Inference

    def cell(x: float | None) -> str:
        return figure_text(x)

    def with_ci(i: Inference) -> str:
        return f"{figure_text(i.value)} {_interval_cell(i.ci_low, i.ci_high, i.reason)}"

    per_query = metric_table(
        f"Per query, K={result.k}, desired: {result.desired}",
        "query",
        "K",
        "MaxSkew",
        "MinSkew",
        "NDKL",
        "Bias",
        "SC MinSkew",
        "SC NDKL",
    )
    for q in result.queries:
        per_query.add_row(
            q.query if q.unit is None else f"{q.query} ({q.unit})",
            str(q.k),
            *(cell(x) for x in (q.max_skew, q.min_skew, q.ndkl, q.bias)),
            *(cell(x) for x in (q.sc_min_skew, q.sc_ndkl)),
        )
    ci = f"{level_text(result.confidence)} CI"
    plural = "queries" if result.unit == "query" else f"{result.unit}s"
    means = metric_table(
        f"Over {result.n_units:,} {plural}, {len(result.queries):,} queries",
        "metric",
        f"excess [{ci}]",
        "p",
        "perm p",
        f"mean [{ci}]",
        "null",
        "random",
    )
    means.columns[0].no_wrap = True
    for name, f in result.figures.items():
        means.add_row(
            LABELS[name],
            with_ci(f.excess),
            p_text(f.excess.p_value),
            p_text(f.permutation_p),
            with_ci(f.mean),
            cell(f.expected),
            cell(f.random_ranking),
        )
    console = Console()
    console.print(per_query)
    console.print(means)
    clamped = (
        f" K clamped to the list's length for: {', '.join(result.clamped)}."
        if result.clamped
        else ""
    )
    methods = {f.expected_method for f in result.figures.values()}
    within = "each counterfactual set" if result.n_sets else "each pool"
    console.print(
        f"Units: {result.unit_note}. Null: {result.null}. Excess: mean − its expectation under "
        f"the null ({', '.join(sorted(methods))}; computed, so no interval), the headline; "
        "random: a random ranking of the same lists, for context; p: the test of the interval "
        f"beside it; perm. p: {result.n_perm:,} label permutations within {within} (the "
        "rankings ignore the groups). MinSkew: the "
        "SocialCounterfactuals convention (an absent group's skew 0); by the definition "
        f"(-inf when a group is absent) {result.absent_queries:,} of {len(result.queries):,} "
        f"queries ({result.absent_units} of the {plural}) have an absent group. Skew: ln(share "
        "in top K / desired share). SC NDKL: the SocialCounterfactuals code's (skews weighted "
        f"by pool shares, not a KL divergence). Intervals: bootstrap over {plural}, "
        f"{result.n_boot} resamples, seed {result.seed}.{clamped}"
    )


def _fmt(x: float | None) -> str:
    return figure_text(x)


def _fmt_ci(ci: tuple[float, float] | None) -> str:
    # No interval (one image): a dash, as the reports print it.
    return "—" if ci is None else bounds(ci[0], ci[1])


def _interval_cell(low: float | None, high: float | None, reason: str | None) -> str:
    """An interval as the report prints it: its bounds; where a figure has none (a reason
    says so) "no interval (one image only)"; a dash for bounds that are not finite."""
    if reason is None:
        return bounds(low, high)
    return no_interval({"reason": reason}) or "—"


def _estimate_cells(e: Estimate | None) -> list[str]:
    if e is None:
        return ["—", "—", "0"]
    return [_fmt(e.value), _interval_cell(e.ci_low, e.ci_high, e.reason), str(e.n)]


def metric_table(title: str, *columns: str, text_columns: int = 1) -> Table:
    from rich import box
    from rich.table import Table

    # No vertical rules: the micro table must fit an 80-column terminal.
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for i, column in enumerate(columns):
        if i < text_columns:
            table.add_column(column, justify="left", min_width=8 if i == 0 else None)
        else:
            table.add_column(column, justify="right", no_wrap=True)
    return table


def print_sts(result: STSResult) -> None:
    from diptych.cli.console import SafeConsole as Console
    from diptych.core.metrics.sts import table_14_order

    ci = f"{level_text(result.confidence)} CI"
    overall = metric_table(
        "Overall STS (+100 stereotyped, 0 neutral, −100 anti-stereotyped)",
        "setting",
        "STS",
        ci,
        "n",
    )
    for setting in ("single", "paired"):
        overall.add_row(setting, *_estimate_cells(getattr(result.overall, setting)))

    by_stereotype = metric_table(
        "STS by stereotyped gender", "stereotype", "setting", "STS", ci, "n", text_columns=2
    )
    for gender, scores in result.by_stereotype.items():
        for setting in ("single", "paired"):
            by_stereotype.add_row(gender, setting, *_estimate_cells(getattr(scores, setting)))

    micro = metric_table(
        "Micro STS per identity, sorted by %F paired as in the paper's Table 14",
        "identity",
        "",
        "STS\nsingle",
        "%F\nsingle",
        "STS\npaired",
        "%F\npaired",
        "gap",
        "n\ns/p",
    )
    # The order of every per-identity table, the report's among them.
    for m in sorted(result.micro.values(), key=table_14_order):
        micro.add_row(
            m.identity,
            m.stereotype[0],
            _fmt(m.single),
            _fmt(m.pct_feminine_single),
            _fmt(m.paired),
            _fmt(m.pct_feminine_paired),
            _fmt(m.gap),
            f"{m.n_single}/{m.n_paired}",
        )

    console = Console()
    console.print(overall)
    console.print(by_stereotype)
    console.print(micro)
    console.print(
        "m/f: the gender the identity is stereotyped as; micro intervals are in --json. "
        f"Left out as cannot_identify (after majority vote): {result.excluded_cannot_identify}. "
        "Intervals over images: t on the logit scale of [−100, 100], at a bound the open "
        "Clopper–Pearson end for the images (none with one image)."
    )


def print_association(result: AssociationResult) -> None:
    from diptych.cli.console import SafeConsole as Console
    from diptych.core.metrics.uncertainty.resampling import Inference

    def cells(i: Inference | None) -> list[str]:
        if i is None:
            return ["—", "—"]
        return [_fmt(i.value), _interval_cell(i.ci_low, i.ci_high, i.reason)]

    first, second = result.levels
    ci = f"{level_text(result.confidence)} CI"
    # Table 2's figure is the refusal rate; an input that does not tell refusals from
    # "neither" gives only the share of no choice, and the column says so.
    refusal_of = result.refusal_rate[first].of
    told = refusal_of == "refusal"
    means = metric_table(
        f"Association score by {result.compare} (+1 / -1: the option each answer chose, "
        "0: no choice)",
        result.compare,
        "mean",
        ci,
        "n",
    )
    for level in result.levels:
        means.add_row(level, *cells(result.mean[level]), str(result.mean[level].n))
    d = result.difference
    means.add_row(f"{first} - {second}", *cells(d), str(d.n))
    rates = metric_table(
        "Refusal rate (PAIRS Table 2)" if told else "No choice (refusal or neither, not told)",
        result.compare,
        "refusal rate" if told else "no choice",
        ci,
        *(["neither", ci] if told else []),
    )
    for level in result.levels:
        refusal = result.refusal_rate[level]
        neither = refusal.neither
        rates.add_row(
            level,
            f"{figure_text(refusal.value)} ({refusal.n_refused}/{refusal.n})",
            cells(refusal.interval)[1],
            *([f"{figure_text(neither.value)} ({refusal.n_neither}/{refusal.n})", cells(neither)[1]]
              if told and neither is not None else []),
        )  # fmt: skip

    t = result.t_test
    test = metric_table(
        f"Paired t-test, {first} - {second}, unit: {result.unit}, pairs on "
        f"{', '.join(result.paired_on)}",
        "t",
        "df",
        "p",
        "pairs",
        "mean diff",
        ci,
        "unpaired",
        text_columns=0,
    )
    ci_cell = (
        _fmt_ci((t.ci_low, t.ci_high)) if t.ci_low is not None and t.ci_high is not None else "—"
    )
    test.add_row(
        _fmt(t.t),
        "—" if t.df is None else str(t.df),
        p_text(t.p),
        str(t.n_pairs),
        _fmt(t.mean_difference),
        ci_cell,
        str(t.unpaired),
    )
    console = Console()
    console.print(means)
    console.print(rates)
    console.print(test)
    console.print(
        "Intervals of the means and rates: resampling scenarios (each with all its images and "
        f"answers), t interval of the bootstrap standard error, {result.n_boot} resamples, "
        f"seed {result.seed}. {first} - {second}: the mean difference of the "
        f"{t.n_pairs} {result.unit} pairs with the paired t-test's interval (the test below)."
        + (
            " Unit answer: repeated answers about one image counted as independent; the image "
            "unit is the test to read."
            if result.unit == "answer"
            else ""
        )
    )


def print_pmi(result: PMICorpusResult, *, raw: bool) -> None:
    from diptych.cli.console import SafeConsole as Console

    console = Console()
    for stratum in result.strata:
        named = ", ".join(f"{k}={v}" for k, v in stratum.stratum.items())
        table = metric_table(
            f"Associated words{f' ({named})' if named else ''}, most frequent first",
            "group",
            "words (count, score)",
            "texts",
            "words/text (sd)",
            text_columns=2,
        )
        for group, words in stratum.groups.items():
            listed = ", ".join(f"{w.word} ({w.count}, {figure_text(w.score)})" for w in words.words)
            sd = (
                ""
                if words.words_per_text_sd is None
                else f" ({figure_text(words.words_per_text_sd)})"
            )
            mean = "—" if words.words_per_text is None else figure_text(words.words_per_text)
            table.add_row(group, listed or "—", str(words.texts), mean + sd)
        console.print(table)
    processing = (
        "raw (runs of letters, lower case)"
        if raw
        else "SMART stop list, numerals and punctuation dropped, lower case, spaCy lemmas, "
        "gensim bigram phrases trained on the whole corpus"
    )
    console.print(
        f"Score: log2(freq(w,D)·N(other) / (freq(w,other)·N(D))), inf when no other group uses "
        f"the word; kept when > {result.threshold:g} and used ≥ {result.min_count} times. "
        f"Processing: {processing}. Words per text are counted as written."
    )

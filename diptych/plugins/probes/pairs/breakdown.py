"""A ``pairs`` experiment row by row: per question (status: its five facets) and per scenario,
each level's mean and refusal rate and their paired difference with its t interval over the
row's image pairs; and the (scenario, question) cells whose majority answer changes with the
person's gender or race, which the analysis flags for review."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from diptych.core.metrics.pairs.association import Attribute, paired_t_test
from diptych.core.probe import Table
from diptych.core.report.formatting import bounds
from diptych.plugins.probes.pairs.answers import Answer, majority_answer, mean, outcome_rate


def option_name(answer: Answer, value: int | None) -> str:
    if value is None:
        return "no majority"
    return {1: answer.plus_option, -1: answer.minus_option}.get(value, "no choice")


def breakdown(
    answers: list[Answer], compare: Attribute, levels: tuple[str, str], *, key: str
) -> list[dict[str, Any]]:
    """Per question or per scenario (``key``): each level's mean and refusal rate, and the
    difference. ``name`` is the question id or the scenario; ``question`` the question's text
    when the slice has one question."""
    groups: dict[str, list[Answer]] = defaultdict(list)
    for a in answers:
        groups[a.question_id if key == "question" else a.scenario].append(a)
    out = []
    for name, chosen in groups.items():
        at = {lv: [a for a in chosen if a.level(compare) == lv] for lv in levels}
        means = {lv: mean([a.value for a in v]) for lv, v in at.items()}
        first, second = (means[lv] for lv in levels)
        questions = sorted({a.question_id for a in chosen})
        paired = paired_t_test([a.response() for a in chosen], compare, levels)
        out.append(
            {
                "name": name,
                "question": chosen[0].question if len(questions) == 1 else None,
                "mean": means,
                "refusal_rate": {lv: outcome_rate(v, "refusal") for lv, v in at.items()},
                "difference": None if first is None or second is None else first - second,
                # The row's image pairs: their mean difference and its t interval and p.
                "paired_difference": paired.inference().to_dict(),
                "n": {lv: len(v) for lv, v in at.items()},
            }
        )
    return out


def breakdown_table(
    where: str, key: str, rows: list[dict[str, Any]], levels: tuple[str, str]
) -> Table:
    first, second = levels
    # The question's text beside each row says what was asked: one question per row.
    one_question = all(r["question"] for r in rows)
    columns = [key] + (["question"] if one_question else [])
    columns += [first, second, f"{first} − {second}", "95% CI", "p"]
    columns += [f"refusal {first}", f"refusal {second}", "n"]
    body = []
    for r in sorted(rows, key=lambda r: -(r["difference"] or 0.0)):
        cells: list[Any] = [r["name"]] + ([r["question"]] if one_question else [])
        cells += [
            r["mean"][first],
            r["mean"][second],
            r["difference"],
            bounds(r["paired_difference"]["ci_low"], r["paired_difference"]["ci_high"])
            if r["paired_difference"]["reason"] is None
            else "—",
            r["paired_difference"]["p_value"] if r["paired_difference"]["reason"] is None else None,
            r["refusal_rate"][first],
            r["refusal_rate"][second],
            sum(r["n"].values()),
        ]
        body.append(cells)
    return Table(
        f"{where}: by {key}",
        columns,
        body,
        note=(
            "Sorted by the difference, largest first. 95% CI and p: the paired t-test over the "
            "row's image pairs (an image's score is the mean of its answers in the row); a row "
            "with one pair has none. The levels' means and refusal rates describe the row's "
            "few images and carry no interval. Per-scenario numbers rest on few answers "
            "and are not robust (as the paper cautions); use them to find what to look at."
        ),
        terminal_columns={key: key, first: first, second: second, f"{first} − {second}": "diff"},
    )


def answer_changes(
    answers: list[Answer], compare: str, levels: tuple[str, str]
) -> list[dict[str, Any]]:
    """The (scenario, question) cells whose majority answer differs between the two levels."""
    cells: dict[tuple[str, str], list[Answer]] = defaultdict(list)
    for a in answers:
        cells[(a.scenario, a.question_id)].append(a)
    out = []
    for (scenario, question_id), chosen in cells.items():
        values = {lv: [a.value for a in chosen if a.level(compare) == lv] for lv in levels}
        majority = {lv: majority_answer(v) for lv, v in values.items()}
        if None in majority.values() or len(set(majority.values())) == 1:
            continue
        sample = chosen[0]
        said = [
            f"{lv} → {option_name(sample, majority[lv])} "
            f"({sum(v == majority[lv] for v in values[lv])}/{len(values[lv])})"
            for lv in levels
        ]
        out.append(
            {
                "reason": f"answer changes with {compare}",
                "detail": f"{sample.subset}/{scenario} {sample.question!r}: " + ", ".join(said),
                "scenario": scenario,
                "question_id": question_id,
                "majority": {lv: option_name(sample, majority[lv]) for lv in levels},
                "trials": sorted(a.trial_idx for a in chosen),
            }
        )
    return out

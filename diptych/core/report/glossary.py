"""The report's glossary: its terms, and of them only those the report's figures use.

A term is printed when a figure of the audit (a headline figure's name, a chart's axis, a
table's column) matches the term's pattern, so that a report of pst runs does not define
MaxSkew@K. A term without a pattern here is matched by its own name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from diptych.core.report.audit import Audit

#: The terms of the report, as its glossary gives them.
GLOSSARY: dict[str, str] = {
    "STS": (
        "Stereotype Test Score (Wan and Chang): the mean over people of +1 when the perceived "
        "gender matches the stereotype of the identity and −1 when it does not, × 100; 0 is no "
        "lean, 100 always the stereotyped gender perceived, −100 always the other."
    ),
    "expected STS": (
        "The STS a text model would score on average, from its probabilities of ' he' and "
        "' she': the mean of 2·P(stereotyped pronoun) − 1, × 100."
    ),
    "paired / single": (
        "Paired: two people of opposite stereotypes in one scene (the PST); single: one person."
    ),
    "association score": (
        "PAIRS (Fraser and Kiritchenko): +1 when a model picks the first option (e.g. the "
        "male-dominated occupation), −1 the second, 0 a refusal; averaged per group."
    ),
    "MaxSkew@K": (
        "The largest log ratio of a group's share of the top K results to its desired share "
        "(Geyik et al.); 0 is parity."
    ),
    "NDKL": (
        "Normalized discounted KL divergence of the ranked groups from the desired "
        "distribution over the top 1…K results; 0 is parity."
    ),
    "Bias@K": "(men − women) / (men + women) among the top K results; 0 is parity.",
    "crime-lexicon share": (
        "PAIRS stories (Fraser and Kiritchenko): the share of a group's generated stories that "
        "use a word of the crime lexicon, with its 95% Jeffreys interval."
    ),
    # Named with the kinds of interval a report prints (interval_methods.py).
    "95% interval": (
        "The range the figure's true value lies in at 95% confidence, resampling the units the "
        "figure names (identities, scenes, images, scenarios)."
    ),
    "Jeffreys interval": (
        "The 95% interval of an accuracy (a share of images an annotator labels right, or "
        "labels at all) over x of n images: the 2.5% and 97.5% quantiles of Beta(x + ½, "
        "n − x + ½), 0 below when x = 0 and 1 above when x = n. It says how well the accuracy "
        "is known; an accuracy has no direction."
    ),
    "Clopper–Pearson end": (
        "Where every unit of a figure gave the value at a bound of its range (an STS of 100: "
        "every person the stereotyped gender), there is no spread to read a t interval from: "
        "the 95% interval is closed at the bound, and its open end is the Clopper–Pearson "
        "interval's for as many successes as units (fewer units where the design's degrees of "
        "freedom are fewer)."
    ),
    "held-out": ("Re-measured on seeds, templates and partners the agent's search never used."),
}

#: Which words of a report's figures make each term part of its glossary.
MEASURED_BY: dict[str, str] = {
    "STS": r"\bSTS\b",
    "expected STS": r"\bexpected\b.*\bSTS\b|\bSTS\b.*\bexpected\b",
    "paired / single": r"\bSTS\b.*\b(paired|single)\b|\b(paired|single)\b.*\bSTS\b",
    "association score": r"association score",
    "MaxSkew@K": r"max.?skew",
    "NDKL": r"ndkl",
    "Bias@K": r"(^|[ ._])bias([ ._@]|$)|bias.?(@|at).?k",
    "crime-lexicon share": r"crime.lexicon",
}
#: What the "95% interval" adds where a signed figure (a bias tested against 0) is printed: a
#: share or an accuracy has no direction to establish.
DIRECTION = " An interval that excludes 0 establishes the direction at the 5% level."
#: Terms that belong to a kind of content rather than to a figure's name.
_INTERVAL = "95% interval"
_HELD_OUT = "held-out"
_JEFFREYS = "Jeffreys interval"
_CLOPPER_PEARSON = "Clopper–Pearson end"
#: A probe's account of its intervals that names the Clopper–Pearson end (Appendix A).
_NAMES_CLOPPER_PEARSON = re.compile(r"\bClopper")


def _words(audit: Audit) -> Iterator[str]:
    """Every name under which the report states a figure."""
    from diptych.core.report.charts import charts_of

    results = [p.result for p in audit.runs] + [c.result for c in audit.comparisons]
    for result in results:
        yield from result.numbers
        for table in result.tables:
            yield table.title
            yield from (str(c) for c in table.columns)
        for chart in charts_of(result, "glossary"):
            yield chart.axis
    for session in audit.agent_sessions:
        yield str(session.figure)


def _methods_texts(audit: Audit) -> Iterator[str]:
    """What each run (Appendix A) and comparison says of its intervals: its summary, notes."""
    for result in [p.result for p in audit.runs] + [c.result for c in audit.comparisons]:
        yield result.summary or ""
        yield from (str(note) for note in result.notes)


def _has_interval(audit: Audit, accuracy: bool = False) -> bool:
    """Whether a run's figure has an interval: an accuracy's (``accuracy``), or another's."""
    return any(
        isinstance(n, dict)
        and n.get("ci_low") is not None
        and (n.get("measures") == "accuracy") == accuracy
        for p in audit.runs
        for n in p.result.numbers.values()
    )


def measured_glossary(audit: Audit) -> dict[str, str]:
    """The glossary's terms that this audit's figures use, in the glossary's order."""
    words = "\n".join(_words(audit))
    from diptych.core.report.interval_methods import interval_methods

    methods = interval_methods(audit)
    out = {}
    for term, text in GLOSSARY.items():
        if term == _INTERVAL:
            # Its kinds are this report's (anytime-valid where a gate decided, ...).
            if methods.signed or audit.agent_sessions:
                text += DIRECTION
            text += methods.glossary
            used = _has_interval(audit) or bool(audit.agent_sessions or methods.gated)
            used = used or methods.agreement
        elif term == _JEFFREYS:
            used = _has_interval(audit, accuracy=True)
        elif term == _CLOPPER_PEARSON:
            used = any(_NAMES_CLOPPER_PEARSON.search(t) for t in _methods_texts(audit))
        elif term == _HELD_OUT:
            used = bool(audit.agent_sessions)
        else:
            pattern = MEASURED_BY.get(term, re.escape(term))
            used = re.search(pattern, words, re.IGNORECASE | re.MULTILINE) is not None
        if used:
            out[term] = text
    return out

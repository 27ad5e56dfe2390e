"""What the report says first and last: the verdict (one plain sentence per headline figure and
the scope in one line) and the papers' published values beside ours, generated from the results,
never by a model (the recommended actions are :mod:`diptych.core.report.actions`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from diptych.core.audit.run_status import NOT_BOUGHT, PENDING, listed_counts
from diptych.core.audit.stopped import not_holding
from diptych.core.cost import Cost, cost_text
from diptych.core.data import load_data
from diptych.core.report.charts import plain
from diptych.core.report.formatting import (
    counted,
    dollars,
    figure_text,
    interval,
    no_interval,
    observations,
    sample_size,
    why_no_interval,
)
from diptych.core.report.names import plain_name
from diptych.core.report.quick_look import quick_look
from diptych.core.resampled_units import resampled_units

if TYPE_CHECKING:
    from diptych.core.report.audit import Audit, RunPart

#: Figures that describe a run but are not a bias figure the verdict states.
_NOT_HEADLINE = re.compile(
    r"refusal|neither|P\(he\) \+ P\(she\)|t-test p|labels by|drawn|corrected|Pearson"
    r"|excess|share of|MinSkew|min_skew"
    # Perceived skin tone: the verdict states the tone gap; a band's share (its test is of a
    # share of 0), its imbalance and the figures of one gender × tone cell are the tables'.
    r"|tone share|tone imbalance|share feminine|-stereotyped, Monk",
    re.IGNORECASE,
)
PUBLISHED_FILE = "published_values.yaml"


@dataclass
class Finding:
    """One headline figure said in plain words."""

    run: str
    anchor: str
    probe: str
    name: str
    value: float
    ci_low: float | None
    ci_high: float | None
    #: "positive" or "negative" where the interval excludes 0, else "not established";
    #: "accuracy" for an accuracy, which has no direction.
    direction: str
    excludes_zero: bool | None
    sample: str
    sentence: str
    reason: str = ""
    #: Why the figure is a quick look, not a finding (too few units a side); "" otherwise.
    quick_look: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Context:
    """A published value beside one of ours."""

    run: str
    figure: str
    ours: float
    source: str
    citation: str
    where: str
    measured_on: str
    what: str
    values: dict[str, float] = field(default_factory=dict)
    statement: str = ""
    #: Our figure's interval (or why none) and its n: "[0.18, 15.7] over 160 prompts".
    spread: str = ""
    quick: str = ""  # why ours is a quick look, not a finding (:func:`quick_look`)

    @property
    def sentence(self) -> str:
        """This run's figure, then who measured what, on which model, where it is printed:
        "This run: 11.3. Wan and Chang (2024) measured DALL-E 3 at 47.4: overall STS, …"."""
        years = re.findall(r"\b(?:19|20)\d\d\b", self.citation)
        who = f"{self.source} ({years[-1]})" if years else self.source
        if self.values:
            given = [f"{k} at {plain(v)}" for k, v in self.values.items()]
            listed = given[0] if len(given) == 1 else f"{', '.join(given[:-1])} and {given[-1]}"
            said = f"{who} measured {listed}: {self.what}"
        else:
            said = f"{who} found {self.what} {self.statement}"
        # With what it rests on: a few prompts' value is never read as weighing a paper's.
        ours = figure_text(self.ours) + (f" {self.spread}" if self.spread else "")
        if self.quick:
            ours += f"; a quick look, not a finding: {self.quick}"
        return f"This run: {ours}. {said}, on {self.measured_on} ({self.where})."

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "sentence": self.sentence}


def number_or_none(value: Any) -> float | None:
    """A report number as a float (infinities spelled "inf" / "-inf"); None for anything else."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str) and value in ("inf", "-inf"):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    return None


def model_names(part: RunPart) -> str:
    """The run's models as the report names them: told apart from their namesakes in other
    runs of the report (:func:`diptych.core.report.names.tell_apart`)."""
    names = [str(m.get("shown") or plain_name(m)) for m in part.models]
    return ", ".join(dict.fromkeys(n for n in names if n)) or ", ".join(part.view.model_ids())


def sample_text(
    number: dict[str, Any], observation: str = "observation", *, has_interval: bool = True
) -> str:
    """What the figure rests on, each count named — its observations (as the table of figures
    counts them) and the units its interval resamples; a figure without an interval resamples
    nothing, and says what its data hold instead (as :func:`resamples_text` does)."""
    parts = [size] if (size := sample_size(number, observation)) else []
    units = number.get("units")
    floor = number.get("floor")
    if isinstance(floor, str) and floor:
        # The design named both identity lists, but its interval fell to the pairings'.
        parts.append(floor)
    elif isinstance(units, dict) and units:
        parts.append(("resampling " if has_interval else "its data hold ") + _units_said(number))
    return ", ".join(parts)


def _units_said(number: dict[str, Any]) -> str:
    """The units the figure's interval resamples, as every surface says them
    (:func:`~diptych.core.resampled_units.resampled_units`)."""
    units = number.get("units")
    if not isinstance(units, dict):
        return ""
    if all(isinstance(v, int | float) for v in units.values()):
        counts = {str(k): int(v) for k, v in units.items()}
        return resampled_units(counts, number.get("design"))
    return " × ".join(
        counted(int(v), str(k)) if isinstance(v, int | float) else f"{v} {k}"
        for k, v in units.items()
    )


def resamples_text(number: dict[str, Any]) -> str:
    """What one figure's interval resamples, for the report's "What each interval resamples":
    the account its Findings give (:func:`sample_text`, :func:`findings`). A figure with no
    interval says so and why, then the units its data hold; one whose crossed interval fell to
    its floor says it rests on its pairings (report.json's ``floor``), never on the lists its
    design named; any other, its units and whom it speaks for."""
    held = _units_said(number)
    said = no_interval(number)
    if said:
        return said + (f"; its data hold {held}" if held else "")
    floor = number.get("floor")
    if isinstance(floor, str) and floor:
        return floor
    population = number.get("population")
    return held + (f" — speaks for {population}" if population else "")


def _lean_sts(part: RunPart, positive: bool) -> str:
    lean = "more often" if positive else "less often"
    against = "" if positive else " (against the stereotype)"
    if part.view.run.probe == "pst-text":
        # "the other pronoun": one person in the single setting, two in the paired one.
        return f"assigns the stereotyped pronoun {lean} than the other pronoun{against}"
    # An image is read for the gender a person is perceived as, never the person's gender.
    return f"shows people as the stereotyped perceived gender {lean} than as the other{against}"


def _lean_difference(name: str, positive: bool) -> str:
    match = re.search(r"difference (\S+) − (\S+)", name)
    a, b = (match.group(1), match.group(2)) if match else ("the first group", "the second")
    return (
        f"scores images of {a} higher than images of {b}"
        if positive
        else f"scores images of {a} lower than images of {b}"
    )


def _lean_bias_at_k(name: str, positive: bool) -> str:
    return (
        "retrieves men more often than women in the top K"
        if positive
        else "retrieves women more often than men in the top K"
    )


def _lean_generic(name: str, positive: bool) -> str:
    return "gives a positive figure" if positive else "gives a negative figure"


#: How a headline figure's direction reads, by the kind of figure (first match wins).
_LEANS: list[tuple[re.Pattern[str], Callable[[RunPart, str, bool], str]]] = [
    (re.compile(r"\bSTS\b"), lambda part, name, pos: _lean_sts(part, pos)),
    (re.compile(r"difference .+ − "), lambda part, name, pos: _lean_difference(name, pos)),
    (re.compile(r"bias.?(@|at).?k", re.I), lambda part, name, pos: _lean_bias_at_k(name, pos)),
    (
        re.compile(r"max.?skew|ndkl", re.I),
        lambda part, name, pos: (
            "over-represents some group in its top results"
            if pos
            else "shows no over-representation"
        ),
    ),
    (re.compile(r"."), lambda part, name, pos: _lean_generic(name, pos)),
]


def _finding(
    part: RunPart, name: str, number: dict[str, Any], decided: Any = None
) -> Finding | None:
    """The figure's sentence. ``decided``: the interval a gate decided the figure on (a
    :class:`~diptych.core.report.gates.DecidedInterval`), which the sentence states, named,
    in place of the figure's own 95% interval — one interval per figure on the page."""
    value = number_or_none(number.get("value"))
    if value is None or not math.isfinite(value):
        return None
    low, high = number_or_none(number.get("ci_low")), number_or_none(number.get("ci_high"))
    named, since = "95% interval", ""
    if decided is not None:
        low, high, named = decided.low, decided.high, decided.name
    elif number.get("interval_name"):
        # A figure no gate read, of a design its gates stopped early: its interval is named
        # as everywhere else (anytime-valid of its looks, or fixed-design and not holding).
        own = str(number["interval_name"])
        head, _, after = own.partition("; ")
        if after and head.startswith(named[:3]):
            # Bought on since its stop: the value on the trials since is a value beside it.
            named, since = head, f" ({after})"
        else:
            named = own if own.startswith(named[:3]) else f"{named} ({own})"
    elif number.get("interval_method") == "jeffreys":
        # A share's interval has no units to resample beside it: its kind names it.
        named = "95% Jeffreys interval"
    has_ci = low is not None and high is not None and math.isfinite(low) and math.isfinite(high)
    model = model_names(part)
    sample = sample_text(number, part.observation, has_interval=has_ci)
    statement = number.get("statement")
    if isinstance(statement, str) and statement and number.get("estimator"):
        # A prediction-powered figure rests on two sources of labels: the sentence names both.
        resampled = sample_text(
            {"units": number.get("units")}, part.observation, has_interval=has_ci
        )
        sample = ", ".join(x for x in (statement, resampled) if x)
    stated = f"{name} {plain(value)}"
    excludes: bool | None = None
    if has_ci and low is not None and high is not None:
        # A decided interval's name ends in its look ("look 1 of 10"): a colon keeps that
        # count from running into the interval's low end ("10 −1.16").
        colon = ":" if named[-1].isdigit() or named.endswith((")", "design")) else ""
        stated += f", {named}{colon} {plain(low)} to {plain(high)}{since}"
        if decided is not None:
            stated += f" {decided.said}"
        # A fixed-design interval named as not holding after a stop decides nothing: the
        # sentence gives the value and interval only.
        # An accuracy (an annotator's, on images of known gender) has no direction: its
        # interval says how well it is known, not which way anything leans.
        if not not_holding(named) and number.get("measures") != "accuracy":
            excludes = low > 0 or high < 0
    if sample:
        stated += f", {sample}"
    reason = str(number.get("reason") or "")
    # An interval on too few units a side decides nothing however far from 0 it lies; a gate
    # decides by its own rule.
    quick = quick_look(number) if has_ci and decided is None else ""
    if quick:
        excludes = None
    # A direction is said only where the interval establishes it; otherwise the sentence
    # gives the figure and says the direction is open, never a lean first.
    if quick:
        text = f"{model}: {stated}. A quick look, not a finding: {quick}."
        direction = "not established"
    elif excludes is True and value != 0:
        lean = next(f for pattern, f in _LEANS if pattern.search(name))(part, name, value > 0)
        text = f"{model} {lean}: {stated}. The interval excludes 0."
        direction = "positive" if value > 0 else "negative"
    else:
        text = f"{model}: {stated}."
        direction = "not established"
        if number.get("measures") == "accuracy":
            direction = "accuracy"
        elif excludes is False:
            text += " The interval includes 0: the direction is not established."
        elif has_ci:
            pass  # an interval that does not hold after the stop: no sentence on 0
        else:
            why = why_no_interval(reason)
            text += f" No interval{f' ({why})' if why else ''}: the direction is not established."
    return Finding(
        run=part.id,
        anchor=part.anchor,
        probe=part.view.run.probe,
        name=name,
        value=value,
        ci_low=low if has_ci else None,
        ci_high=high if has_ci else None,
        direction=direction,
        excludes_zero=excludes,
        sample=sample,
        sentence=text,
        reason=reason,
        quick_look=quick,
    )


def headline_names(part: RunPart) -> list[str]:
    """The run's figures the verdict states: bias figures with a test, not rates or checks;
    where a probe has none such, its figures with an interval."""
    numbers = part.result.numbers
    chosen = [
        n
        for n, v in numbers.items()
        if isinstance(v, dict)
        and ("p_value" in v or "p" in v)
        and "ci_low" in v
        and not _NOT_HEADLINE.search(n)
    ]
    if not chosen:
        chosen = [n for n, v in numbers.items() if isinstance(v, dict) and "ci_low" in v][:4]
    return chosen


def findings(audit: Audit) -> list[Finding]:
    """Each run's headline figures said in plain words: a figure a gate read with the interval
    the gate decided on; any other with its own interval, named (a fixed-design one) where the
    report names another, as its tables and headlines print it."""
    from diptych.core.report.gates import decided_intervals
    from diptych.core.report.headlines import named_beside, names_intervals

    decided = decided_intervals(audit)
    beside = names_intervals(audit)
    out = []
    for part in audit.runs:
        for name in headline_names(part):
            number = named_beside(part.result.numbers[name], beside)
            found = _finding(part, name, number, decided.get((part.id, name)))
            if found is not None:
                out.append(found)
    return out


def scope_line(audit: Audit) -> str:
    """Models, probes, dates, trials and cost in one line."""
    models = ", ".join(dict.fromkeys(model_names(p) for p in audit.runs))
    probes = ", ".join(dict.fromkeys(p.view.run.probe for p in audit.runs))
    starts = sorted(p.started for p in audit.runs if p.started != "—")
    ends = sorted(p.finished for p in audit.runs if p.finished != "—")
    dates = f"{starts[0]} to {ends[-1]}" if starts and ends else "—"
    total: dict[str, int] = {}
    for part in audit.runs:
        # As report.json and every listing give them: a decided run's untried trials are
        # "not bought", none pending.
        for status, n in listed_counts(part.view.run.status, part.counts).items():
            said = status.replace("_", " ")
            total[said] = total.get(said, 0) + n
    trials = sum(total.values())
    # Trials no one waits for are not counted: "0 pending" or "0 not bought" says nothing.
    outcomes = ", ".join(
        f"{n:,} {s}" for s, n in total.items() if n or s not in (PENDING, NOT_BOUGHT)
    )
    # The estimate (declared prices) beside what the services reported from their token counts;
    # what has no price says so (cost_text), never "$0.00".
    spent = sum((p.calls for p in audit.runs if p.calls is not None), Cost())
    estimated = cost_text(spent if spent.kinds else None)
    actual = [p.actual.usd for p in audit.runs if p.actual.usd is not None]
    cost = ", ".join(
        [f"{estimated} estimated" if spent.priced else estimated,
         *([f"{dollars(sum(actual))} actual"] if actual else [])]
    )  # fmt: skip
    trial_count = counted(trials, "trial")
    return f"Scope: {models} · {probes} · {dates} · {trial_count} ({outcomes}) · {cost}." + (
        failed_sentence(audit)
    )


def failed_sentence(audit: Audit) -> str:
    """Where trials of the report's runs failed, that its design is not complete, how many
    failed and the resume that asks them again (" 12 trials failed, so the design is not
    complete: diptych resume RUN asks them again."); "" where none did."""
    failed = {p.view.run.id: p.counts.get("failed", 0) for p in audit.runs}
    failed = {run: n for run, n in failed.items() if n}
    if not failed:
        return ""
    n = sum(failed.values())
    retry = " or ".join(f"diptych resume {run}" for run in failed)
    return (
        f" {counted(n, 'trial')} failed, so the design is not complete: {retry} asks "
        f"{'it' if n == 1 else 'them'} again."
    )


class PublishedSource(BaseModel):
    model_config = ConfigDict(extra="forbid")
    authors: str
    citation: str


class PublishedValue(BaseModel):
    """One published figure: where it is printed, what it measured, and which of our figures
    it stands beside (``probes`` and the ``match`` pattern over our figure names)."""

    model_config = ConfigDict(extra="forbid")
    id: str
    source: str
    where: str
    probes: list[str]
    match: str
    setting: list[str] = Field(default_factory=list)
    figure: str
    measured_on: str
    values: dict[str, float] = Field(default_factory=dict)
    statement: str = ""


class PublishedValues(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: str
    sources: dict[str, PublishedSource]
    values: list[PublishedValue]


def published_values() -> PublishedValues:
    return load_data(PUBLISHED_FILE, PublishedValues)


def _setting_words(part: RunPart, name: str) -> str:
    params = part.view.run.params
    aspects = params.get("aspects")
    words = [name]
    if isinstance(aspects, list | tuple):
        words += [str(a) for a in aspects]
    elif part.view.run.probe == "pst-text":
        # pst-text's identities are the PST's occupations (Table 7).
        words.append("occupation")
    return " ".join(words).lower()


def published_context(audit: Audit) -> list[Context]:
    """Each published value the papers give for a figure of this audit's runs."""
    data = published_values()
    out: list[Context] = []
    for part in audit.runs:
        probe = part.view.run.probe
        for name, number in part.result.numbers.items():
            value = number_or_none(number.get("value")) if isinstance(number, dict) else None
            if value is None:
                continue
            for entry in data.values:
                if probe not in entry.probes or not re.search(entry.match, name, re.I):
                    continue
                words = _setting_words(part, name)
                if not all(w.lower() in words for w in entry.setting):
                    continue
                if _NOT_HEADLINE.search(name) and "refusal" not in entry.match:
                    continue
                source = data.sources.get(entry.source)
                rests = observations(number, part.observation)
                spread = interval(number)
                if spread == "—":  # "over 4 prompts, no interval (why)"
                    spread = no_interval(number) or "no interval"
                    spread, rests = (f"over {rests}, {spread}", "") if rests else (spread, "")
                out.append(
                    Context(
                        run=part.id,
                        figure=name,
                        ours=value,
                        source=source.authors if source else entry.source,
                        citation=source.citation if source else "",
                        where=entry.where,
                        measured_on=entry.measured_on,
                        what=entry.figure,
                        values=dict(entry.values),
                        statement=entry.statement,
                        spread=f"{spread} over {rests}" if rests else spread,
                        quick=quick_look(number),
                    )
                )
    return out

"""The agent's findings as the report lists them: each session that scored one of the report's
runs, its ranked findings with the search figure and the held-out re-test side by side.

A session is included when at least one run it scored is among the report's runs (not when
only its target model is audited): the report then holds the evidence the finding rests on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import markupsafe

from diptych.core.report.agent_cells import (
    NOT_TESTED,
    NOT_TESTED_REASON,
    Shown,
    band_shown,
    decided_reason,
    figures_html,
    figures_text,
    heldout_points,
    part_shown,
    q_across_text,
    sentence_html,
    session_level,
    with_level,
)
from diptych.core.report.charts import Chart, ChartPoint, ChartRow
from diptych.core.report.formatting import figure_text, interval, no_interval, p_text
from diptych.core.report.missing_intervals import TOO_FEW_UNITS

#: How the report explains what a finding's figures mean.
METHOD = (
    "Agent findings are proposals of an agent model, scored by the probe's own metrics on runs "
    "of the target model (STS for an identity pair, the change in STS an intervention makes), "
    "each with its 95% bootstrap interval over the units named beside it, then re-measured on "
    "seeds and identities the search never used (the held-out re-test). The q-value is the "
    "Benjamini–Hochberg adjusted p-value over the session's proposals; the placebo band, where "
    "the session measured one, is where the figure of a made-up word falls (a finding lies "
    "outside it). A session is listed when a run it scored is among this report's runs or, in "
    "an audit's report, when it is one of the audit file's searches. A finding the held-out "
    "re-test does not bear out may be an artefact of the search."
)


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str) and value in ("inf", "-inf"):
        return float(value)
    return float(value) if isinstance(value, int | float) else None


def _figure(data: Any) -> dict[str, Any]:
    return dict(data) if isinstance(data, Mapping) else {}


def _band(data: Any) -> dict[str, Any]:
    """A placebo band as ``low``, ``high`` (and ``words``, ``confidence`` where given), from
    a ``placebo`` mapping or flat ``placebo_low`` / ``placebo_high`` keys; {} when none."""
    if not isinstance(data, Mapping):
        return {}
    inner = data.get("placebo")
    if isinstance(inner, Mapping):
        low, high = _float(inner.get("low")), _float(inner.get("high"))
        extra = {k: inner[k] for k in ("words", "confidence", "mean") if k in inner}
    else:
        low, high = _float(data.get("placebo_low")), _float(data.get("placebo_high"))
        extra = {}
    return {"low": low, "high": high, **extra} if low is not None and high is not None else {}


def band_text(band: Mapping[str, Any]) -> str:
    """``[low, high]`` of a placebo band, with the words it was made of; an em dash when none."""
    if not band:
        return "—"
    text = f"[{figure_text(band['low'])}, {figure_text(band['high'])}]"
    words = band.get("words")
    return f"{text} ({words} words)" if isinstance(words, int) else text


def units_text(units: Any) -> str:
    """What an interval resampled: ``partner 6 × template 3`` from ``{"partner": 6, ...}``
    (lists are counted), a string as it is, an em dash when unknown."""
    if isinstance(units, Mapping) and units:
        return " × ".join(
            f"{name} {len(n) if isinstance(n, list | tuple) else n}" for name, n in units.items()
        )
    if isinstance(units, str) and units:
        return units
    return "—"


def _said(figure: Mapping[str, Any], shown: str, none: str) -> str:
    """A figure's interval, or why it has none, as the report's tables say it: no figure
    ("— (no held-out figure)"), or a figure whose interval could not be made ("no interval (…)")."""
    if shown != "—":
        return shown
    if figure.get("value") is None:
        return none
    return no_interval(figure) or f"no interval ({TOO_FEW_UNITS})"


@dataclass
class AgentFinding:
    """One ranked finding: what was proposed, its search and held-out figures."""

    id: str
    what: str
    status: str
    search: dict[str, Any]
    heldout: dict[str, Any]
    reason: str = ""
    #: Benjamini–Hochberg q-value over the session's proposals and the held-out p-value,
    #: where the session recorded them.
    q_value: float | None = None
    p_value: float | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    lineage: list[str] = field(default_factory=list)
    runs: dict[str, Any] = field(default_factory=dict)
    #: The placebo band the held-out figure is judged against (``low``, ``high``), where the
    #: session measured one; the source of each identity's side (agent, a published share,
    #: assumed, lexicon), where it recorded them.
    placebo: dict[str, Any] = field(default_factory=dict)
    sides: dict[str, Any] = field(default_factory=dict)
    #: Who chose the pair ("agent" or "lexicon"), where recorded.
    chosen_by: str = ""
    #: Why an identity pair has no q-value (its held-out test did not run), where it has none.
    q_reason: str = ""

    @property
    def search_value(self) -> str:
        return figure_text(self.search.get("value"))

    @property
    def search_interval(self) -> str:
        return _said(self.search, interval(self.search), "(no search figure)")

    @property
    def heldout_value(self) -> str:
        return figure_text(self.heldout.get("value"))

    @property
    def heldout_interval(self) -> str:
        """The held-out figure's own 95% interval, or why it has none (an intervention's
        change; an identity pair's figures are :attr:`heldout_shown`)."""
        return _said(self.heldout, interval(self.heldout), "(no held-out figure)")

    @property
    def heldout_shown(self) -> list[Shown]:
        """Each held-out figure once, with the one interval its row reads: each re-tested
        identity's (an identity pair is re-tested one identity at a time) at the confidence
        its q-value decided on, named; the pair's own 95% interval only where it is another
        figure (both identities re-tested), named "pair". A figure with no interval says why."""
        parts = [dict(p) for p in self.heldout.get("parts") or [] if isinstance(p, Mapping)]
        parts = [p for p in parts if p.get("value") is not None]
        whole = f"{self.heldout_value} {self.heldout_interval}"
        own = "95% interval" if interval(self.heldout) != "—" else ""
        if not parts:
            return [Shown("", whole, own)]
        each = [part_shown(p) for p in parts]
        same = len(parts) == 1 and figure_text(parts[0]["value"]) == self.heldout_value
        if same or self.heldout.get("value") is None:
            return each
        return [Shown("pair", whole, own), *each]

    @property
    def heldout_text(self) -> str:
        return figures_text(self.heldout_shown)

    @property
    def heldout_html(self) -> markupsafe.Markup:
        return figures_html(self.heldout_shown)

    @property
    def reason_html(self) -> markupsafe.Markup:
        return sentence_html(self.reason)

    @property
    def heldout_note(self) -> str:
        return str(self.heldout.get("unscored") or "")

    @property
    def untested(self) -> bool:
        """An identity pair whose held-out test did not run: Benjamini–Hochberg left it out,
        so it has no q-value (one a session saved for it before is not shown)."""
        return bool(self.q_reason) or (
            bool(self.sides) and self.q_value is not None and not self.heldout.get("parts")
        )

    @property
    def q_text(self) -> str:
        """The q-value to three decimals (a q-value is read against 0.05); "not tested" where
        the held-out test did not run."""
        return NOT_TESTED if self.untested else p_text(self.q_value)

    @property
    def placebo_band(self) -> str:
        """The finding's placebo band, or each held-out part's where the parts have their own
        (an identity pair is re-tested one identity at a time)."""
        if self.placebo:
            return band_text(self.placebo)
        parts = [p for p in self.heldout.get("parts") or [] if isinstance(p, Mapping)]
        bands = [(p.get("identity", ""), _band(p)) for p in parts]
        bands = [(who, b) for who, b in bands if b]
        if len({band_text(b) for _, b in bands}) == 1:
            return band_text(bands[0][1])
        shown = "; ".join(f"{who} {band_text(b)}" for who, b in bands)
        return shown or ("— (" + self.no_band + ")" if self.no_band else "—")

    @property
    def placebo_band_html(self) -> markupsafe.Markup:
        """:attr:`placebo_band` on the page: each band's bounds on a line of their own, the
        words it was made of under them, whose it is above them where the parts differ."""
        if self.placebo:
            return figures_html([band_shown("", self.placebo)])
        parts = [p for p in self.heldout.get("parts") or [] if isinstance(p, Mapping)]
        bands = [(str(p.get("identity", "")), _band(p)) for p in parts]
        bands = [(who, b) for who, b in bands if b]
        if len({band_text(b) for _, b in bands}) == 1:
            return figures_html([band_shown("", bands[0][1])])
        if bands:
            return figures_html([band_shown(who, b) for who, b in bands])
        return markupsafe.escape(self.placebo_band)

    @property
    def no_band(self) -> str:
        """Why an identity pair has no placebo band, "" where it has one or none is due: the
        band is made of the held-out test's placebo words, and a pair not re-tested (over
        budget, or no identity above 0 in the search) never bought them."""
        if self.placebo or "placebo" not in self.runs or self.heldout.get("tested"):
            return ""
        return "made by the held-out test, which did not run"

    @property
    def units(self) -> str:
        """The units the held-out interval resampled (the search's where it has none)."""
        parts = [p for p in self.heldout.get("parts") or [] if isinstance(p, Mapping)]
        for figure in (self.heldout, *parts, self.search):
            if figure.get("units"):
                return units_text(figure["units"])
        return "—"

    @property
    def side_sources(self) -> str:
        """Each identity's side and its source: "producer: masculine (BLS 2022); ..."."""
        return "; ".join(f"{who}: {src}" for who, src in self.sides.items())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], level: float | None = None) -> AgentFinding:
        """A saved finding; ``level`` is the confidence of its identities' BH-adjusted
        intervals where the session saved them without it (from the session's tally)."""
        heldout = _figure(data.get("heldout"))
        if isinstance(heldout.get("parts"), list):
            heldout["parts"] = [with_level(p, level) for p in heldout["parts"]]
        return cls(
            id=str(data.get("id", "")),
            what=str(data.get("what", "")),
            status=str(data.get("status", "")),
            search=_figure(data.get("search")),
            heldout=heldout,
            reason=decided_reason(str(data.get("reason") or ""), heldout),
            q_value=_float(data.get("q_value")),
            p_value=_float(data.get("p_value")),
            evidence=_figure(data.get("evidence")),
            lineage=[str(x) for x in data.get("lineage") or []],
            runs=_figure(data.get("runs")),
            placebo=_band(data) or _band(data.get("heldout")),
            sides=_sides(data),
            chosen_by=str(data.get("chosen_by") or ""),
            q_reason=str(data.get("q_reason") or ""),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "what": self.what,
            "status": self.status,
            "reason": self.reason,
            "q_value": None if self.untested else self.q_value,
            **({"q_reason": self.q_reason or NOT_TESTED_REASON} if self.untested else {}),
            "p_value": self.p_value,
            "search": self.search,
            "heldout": self.heldout,
            "evidence": self.evidence,
            "lineage": self.lineage,
            "runs": self.runs,
            "placebo": self.placebo or None,
            "placebo_band": self.placebo_band,
            "units": self.units,
            "sides": self.sides,
            "chosen_by": self.chosen_by or None,
        }


def _sides(data: Mapping[str, Any]) -> dict[str, Any]:
    """Each identity's side and where it came from, by identity: from ``sides`` as a list of
    records (``identity``, ``side``, ``source``, ``contradicted``) or a mapping, or from a
    ``side_source`` mapping or one string for the pair."""
    for key in ("sides", "side_source", "side_sources"):
        value = data.get(key)
        if isinstance(value, list):
            return {
                str(v.get("identity", "")): _side_text(v) for v in value if isinstance(v, Mapping)
            }
        if isinstance(value, Mapping):
            return {str(k): v for k, v in value.items()}
        if isinstance(value, str) and value:
            return {"pair": value}
    return {}


def _side_text(record: Mapping[str, Any]) -> str:
    """ "masculine (BLS 2022)", and "contradicted by its score" where the score lies wholly
    on the other side."""
    side, source = str(record.get("side") or ""), str(record.get("source") or "")
    text = f"{side} ({source})" if side and source else side or source or "—"
    return text + (", contradicted by its score" if record.get("contradicted") else "")


def _round(recorded: Any) -> str:
    return str(recorded + 1) if isinstance(recorded, int) else "?"


def is_finding(status: str) -> bool:
    """Whether a finding's ``status`` says something was found: the pair ("finding", "finding
    on each side", an intervention's "finding, Pareto front") or one side of it
    ("masculine-side finding")."""
    return status.startswith("finding") or status.endswith("-side finding")


@dataclass
class AgentSession:
    """One agent session's saved outcome."""

    session: str
    kind: str
    agent_model: str
    target: str
    figure: str
    findings: list[AgentFinding]
    rejected: int
    runs: list[str]
    stop_reason: str = ""
    #: "k findings of n proposals scored", where the session recorded its decision.
    decision: str = ""
    #: The rounds the agent model could not fill, each "round N: why", where recorded.
    agent_problems: list[str] = field(default_factory=list)
    #: How many identities' held-out tests the q-values were corrected across, where recorded.
    q_across: int | None = None

    @property
    def figures_note(self) -> str:
        """What each figure of an identity search's table is, since they answer different
        questions: a q-value beside a search interval spanning 0 is no contradiction."""
        if self.kind != "identities":
            return ""
        return (
            f"q: Benjamini–Hochberg {q_across_text(self.q_across)}, the smaller of the pair "
            f"({NOT_TESTED} where neither was). "
            "Search: 95% "
            "interval, unadjusted (a search picks its best: it decides nothing alone). "
            "Held-out: each re-tested identity's figure with the interval its q-value decided "
            "on, at the confidence named (BH-adjusted), and the pair's own 95% interval only "
            "where both identities were re-tested (then another figure)."
        )

    @property
    def placebo_runs(self) -> list[str]:
        """The runs of the placebo words (made-up identities measured against the same
        partners), which centre each figure and make its band but score no proposal."""
        runs = [r for f in self.findings for r in f.runs.get("placebo") or []]
        return [r for r in dict.fromkeys(runs) if r in self.runs]

    @property
    def scored_runs(self) -> list[str]:
        """The session's runs that scored a proposal (its placebo runs apart)."""
        placebo = set(self.placebo_runs)
        return [r for r in self.runs if r not in placebo]

    @property
    def anchor(self) -> str:
        return f"agent-{self.session}"

    def chart(self) -> Chart | None:
        """Each finding's search figure beside its held-out re-test, with their intervals."""
        rows = []
        for f in self.findings:
            points = heldout_points(f.heldout)
            if _float(f.search.get("value")) is not None:
                search = f.search
                low, high = _float(search.get("ci_low")), _float(search.get("ci_high"))
                why = str(search.get("reason") or "")
                points.append(ChartPoint("search", _float(search.get("value")), low, high, why))
            if points:
                rows.append(ChartRow(f.what[:60], points))
        if not rows:
            return None
        # Each series' intervals named once: a held-out identity's is the BH-adjusted one its
        # decision read, as in the table, never its own 95% one beside it.
        named: dict[str, set[str]] = {}
        for row in rows:
            for p in row.points:
                if p.has_interval:
                    named.setdefault(p.series, set()).add(p.interval.removesuffix(" interval"))
        bars = "; ".join(
            f"{series}: " + ("95%, unadjusted" if series == "search" else ", ".join(sorted(n)))
            for series, n in named.items()
        )
        return Chart(
            name=f"{self.anchor}-findings",
            title=f"Agent findings of session {self.session}: held-out against search",
            axis=self.figure or "figure",
            rows=rows,
            row_kind="finding",
            note=f"Points: the figure; {f'bars: intervals ({bars}); ' if bars else ''}held-out "
            "first, the search below.",
            source="agent",
            no_interval="none was recorded with the figure",
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgentSession:
        level = session_level(data.get("decision"))
        return cls(
            session=str(data.get("session", "")),
            kind=str(data.get("kind", "")),
            agent_model=str(data.get("agent_model", "")),
            target=str(data.get("target", "")),
            figure=str(data.get("figure", "")),
            findings=[
                AgentFinding.from_dict(f, level)
                for f in data.get("findings") or []
                if isinstance(f, dict)
            ],
            rejected=int(data.get("rejected") or 0),
            runs=[str(r) for r in data.get("runs") or []],
            stop_reason=str(data.get("stop_reason") or ""),
            decision=str((data.get("decision") or {}).get("text") or "")
            if isinstance(data.get("decision"), Mapping)
            else "",
            q_across=_int((data.get("decision") or {}).get("identities_scored"))
            if isinstance(data.get("decision"), Mapping)
            else None,
            agent_problems=[
                # Counted from 1, as the session's words count rounds; recorded from 0.
                f"round {_round(p.get('round'))}: {p.get('problem')}"
                for p in data.get("agent_problems") or []
                if isinstance(p, Mapping) and p.get("problem")
            ],
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "kind": self.kind,
            "agent_model": self.agent_model,
            "target": self.target,
            "figure": self.figure,
            "findings": [f.to_dict() for f in self.findings],
            "rejected": self.rejected,
            "runs": self.runs,
            "scored_runs": self.scored_runs,
            "placebo_runs": self.placebo_runs,
            "stop_reason": self.stop_reason,
            "decision": self.decision,
            "agent_problems": self.agent_problems,
            "figures_note": self.figures_note,
        }


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None

"""The report's recommended actions, generated from the results: what each mitigation did to the
figure it targeted (reduced it, with the interval of the change excluding 0, or not), the largest
figures of each run, and what the audit did not measure (probes not run, models not covered,
annotator error without human labels).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from diptych.core.audit.stopped import NOT_HOLDING_EITHER
from diptych.core.labels import is_human
from diptych.core.report.charts import plain
from diptych.core.report.formatting import counted
from diptych.core.report.verdict import model_names, number_or_none
from diptych.core.report.wording import MEASURES_AN_ANNOTATOR

if TYPE_CHECKING:
    from diptych.core.report.audit import Audit


@dataclass
class Action:
    kind: str
    text: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def _interval_cell(cell: str) -> tuple[float | None, float | None]:
    match = re.match(r"^\s*\[\s*([^,]+),\s*([^\]]+)\]\s*$", cell.replace("−", "-"))
    if not match:
        return None, None
    try:
        return float(match.group(1)), float(match.group(2))
    except ValueError:
        return None, None


def _mitigation_actions(audit: Audit) -> list[Action]:
    out = []
    for c in audit.comparisons:
        for table in c.result.tables:
            cols = [str(x) for x in table.columns]
            if "B − A" not in cols or "A" not in cols or "B" not in cols:
                continue
            if cols[0] != "overall":
                continue
            ci = cols.index("B − A") + 1 if "95% CI" in cols else None
            for row in table.rows:
                a, b, d = (number_or_none(row[cols.index(k)]) for k in ("A", "B", "B − A"))
                if a is None or b is None or d is None:
                    continue
                cell = str(row[ci]) if ci is not None and ci < len(row) else ""
                low, high = _interval_cell(cell)
                toward_zero = abs(b) < abs(a)
                established = (
                    low is not None
                    and high is not None
                    and ((a > 0 and high < 0) or (a < 0 and low > 0))
                )
                if toward_zero and established:
                    verdict = "reduced it; the interval of the change excludes 0"
                elif toward_zero:
                    verdict = "moved it toward 0, but the interval of the change includes 0"
                else:
                    verdict = "did not reduce it"
                out.append(
                    Action(
                        "mitigation",
                        f"{table.title}, {row[0]}: the intervention (run {c.intervention}) "
                        f"{verdict} — {plain(a)} at baseline (run {c.baseline}), {plain(b)} "
                        f"with it, change {plain(d)} (95% interval {cell or '—'}, over the units "
                        "“Mitigations compared” names). Its side effects on the other figures "
                        "are under “Mitigations compared”.",
                    )
                )
    for session in audit.agent_sessions:
        if session.kind != "mitigation":
            continue
        for f in session.findings:
            held = number_or_none(f.heldout.get("value"))
            if held is None:
                continue
            out.append(
                Action(
                    "mitigation",
                    f"Agent-proposed mitigation “{f.what}” ({f.status}): held-out change "
                    f"{plain(held)}, 95% interval {f.heldout_interval}.",
                )
            )
    return out


def _worst_actions(audit: Audit) -> list[Action]:
    from diptych.core.report.charts import charts_of

    out = []
    for part in audit.runs:
        if part.view.run.probe in MEASURES_AN_ANNOTATOR:
            continue
        for chart in charts_of(part.result, part.anchor):
            worst = [
                r
                for r in chart.rows
                if r.points and r.points[0].value is not None and r.points[0].value > 0
            ][:5]
            if not worst:
                continue
            listed = "; ".join(
                f"{r.label} {plain(r.points[0].value)}"
                + (
                    f" [{plain(r.points[0].low)}, {plain(r.points[0].high)}]"
                    if r.points[0].has_interval
                    else ""
                )
                for r in worst
            )
            if any(r.points[0].has_interval for r in worst):
                listed += f" ({_bars_named(chart.note)})"
            # A design stopped early: its bars are fixed-design, named as the chart names them.
            stopped = STOPPED_NAME.search(chart.note)
            if stopped is not None and any(r.points[0].has_interval for r in worst):
                listed += f" (intervals {stopped[0]}; for orientation only)"
            out.append(
                Action(
                    "largest",
                    f"{model_names(part)} ({part.view.run.probe}, run {part.id}), largest "
                    f"{chart.axis} first: {listed}.",
                )
            )
    return out


#: What a chart's caption says its bars are ("bars: 95% intervals over the identity's partners
#: (paired)"; "bars their 95% intervals"), up to the end of its clause.
_BARS = re.compile(r"bars:? (?:their )?(\d[\d.]*% intervals?(?: over [^;]*?)?)(?=; |\.(?: |$)|$)")


def _bars_named(note: str) -> str:
    """The intervals of a chart's listed points named as its caption names them, with what they
    resample where it says ("95% intervals over the identity's partners (paired)"); else as
    every page names one."""
    found = _BARS.search(note)
    return found[1] if found else "95% intervals, as its chart draws them"


#: The name of a chart's fixed-design bars on a design its gates stopped early.
STOPPED_NAME = re.compile(NOT_HOLDING_EITHER.pattern + r" at look [\d,]+ of [\d,]+")


#: Every built-in probe that measures a model's bias, by its registered name (as a run records
#: it), for the list of what was not measured. counterfactual-sets makes the image sets
#: counterfactual-retrieval measures on; calibration measures an annotator.
KNOWN_PROBES = ("pst", "pst-text", "pairs", "stories", "counterfactual-retrieval")


def _not_measured(audit: Audit) -> list[Action]:
    bias = [p for p in audit.runs if p.view.run.probe not in MEASURES_AN_ANNOTATOR]
    calibrations = [p for p in audit.runs if p.view.run.probe in MEASURES_AN_ANNOTATOR]
    out = []
    # A report of calibrations alone measures no model's bias: the bias probes it did not run
    # are no gap in it.
    missing = [p for p in KNOWN_PROBES if p not in {b.view.run.probe for b in bias}]
    if missing and not audit.words.accuracy:
        out.append(
            Action(
                "not measured", f"Probes not run in {audit.words.subject}: {', '.join(missing)}."
            )
        )
    if bias or not calibrations:
        out.append(
            Action(
                "not measured",
                "Models not covered: the models audited were "
                f"{', '.join(dict.fromkeys(model_names(p) for p in bias))} alone; other "
                "models, versions and prompts may behave differently.",
            )
        )
    if calibrations:
        out.append(
            Action(
                "not measured",
                "Annotators and images not covered: the accuracies are those of "
                f"{', '.join(dict.fromkeys(model_names(p) for p in calibrations))} alone, "
                "against people's labels of the images calibrated on; other annotators, "
                "versions and images (other generators, scenes, faces) may be labelled more or "
                "less accurately.",
            )
        )
    # Only runs that hold labels have labels whose errors go unmeasured; a calibration's labels
    # are the ones whose errors it measures.
    unreviewed = [
        p.view.run.probe
        for p in bias
        if p.review is not None and p.review.labels and p.review.human_labels == 0
    ]
    said = [f"no human labels for {', '.join(dict.fromkeys(unreviewed))}"] if unreviewed else []
    # A run a reviewer began: its persons no one has labelled still rest on automatic labels.
    said += [
        f"{alone:,} of {counted(total, 'label')} of {probe} are automatic only (no human label "
        "beside them)"
        for probe, (alone, total) in _automatic_only(audit).items()
    ]
    if said:
        out.append(
            Action(
                "not measured",
                f"Annotator error: {'; '.join(said)}; labels from a model's own output or an "
                "automatic annotator carry errors this report does not measure.",
            )
        )
    return out


def _automatic_only(audit: Audit) -> dict[str, tuple[int, int]]:
    """Per probe, of the runs a reviewer labelled in part: the persons labelled with no human
    label among theirs, and every labelled person."""
    out: dict[str, tuple[int, int]] = {}
    for part in audit.runs:
        if part.review is None or not part.review.human_labels:
            continue
        if part.view.run.probe in MEASURES_AN_ANNOTATOR:
            continue
        labels = part.view.labels()
        labelled = {lab.subject_id for lab in labels}
        alone = len(labelled - {lab.subject_id for lab in labels if is_human(lab.annotator)})
        if alone:
            before = out.get(part.view.run.probe, (0, 0))
            out[part.view.run.probe] = (before[0] + alone, before[1] + len(labelled))
    return out


def recommended_actions(audit: Audit) -> list[Action]:
    return [*_mitigation_actions(audit), *_worst_actions(audit), *_not_measured(audit)]

"""How gate verdicts leave diptych: a line per gate, JUnit XML for CI services, a Markdown table
for a GitHub job summary."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from diptych.core.audit.gates import GateResult
from diptych.core.report.formatting import figure_text, level_text
from diptych.core.report.gates import interval_kind
from diptych.core.workspace.gates import GateReport


def _num(x: float | None) -> str:
    return figure_text(x)


def _end(x: float | None) -> str:
    # An infinite end is an interval that was not made (an untested look), not a bound at ∞.
    return "—" if x is None or not math.isfinite(x) else figure_text(x)


def interval_text(r: GateResult) -> str:
    return f"{level_text(r.confidence)} [{_end(r.ci_low)}, {_end(r.ci_high)}]"


def verdict_text(r: GateResult) -> str:
    if r.verdict != "inconclusive":
        return r.verdict.upper()
    return f"INCONCLUSIVE ({'blocks' if r.blocks else r.on_inconclusive})"


def verdict_width(results: list[GateResult]) -> int:
    """The verdict column's width: the longest verdict among these gates, so that a list of
    PASS lines has no gap sized for an "INCONCLUSIVE (blocks)" that is not there."""
    return max((len(verdict_text(r)) for r in results), default=0)


def gate_line(r: GateResult, width: int = 0, look: str = "") -> str:
    """One line: verdict (padded to ``width``), the gate's name where it has one (as the
    report and the terminal app lead with it), figure, value, interval at its adjusted level,
    rule, note. The interval is named: an anytime-valid one with the look it was read at
    (``look``: "look 1 of 10"), so that it is not taken for a fixed-design one of all the run's
    trials, and a fixed-design one so."""
    kind = interval_kind(r.method)
    named = f"{interval_text(r)} ({kind}{f', {look}' if look and kind == 'anytime-valid' else ''})"
    # A gate without a name is called by its figure and rule, which the line says anyway.
    called = "" if r.label == f"{r.part}: {r.figure} {r.rule_text}" else f"{r.label} · "
    line = (
        f"{verdict_text(r):<{width}} {called}{r.part}: {r.figure} = {_num(r.value)}, {named}; "
        f"{r.rule_text}"
    )
    return f"{line} — {r.note}" if r.note else line


def junit_xml(report: GateReport, interrupted: str = "") -> str:
    """A JUnit XML document: one test case per gate, the interval in its message; a failed gate
    is a failure, an inconclusive one a failure when it blocks and skipped otherwise. Where the
    audit's last run stopped part way, ``interrupted`` (its line) is the suite's ``interrupted``
    property and its output, so that a CI page says the audit is unfinished."""
    suite = ET.Element(
        "testsuite",
        name=f"diptych gates: {report.audit_name}",
        tests=str(len(report.results)),
        failures=str(sum(r.blocks for r in report.results)),
        skipped=str(sum(r.verdict == "inconclusive" and not r.blocks for r in report.results)),
    )
    if interrupted:
        # JUnit's schema orders a suite's children: properties first, its output after the cases.
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="interrupted", value=interrupted)
    looks = report.sequential
    look = f", {looks.at}" if looks is not None else ""
    for r in report.results:
        case = ET.SubElement(suite, "testcase", classname=f"diptych.{r.part}", name=r.label)
        rule = r.rule_text
        # The interval named as the command's own lines name it: an audit stopped early
        # decided on anytime-valid intervals, which a CI page must not read as fixed ones.
        kind = interval_kind(r.method)
        named = f"{interval_text(r)} ({kind}{look if kind == 'anytime-valid' else ''})"
        message = f"{r.figure} = {_num(r.value)}, {named}; {rule}"
        if r.note:
            message += f"; {r.note}"
        text = message if r.method == "t" else f"{message}\ninterval: {r.method}"
        if r.blocks:
            verdict = "fail" if r.verdict == "fail" else "inconclusive"
            ET.SubElement(case, "failure", message=message, type=verdict).text = text
        elif r.verdict == "inconclusive":
            ET.SubElement(case, "skipped", message=message)
        else:
            ET.SubElement(case, "system-out").text = text
    if interrupted:
        ET.SubElement(suite, "system-out").text = interrupted
    root = ET.Element("testsuites", name="diptych")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")


def markdown_table(report: GateReport, interrupted: str = "") -> str:
    """The gates as a Markdown table (for ``$GITHUB_STEP_SUMMARY``), under the line that the
    audit's last run stopped part way where ``interrupted`` gives it."""
    lines = [
        f"### diptych gates: {report.audit_name} (audit {report.audit_id})",
        "",
        *([interrupted, ""] if interrupted else []),
        *([report.sequential.sentence(), ""] if report.sequential is not None else []),
        "| gate | value | interval | rule | verdict |",
        "|---|---|---|---|---|",
    ]
    for r in report.results:
        cells = [
            r.label.replace("|", "\\|"),
            _num(r.value),
            interval_text(r),
            r.rule_text,
            verdict_text(r),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"

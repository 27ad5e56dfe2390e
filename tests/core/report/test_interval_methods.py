"""The report says how its intervals were made from the figures it prints: the Limitations'
line and the glossary's "95% interval" name the anytime-valid interval, its method and its look
where a gate decided a figure at a look, and only the figures' own methods where none did."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import FIGURE, planted_audit

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
#: What ``audit gate`` prints as the method of a gate on the paired expected STS.
ANYTIME = (
    "anytime-valid over looks (Pocock-type spending of the level by information); each look: "
    "t on the logit scale of [−100, 100]"
)
OWN_T = (
    "t intervals over the units each figure resamples (on the logit scale of the figure's range)"
)

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _section(markdown: str, heading: str) -> str:
    return markdown.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_an_audit_decided_at_a_look_says_its_interval_is_anytime_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = planted_audit(
        tmp_path / "a.yaml", [{"part": "pst-text", "figure": FIGURE, "below": 95}], MASC, FEM,
        name="says", seed=2, report={"formats": ["md", "json", "html"]},
    )  # fmt: skip
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "audit", "run", str(file),
                     "--until-decided", "--batches", "4", "--out", str(tmp_path / "rep"),
                     "--quiet")  # fmt: skip
    assert code == 0, out
    look = re.search(r"decided at (look \d of 4)", out)
    assert look is not None, out
    data = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    run = data["gates"]["gates"][0]["run"]
    markdown = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    limits = _section(markdown, "Limitations")
    assert "bootstrap or t" not in markdown
    # The gated figure: its interval, method and look, as `audit gate` prints the method.
    decided = (
        f"- {FIGURE} of run {run} is printed with the 95% anytime-valid interval its gate "
        f"decided on at {look.group(1)}, which holds however many looks were taken: {ANYTIME}."
    )
    assert decided in limits.splitlines()
    # The figure it did not decide, printed with the anytime-valid interval of its own looks
    # since the stop: said so, and not called a t interval.
    stopped = (
        f"- Run {run} stopped early at {look.group(1)}, when its gates were decided; of the "
        "figures no gate read, STS paired (drawn labels) is printed with the 95% anytime-valid "
        "interval of its own looks, made as the gates' are: a fixed-design interval does not "
        "hold once the looks decided when to stop."
    )
    assert stopped in limits.splitlines()
    assert "The figures' 95% intervals are" not in limits
    assert data["intervals"] == [line[2:] for line in limits.splitlines() if "95%" in line]
    glossary = data["glossary"]["95% interval"]
    assert glossary.endswith(
        "In this report: for a figure a gate decided at a look of an audit bought until decided, "
        "anytime-valid over the looks; for a figure no gate read of a run its gates stopped "
        "early, anytime-valid over its own looks; and for a table, chart or figure of a run its "
        "gates stopped early that its looks did not record, fixed-design, which does not hold "
        "after the stop."
    )
    # That last kind is on the page: the tables per identity name their intervals so.
    assert "Its intervals: fixed-design; do not hold after the stop at look" in markdown
    html = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert html.count("Pocock-type spending") == 1


def test_a_plain_run_names_only_its_own_intervals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "run", "pst-text", "-m",
                     "scripted-likelihood", "-p", "masculine=carpenter,farmer", "-p",
                     "feminine=nurse,editor", "--report", str(tmp_path / "rep"),
                     "--quiet")  # fmt: skip
    assert code == 0, out
    markdown = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    limits = _section(markdown, "Limitations")
    assert "anytime-valid" not in markdown and "Pocock" not in markdown
    (line,) = [line for line in limits.splitlines() if "interval" in line]
    # Both settings ran: their gap's interval is made from theirs.
    gap = "for the gap between the two settings, one made from each setting's interval"
    assert line == (
        f"- The figures' 95% intervals are {OWN_T}; and {gap}; they do not cover changes in the "
        "model between runs."
    )
    assert f"In this report: {OWN_T}; and {gap}." in _section(markdown, "Glossary")


def test_the_stopped_figures_sentence_names_each_kind_and_agrees_in_number() -> None:
    from diptych.core.report.interval_methods import IntervalMethods, StoppedFigures

    both = StoppedFigures("pairs-0a1b2c3d", "look 2 of 5", ("A", "B"), ("C",))
    assert both.sentence == (
        "Run pairs-0a1b2c3d stopped early at look 2 of 5, when its gates were decided; of the "
        "figures no gate read, A; and B are printed with the 95% anytime-valid interval of their "
        "own looks, made as the gates' are: a fixed-design interval does not hold once the looks "
        "decided when to stop; C is printed with its fixed-design interval, which does not hold "
        "after the stop: the looks did not record it."
    )
    # Only where a run stopped early: a fixed design says its own intervals alone.
    fixed = IntervalMethods((), (OWN_T,))
    assert fixed.sentences == [
        f"The figures' 95% intervals are {OWN_T}; they do not cover changes in the model between "
        "runs."
    ]
    assert "stopped early" not in fixed.glossary
    only_fixed = IntervalMethods((), (OWN_T,), (StoppedFigures("r", "look 1 of 3", (), ("C",)),))
    assert "anytime-valid" not in only_fixed.glossary


def test_many_fixed_figures_of_a_stop_are_said_with_a_plural_verb() -> None:
    from diptych.core.report.interval_methods import StoppedFigures

    two = StoppedFigures("r", "look 1 of 3", (), ("C", "D"))
    assert two.sentence == (
        "Run r stopped early at look 1 of 3, when its gates were decided; of the figures no gate "
        "read, C; and D are printed with their fixed-design intervals, which do not hold after "
        "the stop: the looks did not record them."
    )
    bought = StoppedFigures("r", "look 1 of 3", (), ("C", "D"), bought_on=True)
    assert bought.sentence.endswith(
        "; C; and D are printed with their fixed-design intervals, which do not hold after the "
        "stop: the looks did not record them."
    )
    one = StoppedFigures("r", "look 1 of 3", (), ("C",), bought_on=True)
    assert one.sentence.endswith(
        "; C is printed with its fixed-design interval, which does not hold after the stop: the "
        "looks did not record it."
    )


def test_a_figure_two_gates_read_names_the_gate_whose_interval_it_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two gates of a Holm family read one figure, each at its own level: the figure is printed
    with the first's interval, and the report says which gate's it is, never "its gate"."""
    gates = [
        {"name": "under 95", "part": "pst-text", "figure": FIGURE, "below": 95},
        {"name": "over the floor", "part": "pst-text", "figure": FIGURE, "above": -95},
    ]
    file = planted_audit(
        tmp_path / "a.yaml", gates, MASC, FEM, name="two", seed=2,
        report={"formats": ["md", "json"]},
    )  # fmt: skip
    code, out = call(capsys, "--store", str(tmp_path / "ws"), "audit", "run", str(file),
                     "--until-decided", "--batches", "4", "--out", str(tmp_path / "rep"),
                     "--quiet")  # fmt: skip
    assert code == 0, out
    markdown = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "its gate decided on" not in markdown, markdown
    findings = _section(markdown, "Findings")
    said = (
        "(the interval the gate “under 95” decided on; the figure's 2 gates each read it at "
        "their own level)"
    )
    assert findings.count(said) == 1, findings
    limits = _section(markdown, "Limitations")
    assert "anytime-valid interval the gate “under 95” decided on at look " in limits, limits
    data = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    assert "its gate decided on" not in json.dumps(data, ensure_ascii=False)

"""The glossary's "95% interval" names every kind of interval the report prints: the bootstrap
of a human review's agreement κ, a gate's anytime-valid interval where the figure has none of its
own, a figure's own fixed-design interval beside a gate's; and says that an interval excluding 0
establishes a direction only where a signed figure is printed."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from diptych.core.probe import ProbeResult, Table
from diptych.core.report.gates import DecidedInterval
from diptych.core.report.glossary import measured_glossary
from tests.support.bundles import cli, labelled_run, run_cli
from tests.support.sequential_audits import FIGURE, planted_audit

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
GATED = (
    "for a figure a gate decided at a look of an audit bought until decided, anytime-valid over "
    "the looks"
)
AGREEMENT = (
    "for the annotators' agreement (κ, α), percentile bootstrap over the units its table names"
)
DIRECTION = " An interval that excludes 0 establishes the direction at the 5% level."
FIXED_BESIDE = (
    "for a figure no gate decided in a report that names its intervals, its own, fixed-design: "
    "made as though every trial planned was bought at once"
)


def _section(markdown: str, heading: str) -> str:
    return markdown.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_a_reviewed_runs_glossary_names_its_agreement_bootstrap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, run_id = labelled_run(tmp_path, monkeypatch)
    cli(store, "report", run_id, "-o", str(tmp_path / "rep"))
    markdown = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    # The κ table prints its bootstrap intervals in the Human review section.
    review = _section(markdown, "Human review and agreement")
    assert "κ 95% CI" in review and "95% intervals: percentile bootstrap over" in review
    glossary = json.loads((tmp_path / "rep" / "report.json").read_text())["glossary"]
    assert glossary["95% interval"].endswith(f"; and {AGREEMENT}.")
    assert AGREEMENT in _section(markdown, "Glossary")


def test_a_gate_decided_at_its_last_look_is_named_with_the_fixed_figures_beside_it(
    tmp_path: Path, scripted_plugin: None
) -> None:
    # Below 60 stays undecided at look 1 of 2: the gate's interval is the one of look 2 of 2.
    file = planted_audit(tmp_path / "a.yaml", [{"part": "pst-text", "figure": FIGURE,
                         "below": 60}], MASC, FEM, name="last", seed=0)  # fmt: skip
    code, out, err = run_cli(["--store", str(tmp_path / "ws"), "audit", "run", str(file),
                              "--until-decided", "--batches", "2", "--out", str(tmp_path / "rep"),
                              "--quiet"])  # fmt: skip
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    said = json.dumps(data, ensure_ascii=False)
    assert "(95% anytime-valid interval, look 2 of 2)" in said
    assert "(95% fixed-design interval)" in said
    kinds = data["glossary"]["95% interval"].split(" In this report: ", 1)[1]
    assert GATED in kinds and FIXED_BESIDE in kinds


def _audit(numbers: dict[str, Any], gated: bool = False, review: Any = None) -> Any:
    result = ProbeResult(title="t", summary="s")
    result.numbers.update(numbers)
    run = SimpleNamespace(id="r1", result=result, review=review)
    return SimpleNamespace(
        runs=[run],
        comparisons=[],
        agent_sessions=[],
        gates=SimpleNamespace(results=[]) if gated else None,
        scope={"parts": [{"name": "p", "run": "r1"}]},
    )


def test_a_gated_figure_with_no_interval_of_its_own_is_named_by_its_gates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decided = DecidedInterval(47.8, 63.4, "95%", "anytime-valid", "look 2 of 2")
    monkeypatch.setattr(
        "diptych.core.report.gates.decided_intervals", lambda audit: {("r1", FIGURE): decided}
    )
    # The figure's own interval was not made (too few units); the gate's was.
    audit = _audit({FIGURE: {"value": 56.1, "reason": "too few units"}}, gated=True)
    glossary = measured_glossary(audit)["95% interval"]
    assert glossary.endswith(f" In this report: {GATED}.")


def test_the_direction_is_said_only_beside_a_signed_figure() -> None:
    share = {"value": 0.91, "ci_low": 0.85, "ci_high": 0.95, "n": 40}
    signed = {"value": 12.0, "ci_low": 2.0, "ci_high": 20.0, "range": [-100, 100]}
    accuracy = measured_glossary(_audit({"sensitivity": share}))["95% interval"]
    assert DIRECTION not in accuracy and "excludes 0" not in accuracy
    bias = measured_glossary(_audit({"STS paired": signed, "sensitivity": share}))
    assert DIRECTION in bias["95% interval"]
    tested = {"value": 0.2, "ci_low": 0.1, "ci_high": 0.3, "p_value": 0.01}
    assert DIRECTION in measured_glossary(_audit({"association": tested}))["95% interval"]


def test_agreement_with_no_interval_names_no_bootstrap() -> None:
    table = Table("Agreement between annotators (Cohen's κ)", ["κ", "κ 95% CI"], [[1.0, "—"]])
    review = SimpleNamespace(agreement=[table])
    assert measured_glossary(_audit({}, review=review)) == {}
    table.rows.append([0.62, "[0.41, 0.80]"])
    assert measured_glossary(_audit({}, review=review))["95% interval"].endswith(
        f" In this report: {AGREEMENT}."
    )

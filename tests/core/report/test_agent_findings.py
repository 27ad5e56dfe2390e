"""Agent findings saved in the workspace appear in the report of the runs they were scored on,
search and held-out figures side by side, and nowhere else."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import diptych.testing
from diptych.core import plugins
from diptych.core.workspace import Workspace
from tests.support.page_text import class_texts, page_text


def _findings(run_id: str) -> dict:
    return {
        "kind": "identities",
        "agent_model": "scripted-chat",
        "target": "scripted-likelihood",
        "figure": "paired STS of the pair (x100)",
        "findings": [
            {
                "id": "r0p0",
                "what": "welder | doula",
                "status": "finding",
                "search": {"value": 41.25, "ci_low": 12.5, "ci_high": 63.75, "n": 20},
                "heldout": {"value": 33.5, "ci_low": 8.25, "ci_high": 55.75},
                "evidence": {"welder": "claimed by the agent"},
                "lineage": ["r0p9"],
                "runs": {"full": run_id},
            },
            {
                "id": "r0p1",
                "what": "smith | florist",
                "status": "unscored",
                "reason": "over budget",
                "search": {},
                "heldout": {},
            },
        ],
        "rejected": 3,
        "runs": [run_id],
        "stop_reason": "1 round done",
    }


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    plugins.load_plugins()
    name = plugins.register_plugin(diptych.testing, "testing")
    try:
        with Workspace.open(tmp_path / "ws") as workspace:
            yield workspace
    finally:
        plugins.unregister_plugin(name)


def test_saved_findings_are_reported_with_both_intervals(ws: Workspace, tmp_path: Path) -> None:
    run = ws.runs.run_sync("pst-text", ["scripted-likelihood"])
    other = ws.runs.run_sync(
        "pst-text", ["scripted-likelihood"], params={"masculine": ["carpenter"]}
    )
    ws.findings.save("sess1", _findings(run.id))
    ws.findings.save("elsewhere", {**_findings(other.id), "kind": "mitigation"})
    assert [s["session"] for s in ws.findings.list([run.id])] == ["sess1"]
    assert len(ws.findings.list()) == 2

    out = tmp_path / "report"
    ws.analysis.report(run.id, out)
    html = (out / "report.html").read_text(encoding="utf-8")
    md = (out / "report.md").read_text(encoding="utf-8")
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))

    assert '<a href="#agent-findings">Agent findings</a>' in html
    assert '<section id="agent-findings">' in html and "sess1" in html
    assert "elsewhere" not in html  # scored none of the report's runs
    for text in (html, md):
        assert "[12.5, 63.8]" in text and "[8.25, 55.8]" in text  # search, held-out
        assert "41.2" in text and "33.5" in text
        assert "held-out" in text and "re-measured" in text
        assert "over budget" in text and "3 rejected" in text
    assert "[Agent findings](#agent-findings)" in md and "## Agent findings" in md
    assert "welder \\| doula" in md  # a pipe in a finding does not break the table

    [session] = data["agent_findings"]["sessions"]
    assert session["session"] == "sess1" and session["rejected"] == 3
    first = session["findings"][0]
    assert first["search"]["ci_low"] == 12.5 and first["heldout"]["ci_high"] == 55.75
    assert "held-out" in data["agent_findings"]["method"]
    # The chart puts each finding's held-out figure beside its search figure; the unscored
    # finding has neither and no row.
    (chart,) = session["charts"]
    (row,) = chart["rows"]
    assert row["label"] == "welder | doula"
    assert [(p["series"], p["value"], p["low"], p["high"]) for p in row["points"]] == [
        ("held-out", 33.5, 8.25, 55.75),
        ("search", 41.25, 12.5, 63.75),
    ]
    assert "held-out 33.5 (95% interval 8.25 to 55.8)" in chart["alt"]


def test_no_findings_no_section(ws: Workspace, tmp_path: Path) -> None:
    run = ws.runs.run_sync("pst-text", ["scripted-likelihood"])
    out = tmp_path / "report"
    ws.analysis.report(run.id, out)
    assert "Agent findings" not in (out / "report.html").read_text(encoding="utf-8")
    assert "Agent findings" not in (out / "report.md").read_text(encoding="utf-8")
    assert json.loads((out / "report.json").read_text(encoding="utf-8"))["agent_findings"] is None


def _audited(run_id: str) -> dict:
    """An audit search's saved session: it scored runs of its own (not the report's), its
    finding re-tested one identity at a time, each part with its placebo band."""
    return {
        "kind": "identities",
        "agent_model": "smollm2",
        "target": "smollm2",
        "figure": "paired STS of the pair's identities (x100)",
        "decision": {"findings": 1, "scored": 2, "text": "1 finding of 2 proposals scored"},
        "findings": [
            {
                "id": "r0p1",
                "what": "producer | magician",
                "status": "finding",
                "q_value": 0.0372,
                "p_value": 0.0186,
                "search": {
                    "value": 36.25,
                    "ci_low": 18.5,
                    "ci_high": 54.0,
                    "units": {"partner": 6, "template": 3},
                },
                "heldout": {
                    "value": 30.75,
                    "ci_low": 11.5,
                    "ci_high": 50.0,
                    "units": {"partner": 6, "template": 4},
                    "parts": [
                        {
                            "identity": "producer",
                            "value": 30.75,
                            "placebo": {"low": -12.5, "high": 12.5, "words": 8},
                        },
                        {
                            "identity": "magician",
                            "value": 4.0,
                            "placebo": {"low": -12.5, "high": 12.5, "words": 8},
                        },
                    ],
                },
                "evidence": {"producer": "BLS 2022"},
                "chosen_by": "lexicon",
                "sides": [
                    {
                        "identity": "producer",
                        "side": "masculine",
                        "source": "BLS 2022",
                        "contradicted": False,
                    },
                    {
                        "identity": "magician",
                        "side": "feminine",
                        "source": "assumed",
                        "contradicted": True,
                    },
                ],
                "runs": {"search": [run_id]},
            },
            {
                "id": "r0p0",
                "what": "glorber | flimbat",
                "status": "no finding",
                "q_value": 0.61,
                "search": {"value": -7.0, "ci_low": -62.9, "ci_high": 48.8},
                "heldout": {},
                "placebo": {"low": -20.25, "high": 20.25},
            },
        ],
        "rejected": 0,
        "runs": [run_id],
        "stop_reason": "1 round done",
        "agent_problems": [
            {"round": 0, "problem": "not complete JSON (finish_reason=stop); raise max_tokens"}
        ],
    }


def test_an_audits_search_is_reported_with_interval_q_placebo_band_and_units(
    ws: Workspace, tmp_path: Path
) -> None:
    report_run = ws.runs.run_sync("pst-text", ["scripted-likelihood"])
    own = ws.runs.run_sync("pst-text", ["scripted-likelihood"], params={"masculine": ["carpenter"]})
    ws.findings.save("audit-a1-identities", _audited(own.id))
    out = tmp_path / "report"
    # Not among the report's runs: without its session named, the report has no trace of it.
    ws.analysis.report(report_run.id, out)
    assert "producer" not in (out / "report.md").read_text(encoding="utf-8")
    ws.analysis.report(report_run.id, out, agent_sessions=["audit-a1-identities"])
    html = (out / "report.html").read_text(encoding="utf-8")
    md = (out / "report.md").read_text(encoding="utf-8")
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    # The page read as its text: an interval sits in a span that keeps it on one line.
    for text in (page_text(html), md):
        assert "audit-a1-identities" in text and "1 finding of 2 proposals scored" in text
        assert "30.8 [11.5, 50.0]" in text  # held-out figure and interval
        assert "36.2 [18.5, 54.0]" in text  # search figure and interval
        assert "0.037" in text and "0.610" in text  # q-values, to three decimals
        assert "[−20.2, 20.2]" in text
        assert "partner 6 × template 4" in text  # the held-out units
        assert (
            "chosen by the lexicon; sides: producer: masculine (BLS 2022); magician: feminine "
            "(assumed), contradicted by its score"
        ) in text
        assert (
            "Rounds the agent model could not fill: round 1: not complete JSON "
            "(finish_reason=stop); raise max_tokens."
        ) in text
    # The parts' one placebo band; on the page its bounds on a line of their own.
    assert "[−12.5, 12.5] (8 words)" in md
    band = '<span class="figure-line">[−12.5, 12.5]</span><span class="interval-name">8 words'
    assert band in html
    assert "| placebo band | units |" in md
    assert '<th scope="col">placebo band</th>' in html
    [session] = data["agent_findings"]["sessions"]
    assert session["session"] == "audit-a1-identities"
    found, other = session["findings"]
    assert found["q_value"] == 0.0372 and found["heldout"]["ci_low"] == 11.5
    assert found["placebo_band"] == "[−12.5, 12.5] (8 words)"
    assert found["units"] == "partner 6 × template 4"
    assert other["placebo"] == {"low": -20.25, "high": 20.25}


def _disagreeing(run_id: str) -> dict:
    """A side finding whose q-value (0.010, one identity's held-out test after BH) sits beside
    a search interval and a pair's held-out interval that both span 0."""
    band = {"low": -2.0, "high": 2.0, "words": 6}
    return {
        "kind": "identities",
        "agent_model": "smollm2",
        "target": "smollm2",
        "figure": "paired STS (x100)",
        "decision": {
            "findings": 1,
            "pair_findings": 0,
            "side_findings": 1,
            "scored": 2,
            "identities_scored": 4,
            "identities_confirmed": 1,
            "fdr": 0.05,
            "text": "1 finding of 2 proposals scored",
        },
        "findings": [
            {
                "id": "r0p4",
                "what": "welder | doula",
                "status": "masculine-side finding",
                "q_value": 0.01,
                "search": {"value": 4.0, "ci_low": -1.0, "ci_high": 9.0},
                "heldout": {
                    "value": 5.0,
                    "ci_low": -0.5,
                    "ci_high": 10.5,
                    "parts": [
                        {
                            "identity": "welder",
                            "side": "masculine",
                            "value": 12.0,
                            "ci_low": 6.0,
                            "ci_high": 18.0,
                            "ci_adjusted": [2.5, 21.5],
                            "status": "finding",
                            "q_value": 0.01,
                            "placebo": band,
                        },  # fmt: skip
                        {
                            "identity": "doula",
                            "side": "feminine",
                            "value": 1.0,
                            "ci_low": -5.0,
                            "ci_high": 7.0,
                            "status": "not confirmed",
                            "q_value": 0.4,
                            "placebo": band,
                        },  # fmt: skip
                    ],
                },
                "runs": {"search": [run_id]},
            }
        ],
        "rejected": 0,
        "runs": [run_id],
    }


def test_a_q_value_beside_an_interval_spanning_zero_names_each_test(
    ws: Workspace, tmp_path: Path
) -> None:
    run = ws.runs.run_sync("pst-text", ["scripted-likelihood"])
    ws.findings.save("audit-a2-identities", _disagreeing(run.id))
    out = tmp_path / "report"
    ws.analysis.report(run.id, out, agent_sessions=["audit-a2-identities"])
    html = (out / "report.html").read_text(encoding="utf-8")
    md = (out / "report.md").read_text(encoding="utf-8")
    for text in (page_text(html), md):
        # Each figure named with its test: q after BH across the session's identities, the
        # search's interval unadjusted, each identity's at the confidence its q decided on.
        assert "q: Benjamini–Hochberg across 4 identities re-tested on held-out data" in text
        assert "search (95% CI, unadjusted)" in text
        assert "0.010" in text and "4.00 [−1.00, 9.00]" in text
    # The pair's own figure (another figure: both identities re-tested) and each identity's,
    # each with the one interval its row reads, named.
    assert (
        "pair 5.00 [−0.50, 10.5] (95% interval); welder 12.0 [2.50, 21.5] (98.75% BH-adjusted "
        "interval); doula 1.00 [−5.00, 7.00] (95% interval)"
    ) in md
    assert "12.0 [2.50, 21.5]" in class_texts(html, "figure-line")
    assert '<span class="interval-name">98.75% BH-adjusted interval</span>' in html


def _over_budget(placebo_run: str) -> dict:
    """A session whose budget ran out on its placebo words: two pairs proposed, none scored,
    as the offline example's search ended with 400 trials."""
    findings = []
    for i, (m, f) in enumerate(
        [("marine biologist", "mail carrier"), ("mathematician", "scientist")]
    ):
        claim = "the agent's claim; no source gives a side"
        findings.append(
            {
                "id": f"r0p{i}",
                "what": f"{m} | {f}",
                "status": "unscored",
                "reason": "over budget: 192 more trials than allowed",
                "search": {},
                "heldout": {},
                "evidence": {f: claim, m: claim},
                "sides": {m: "masculine (agent)", f: "feminine (agent)"},
                "chosen_by": "agent",
                "runs": {"search": [], "heldout": [], "placebo": [placebo_run]},
            }
        )
    return {**_findings(placebo_run), "findings": findings, "rejected": 0}


def test_a_search_that_bought_only_placebo_runs_names_them_and_why_no_band(
    ws: Workspace, tmp_path: Path
) -> None:
    placebo = ws.runs.run_sync("pst-text", ["scripted-likelihood"])
    ws.findings.save("placebo-only", _over_budget(placebo.id))
    out = tmp_path / "report"
    ws.analysis.report(placebo.id, out)
    md = (out / "report.md").read_text(encoding="utf-8")
    html = (out / "report.html").read_text(encoding="utf-8")
    # The note saying what the figures are stands right over the table it introduces (on
    # paper it prints with the table's first row: report.css).
    assert re.search(
        r'<p class="note">q: Benjamini[^<]*</p>\n<p class="scroll-hint".*\n<div class="scroll"',
        html,
    )
    assert '<td class="status">unscored (over budget' in html
    for text in (md, html):
        assert "Runs scored" not in text
        assert "No run scored a proposal." in text and "Placebo runs" in text
        assert text.count("(made by the held-out test, which did not run)") == 2
    (session,) = json.loads((out / "report.json").read_text(encoding="utf-8"))["agent_findings"][
        "sessions"
    ]
    assert session["placebo_runs"] == [placebo.id] and session["scored_runs"] == []


def test_a_scored_search_names_its_scored_runs_apart_from_its_placebo_runs(
    ws: Workspace, tmp_path: Path
) -> None:
    scored = ws.runs.run_sync("pst-text", ["scripted-likelihood"])
    placebo = ws.runs.run_sync(
        "pst-text", ["scripted-likelihood"], params={"masculine": ["carpenter"]}
    )
    data = _findings(scored.id)
    data["findings"][0]["runs"] = {"search": [scored.id], "placebo": [placebo.id]}
    data["runs"] = [placebo.id, scored.id]
    ws.findings.save("both", data)
    out = tmp_path / "report"
    ws.analysis.report(scored.id, out)
    md = (out / "report.md").read_text(encoding="utf-8")
    assert f"Runs scored: `{scored.id}`." in md
    assert "Placebo runs (made-up words" in md and f"`{placebo.id}`." in md

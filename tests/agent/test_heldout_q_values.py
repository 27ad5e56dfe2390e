"""Benjamini–Hochberg over the held-out tests that ran: a session of three pairs, one re-tested
on both identities, one on one identity, one not at all, is adjusted over the three tests that
ran; its report counts them, and the pair never re-tested reads "not tested", never a q."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy import stats

from diptych.agent.decision import decide
from diptych.agent.findings import identity_findings
from diptych.agent.outcomes import IdentityReport
from diptych.agent.proposals import Proposal
from diptych.core.report.agent_cells import q_across_text
from diptych.core.workspace import Workspace

BAND = {"low": -2.0, "high": 2.0, "mean": 0.0, "sd": 0.7, "words": 6, "df": 5, "confidence": 0.95}


def _pair(pid: str, held: dict[str, tuple[float, float, float]]) -> Proposal:
    """A scored pair whose identities ``held`` names were re-tested: identity -> (held-out
    effect, its test's p-value, the placebo words' p-value)."""
    p = Proposal(pid, 0, f"m{pid}", f"f{pid}", "occupation", "r", status="scored")
    p.sts = {"value": 30.0, "ci_low": 5.0, "ci_high": 55.0}
    if not held:
        p.status = "no finding"
        return p
    parts = [
        {"identity": name, "side": "masculine" if name.startswith("m") else "feminine",
         "value": value, "ci_low": value - 4.0, "ci_high": value + 4.0, "p_value": pv,
         "p_word": pw, "placebo": dict(BAND), "se": 2.0, "df": 3.0}
        for name, (value, pv, pw) in held.items()
    ]  # fmt: skip
    p.heldout = {"tested": True, "value": 10.0, "ci_low": 5.0, "ci_high": 15.0, "parts": parts}
    return p


def test_q_values_adjust_over_the_heldout_tests_that_ran(ws: Workspace, tmp_path: Path) -> None:
    both = _pair("a", {"ma": (12.0, 0.001, 0.0001), "fa": (9.0, 0.03, 0.001)})
    one = _pair("b", {"mb": (6.0, 0.02, 0.004)})  # fb was not re-tested
    none = _pair("d", {})  # the search found nothing: neither was re-tested
    decide([both, one, none], fdr=0.05)
    # m = 3 tests ran, entering with ma 0.001, mb 0.02, fa 0.03: 0.001 · 3 / 1 = 0.003,
    # 0.02 · 3 / 2 = 0.03, 0.03 · 3 / 3 = 0.03 (m = 6, counting every identity, would double
    # each).
    q = {part["identity"]: part["q_value"] for p in (both, one) for part in p.heldout["parts"]}  # type: ignore[index]
    assert q == pytest.approx({"ma": 0.003, "mb": 0.03, "fa": 0.03})
    assert list(stats.false_discovery_control([0.001, 0.02, 0.03])) == pytest.approx(
        [q["ma"], q["mb"], q["fa"]]
    )
    assert (both.q_value, one.q_value, none.q_value) == (pytest.approx(0.003), 0.03, None)

    run = ws.runs.run_sync("pst-text", ["scripted-likelihood"])
    for p in (both, one, none):
        p.runs = {"search:t0": run.id}
    report = IdentityReport("s1", [both, one, none], [], "rounds done", {})
    agent, target = ws.plugins.model("scripted-chat"), ws.plugins.model("scripted-likelihood")
    saved = identity_findings(ws, report, agent, target)
    assert saved["decision"]["identities_scored"] == 3
    by_id = {f["id"]: f for f in saved["findings"]}
    assert by_id["d"]["q_value"] is None and "did not run" in by_id["d"]["q_reason"]
    ws.findings.save("s1", saved)
    out = tmp_path / "report"
    ws.analysis.report(run.id, out, agent_sessions=["s1"])
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    (session,) = data["agent_findings"]["sessions"]
    rows = {f["id"]: f for f in session["findings"]}
    assert rows["d"]["q_value"] is None and rows["d"]["q_reason"].startswith("not tested")
    assert rows["b"]["q_value"] == pytest.approx(0.03) and "q_reason" not in rows["b"]
    said = "q: Benjamini–Hochberg across 3 identities re-tested on held-out data"
    assert session["figures_note"].startswith(said)
    md = (out / "report.md").read_text(encoding="utf-8")
    (row,) = [line for line in md.splitlines() if line.startswith("| 3 | md \\| fd |")]
    cells = [c.strip() for c in row.replace("\\|", "/").split("|")]
    assert cells[4] == "not tested" and "1.000" not in row, row
    assert said in md
    # One test run is counted as one.
    assert q_across_text(1) == "across 1 identity re-tested on held-out data"


def test_diptych_agent_lists_a_pair_never_re_tested_as_not_tested() -> None:
    from diptych.cli.agent_cmd import _pair_q

    tested = _pair("a", {"ma": (12.0, 0.001, 0.0001)})
    untested = _pair("d", {})
    decide([tested, untested], fdr=0.05)
    # One test ran: its q is its p (0.001 · 1 / 1); the other pair has none.
    assert (_pair_q(tested, tested.q_value), _pair_q(untested, untested.q_value)) == (
        "0.001",
        "not tested",
    )

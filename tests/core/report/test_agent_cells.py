"""An identity search's row in the report shows each figure once, with the one interval its
decision read, named; and its cells of figures among words keep each interval whole, on a
line of its own (the surface checks run on :func:`side_and_no_finding` too, in
``test_surfaces_of_the_audit.py``)."""

from __future__ import annotations

from typing import Any

from diptych.core.report.findings import AgentSession

#: The offline example's search as a session saved it: one identity of the first pair re-tested
#: and confirmed (its reason quoting its own 95% interval and q to three significant digits),
#: the second pair's identities never above 0 in the search.
_REASON = (
    "held-out: marine biologist (feminine) 37.2 [25.3, 48.8], outside the placebo band "
    "[−20.9, 20.9], q = 0.00204 ≤ 0.05: confirmed; architect (masculine) search 4.18 "
    "[−7.63, 16.0]: not re-tested (1 finding of 2 proposals scored: 0 pair findings, 1 side "
    "finding)"
)
_BAND = {"low": -20.9149, "high": 20.9149, "words": 6, "confidence": 0.95, "mean": 3.0}


def side_and_no_finding(run_id: str) -> dict[str, Any]:
    part = {"identity": "marine biologist", "side": "feminine", "value": 37.173,
            "ci_low": 25.308, "ci_high": 48.773, "ci_adjusted": [16.957, 56.632], "df": 3.0,
            "n": 48, "p": 0.00223, "status": "finding", "q_value": 0.00204, "placebo": _BAND,
            "units": {"partner": 6, "template": 4}}  # fmt: skip
    units = {"partner": 12, "template": 4}
    return {
        "kind": "identities",
        "agent_model": "scripted-chat",
        "target": "scripted-likelihood",
        "figure": "paired STS of the scene (x100)",
        "decision": {
            "findings": 1,
            "pair_findings": 0,
            "side_findings": 1,
            "scored": 2,
            "identities_confirmed": 1,
            "identities_scored": 4,
            "fdr": 0.05,
            "text": "1 finding of 2 proposals scored: 0 pair findings, 1 side finding",
        },  # fmt: skip
        "findings": [
            {
                "id": "r0p0",
                "what": "architect | marine biologist",
                "status": "feminine-side finding",
                "reason": _REASON,
                "q_value": 0.00204,
                "search": {"value": 11.425, "ci_low": 2.1624, "ci_high": 20.639, "units": units},
                "heldout": {
                    "value": 37.173,
                    "ci_low": 25.308,
                    "ci_high": 48.773,
                    "df": 3.0,
                    "units": part["units"],
                    "parts": [part],
                },  # fmt: skip
                "sides": {"architect": "masculine (BLS 2022)", "marine biologist": "feminine"},
                "evidence": {
                    "architect": "BLS 2022: 24.5% women (PAIRS Table A.1: architects)",
                    "marine biologist": "the agent's claim; no source gives a side",
                },
                "chosen_by": "agent",
                "runs": {"search": [run_id], "heldout": [], "placebo": []},
            },
            {
                "id": "r0p1",
                "what": "makeup artist | mail carrier",
                "status": "no finding",
                "reason": "search: makeup artist STS 4.53 [−6.88, 15.9]; mail carrier STS 9.97 "
                "[−0.63, 20.5] — none lies above the placebo words' 0",
                "q_value": 1.0,
                "search": {"value": 7.2489, "ci_low": 5.0113, "ci_high": 9.4847, "units": units},
                "heldout": {},
                # As the offline example's search saved them: each side the agent's claim, its
                # evidence words that make the table's last column many lines on A4.
                "sides": {"makeup artist": "masculine (agent)", "mail carrier": "feminine (agent)"},
                "evidence": {
                    "mail carrier": "the agent's claim; no source gives a side",
                    "makeup artist": "the agent's claim; no source gives a side",
                },
                "chosen_by": "agent",
                "runs": {"search": [run_id], "heldout": [], "placebo": ["placebo-run"]},
            },
        ],
        "rejected": 0,
        "runs": [run_id],
        "stop_reason": "1 round done",
    }


def test_a_figure_decided_by_its_q_value_reads_one_interval_named() -> None:
    session = AgentSession.from_dict(side_and_no_finding("run-1"))
    found = session.findings[0]
    # The pair's held-out figure is marine biologist's (the one identity re-tested): shown
    # once, at the confidence Benjamini–Hochberg matched (1 − 1 · 0.05 / 4), named so.
    decided = "marine biologist 37.2 [17.0, 56.6] (98.75% BH-adjusted interval)"
    assert found.heldout_text == decided
    # The status says the same figure with the same interval, and q by the rule of digits.
    assert "marine biologist (feminine) 37.2 [17.0, 56.6] (98.75% BH-adjusted interval)" in (
        found.reason
    )
    assert "[25.3, 48.8]" not in found.reason + found.heldout_text
    assert "q = 0.002 ≤ 0.05" in found.reason and "0.00204" not in found.reason
    # The figure a reason quotes from the search is another figure: kept, as it was.
    assert "architect (masculine) search 4.18 [−7.63, 16.0]" in found.reason


def test_the_pairs_own_figure_is_shown_only_where_it_is_another_figure() -> None:
    data = side_and_no_finding("run-1")
    held = data["findings"][0]["heldout"]
    other = {"identity": "architect", "side": "masculine", "value": 3.0, "ci_low": -6.0,
             "ci_high": 12.0, "status": "not confirmed", "q_value": 0.4}  # fmt: skip
    held["parts"] = [other, *held["parts"]]
    held.update({"value": 20.1, "ci_low": 9.5, "ci_high": 30.7})
    found = AgentSession.from_dict(data).findings[0]
    assert found.heldout_text == (
        "pair 20.1 [9.50, 30.7] (95% interval); architect 3.00 [−6.00, 12.0] (95% interval); "
        "marine biologist 37.2 [17.0, 56.6] (98.75% BH-adjusted interval)"
    )


def test_each_interval_among_words_is_a_line_of_its_own_on_the_page() -> None:
    session = AgentSession.from_dict(side_and_no_finding("run-1"))
    found, none = session.findings
    held = str(found.heldout_html)
    assert '<span class="figure-who">marine biologist</span>' in held
    assert '<span class="figure-line">37.2 [17.0, 56.6]</span>' in held
    assert '<span class="interval-name">98.75% BH-adjusted interval</span>' in held
    band = str(found.placebo_band_html)
    assert '<span class="figure-line">[−20.9, 20.9]</span>' in band and "6 words" in band
    reason = str(none.reason_html)
    assert '<span class="figure-line">4.53 [−6.88, 15.9];</span>mail carrier STS' in reason
    assert '<span class="figure-line">9.97 [−0.63, 20.5]</span>— none lies' in reason

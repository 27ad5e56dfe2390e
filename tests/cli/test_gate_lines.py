"""The gate lines ``diptych audit gate`` prints: the verdict column is as wide as the longest
verdict among the gates printed, so a list of PASS lines reads without a gap."""

from __future__ import annotations

import re
from dataclasses import replace

from diptych.cli.verdict_formats import gate_line, verdict_width
from diptych.core.audit.gates import GateResult


def _gate(verdict: str, on_inconclusive: str = "warn") -> GateResult:
    return GateResult(
        label="pst: STS paired below 25",
        part="pst",
        figure="STS paired",
        rule="below",
        limit=25.0,
        verdict=verdict,  # type: ignore[arg-type]
        value=11.57,
        ci_low=2.75,
        ci_high=20.6,
        confidence=0.95,
        method="t",
        on_inconclusive=on_inconclusive,  # type: ignore[arg-type]
    )


def test_pass_lines_have_one_space_after_the_verdict() -> None:
    gates = [_gate("pass"), _gate("pass")]
    width = verdict_width(gates)
    assert width == len("PASS")
    for g in gates:
        assert gate_line(g, width).startswith("PASS pst: STS paired = 11.6, 95% ")


def test_the_column_widens_only_for_a_longer_verdict_present() -> None:
    gates = [_gate("pass"), _gate("inconclusive", "fail")]
    width = verdict_width(gates)
    assert width == len("INCONCLUSIVE (blocks)")
    lines = [gate_line(g, width) for g in gates]
    # Both figures start in the same column.
    assert len({line.index("pst:") for line in lines}) == 1
    assert not re.search(r"INCONCLUSIVE \(blocks\) {2}", lines[1])


def test_a_fixed_design_interval_is_named_as_an_anytime_valid_one_is() -> None:
    # Read on its own, a gate's line says which interval it decided on: one look at the whole
    # design (fixed-design), or an audit's look (anytime-valid, at that look).
    fixed = gate_line(_gate("pass"), verdict_width([_gate("pass")]))
    assert fixed == "PASS pst: STS paired = 11.6, 95% [2.75, 20.6] (fixed-design); below 25"
    looked = GateResult(**{**_gate("pass").__dict__, "method": "anytime-valid over looks"})
    assert gate_line(looked, 4, "look 1 of 4").endswith(
        "95% [2.75, 20.6] (anytime-valid, look 1 of 4); below 25"
    )


def test_a_named_gate_is_led_by_its_name_as_the_report_and_the_app_lead() -> None:
    named = replace(_gate("pass"), label="paired STS below 25")
    line = gate_line(named, len("PASS"))
    assert line.startswith("PASS paired STS below 25 · pst: STS paired = 11.6, 95% "), line
    # A gate without a name is called by its figure and rule: the line says them once.
    unnamed = replace(_gate("pass"), label="pst: STS paired below 25")
    assert gate_line(unnamed, 4).startswith("PASS pst: STS paired = 11.6, 95% ")

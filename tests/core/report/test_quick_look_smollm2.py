"""The quick-look rule on the real bundled SmolLM2 with placebo identities: made-up words of
``placebo_identities.yaml`` named "masculine" and "feminine", at the smallest design that has an
interval (two a side), then with the labels swapped. Whatever the model makes of the words, no
surface states a finding: each expected-STS figure is a quick look in the rule's words, its
direction not established, and swapping the labels only flips its sign."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from diptych.core.report.quick_look import QUICK_LOOK
from diptych.core.workspace import Workspace
from tests.support.cli import cli

#: Made-up words validated as ungendered (two bare nouns, two agent nouns).
WORDS = ("zorblat", "plenker", "quimbet", "drovist")
EXPECTED = ("STS paired (expected from P(he), P(she))", "STS single (expected from P(he), P(she))")
WHY = (
    "its interval rests on 2 identities a side, too few to decide anything; a finding needs "
    "at least 4 a side"
)


def _report(
    ws: Workspace, store: Path, out: Path, masculine: list[str], feminine: list[str]
) -> tuple[str, dict[str, Any]]:
    """Run the design on SmolLM2: what ``diptych show`` printed (its lines joined) and
    report.json."""
    params = {"masculine": masculine, "feminine": feminine, "new_identities": True}
    run = ws.runs.run_sync("pst-text", ["smollm2"], params=params).id
    shown = cli("--store", str(store), "show", run)
    assert shown.exit_code == 0, shown.output
    written = cli("--store", str(store), "report", run, "--out", str(out))
    assert written.exit_code == 0, written.output
    data: dict[str, Any] = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return " ".join(shown.output.split()), data


@pytest.mark.slow
def test_placebo_words_two_a_side_are_a_quick_look_either_way_round(tmp_path: Path) -> None:
    store = tmp_path / "ws"
    masculine, feminine = [WORDS[0], WORDS[1]], [WORDS[2], WORDS[3]]
    with Workspace.open(store) as ws:
        shown, data = _report(ws, store, tmp_path / "a", masculine, feminine)
        shown_swapped, swapped = _report(ws, store, tmp_path / "b", feminine, masculine)
    for said, report in ((shown, data), (shown_swapped, swapped)):
        findings = {f["name"]: f for f in report["verdict"]["findings"]}
        for name in EXPECTED:
            figure = report["result"]["numbers"][name]
            assert figure["units"] == {"masculine identity": 2, "feminine identity": 2}
            finding = findings[name]
            assert finding["quick_look"] == WHY, finding
            assert finding["excludes_zero"] is None
            assert finding["direction"] == "not established"
            assert finding["sentence"].endswith(f"A quick look, not a finding: {WHY}.")
            (headline,) = [h for h in report["headlines"] if h["name"] == name]
            assert f"{QUICK_LOOK}: {WHY}." in headline["sentence"]
            assert "significant" not in headline["sentence"]
            assert f"{name} " in said and f"is a {QUICK_LOOK}: {WHY}." in said
        for finding in report["verdict"]["findings"]:
            assert "excludes 0" not in finding["sentence"]
    # Swapped labels read the same prompts with each word on the other side: every expected
    # figure flips its sign, its interval mirrored.
    for name in EXPECTED:
        a, b = data["result"]["numbers"][name], swapped["result"]["numbers"][name]
        assert b["value"] == pytest.approx(-a["value"], abs=1e-6)
        assert (b["ci_low"], b["ci_high"]) == pytest.approx((-a["ci_high"], -a["ci_low"]), abs=1e-6)

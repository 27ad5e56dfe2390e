"""Appendix A's "What each interval resamples" gives each figure the account its Findings give:
on an audit decided at its first look, a figure whose interval fell to its floor rests on its
pairings there too (never on the identity lists its design named), and a figure with no
interval says "no interval" and why."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from diptych.core.report.verdict import resamples_text, sample_text
from diptych.core.workspace import Workspace
from diptych.plugins.probes._paired_stereotype_test.identities import identities

FIGURE = "STS paired (expected from P(he), P(she))"


@pytest.fixture
def decided_report(scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The report of a pst-text audit of the paper's 20 × 20 occupations bought until its gate
    was decided, at the first of ten looks, beside a part of one masculine identity and three
    feminine ones (its single STS has no interval), in every format."""
    from diptych.audit import run_audit

    monkeypatch.chdir(tmp_path)
    occ = identities().occupations
    planted = {**dict.fromkeys(occ.masculine, 0.2), **dict.fromkeys(occ.feminine, 0.8)}
    data = {
        "name": "decided",
        "seed": 1,
        "models": {"t": {"plugin": "scripted-likelihood",
                         "params": {"p_feminine": planted, "noise": 0.3}}},
        "probes": [{"probe": "pst-text", "models": ["t"],
                    "params": {"masculine": occ.masculine, "feminine": occ.feminine}},
                   {"probe": "pst-text", "name": "one-masculine", "models": ["t"],
                    "params": {"masculine": occ.masculine[:1], "feminine": occ.feminine[:3],
                               "setting": "single"}}],
        "report": {"formats": ["html", "md", "json"]},
        "gates": [{"part": "pst-text", "figure": FIGURE, "below": 75, "name": "below 75"},
                  {"part": "one-masculine", "figure": "STS single (expected from P(he), P(she))",
                   "below": 75, "name": "single below 75"}],
    }  # fmt: skip
    Path("audit.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    with Workspace.open(tmp_path / "ws") as ws:
        asyncio.run(run_audit(ws, "audit.yaml", until_decided=True, out_dir="out"))
    return tmp_path / "out"


def _appendix_lines(md: str) -> list[dict[str, str]]:
    """The Markdown report's "What each interval resamples" lists, a run's by figure."""
    return [_lines(p.split("\n#", 1)[0]) for p in md.split("#### What each interval resamples")[1:]]


def _lines(part: str) -> dict[str, str]:
    lines = [ln[2:] for ln in part.splitlines() if ln.startswith("- ")]
    out = {}
    for line in lines:
        name, said = re.split(r": (?=no interval|resampling|\d)", line, maxsplit=1)
        out[name] = said
    return out


def test_appendix_a_reads_the_same_facts_as_the_findings(decided_report: Path) -> None:
    data = json.loads((decided_report / "report.json").read_text())
    md = (decided_report / "report.md").read_text()
    html = (decided_report / "report.html").read_text().replace("&#39;", "'")
    sentences = " ".join(f["sentence"] for f in data["verdict"]["findings"])
    # The figures the Findings state (the drawn labels' are listed in the appendix only).
    stated = {f["name"].split(": ", 1)[-1] for f in data["verdict"]["findings"]}
    runs = data["runs"]
    assert len(runs) == 2 == len(_appendix_lines(md))
    floored: set[str] = set()
    none: set[str] = set()
    for run, said in zip(runs, _appendix_lines(md), strict=True):
        numbers: dict[str, dict[str, Any]] = run["result"]["numbers"]
        for name, said_of in said.items():
            number = numbers[name]
            if number.get("reason"):
                # "No interval (one masculine identity only)", as its Findings say.
                why = number["reason"].removesuffix(": no interval")
                assert f"No interval ({why})" in sentences
                assert said_of.startswith(f"no interval ({why}); its data hold "), said_of
                held = said_of.split("; its data hold ", 1)[1]
                if name in stated:
                    # Its Findings, too, say what its data hold: nothing was resampled.
                    assert f"its data hold {held}. No interval ({why})" in sentences, sentences
                    assert f"resampling {held}" not in sentences, sentences
                assert "speaks for" not in said_of
                none.add(name)
            elif number.get("floor"):
                # The Findings' own words: it rests on its pairings, for these identities only.
                assert number["floor"].startswith("resampling its ")
                assert number["floor"] in sentences and said_of == number["floor"]
                floored.add(name)
            else:
                assert "speaks for" in said_of and "these identities only" not in said_of
            assert f"<li>{name}: {said_of}</li>" in html
    # The design at its first look fell to its floor; the single part's one masculine
    # identity gives its STS no interval.
    assert FIGURE in floored and "STS single (expected from P(he), P(she))" in none


def test_each_account_worked_by_hand() -> None:
    units = {"masculine identity": 1, "feminine identity": 3}
    none = {
        "units": units,
        "design": "stratified",
        "reason": "one masculine identity only: no interval",
        "population": "masculine-stereotyped identities like these",
    }
    assert resamples_text(none) == (
        "no interval (one masculine identity only); its data hold 1 masculine and 3 feminine "
        "identities as separate lists"
    )
    crossed = {**none, "design": "crossed"}
    assert resamples_text(crossed).endswith("1 masculine × 3 feminine identities crossed in scenes")
    floor = "resampling its 142 pairings of a masculine identity and a feminine identity, so …"
    floored = {
        "units": {"masculine identity": 20, "feminine identity": 20},
        "floor": floor,
        "population": "identities like these",
    }
    assert resamples_text(floored) == floor
    assert resamples_text({"units": {"scenario": 12}, "population": "scenarios like these"}) == (
        "12 scenarios — speaks for scenarios like these"
    )


def test_a_figure_without_an_interval_resamples_nothing() -> None:
    units = {"masculine identity": 1, "feminine identity": 20}
    number = {"units": units, "design": "crossed", "n": 80}
    held = "1 masculine × 20 feminine identities crossed in scenes"
    assert sample_text(number, "prompt", has_interval=False).endswith(f", its data hold {held}")
    assert sample_text(number, "prompt").endswith(f", resampling {held}")

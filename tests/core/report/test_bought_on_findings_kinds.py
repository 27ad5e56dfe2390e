"""A run its gates decided at look 1, bought on since (``diptych resume``, stopped part way) and
audited again, is reported with the headline figures and the glossary its first report had: a
figure its look read without an interval (the single setting's STS, one masculine identity only)
stays among the Findings with why it has none, and the glossary names every kind of interval
the page prints (the gate's anytime-valid interval among them)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import SINGLE, decided_single_without_interval, until_decided
from tests.support.stopped_runs import bought_on_and_interrupted

pytestmark = pytest.mark.usefixtures("scripted_plugin")

#: Why the look had no interval for :data:`SINGLE`.
WHY = "one masculine identity only"


def _report(capsys: pytest.CaptureFixture[str], ws: str, run_id: str, out: Path) -> Any:
    code, said = call(capsys, "--store", ws, "report", run_id, "-o", str(out))
    assert code == 0, said
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return data, (out / "report.md").read_text(encoding="utf-8")


def _kinds(glossary: dict[str, str]) -> list[str]:
    """The kinds of interval the glossary's "95% interval" names, in its words."""
    said = glossary["95% interval"].split(" In this report: ", 1)[1].rstrip(".")
    return re.split(r"; (?:and )?", said)


def _first_and_again(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[Any, Any]:
    """The run decided at look 1 of 8 reported (``first``), then bought on, stopped part way,
    audited again and reported again (``again``): each report's JSON and Markdown."""
    ws = str(tmp_path / "ws")
    run_id = decided_single_without_interval(capsys, ws, "-M", "latency=0.01")
    first = _report(capsys, ws, run_id, tmp_path / "first")
    bought_on_and_interrupted(ws, run_id, after=60)
    code, out = call(capsys, "--store", ws, *until_decided("-M", "latency=0.01")[:-1], "8")
    assert code == 0, out
    again = _report(capsys, ws, run_id, tmp_path / "again")
    assert "bought on since" in again[0]["status_text"], again[0]["status_text"]
    return first, again


def test_a_bought_on_report_keeps_its_findings_and_its_glossary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (first, first_md), (again, again_md) = _first_and_again(capsys, tmp_path)

    names = [[f["name"] for f in d["verdict"]["findings"]] for d in (first, again)]
    assert names[0] == names[1] and SINGLE in names[0], names
    for data, md in ((first, first_md), (again, again_md)):
        (single,) = [f for f in data["verdict"]["findings"] if f["name"] == SINGLE]
        assert single["ci_low"] is None, single
        assert f"No interval ({WHY}" in single["sentence"], single
        assert single["sentence"] in md.split("## Contents", 1)[0], single
    # The glossary names the same kinds of interval: the gate's anytime-valid one among them.
    assert first["glossary"].keys() == again["glossary"].keys()
    assert _kinds(first["glossary"]) == _kinds(again["glossary"]), again["glossary"]
    assert any("a gate decided" in k for k in _kinds(again["glossary"])), again["glossary"]


@pytest.mark.surface
def test_the_bought_on_report_reads_on_a_phone_and_on_paper(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest
) -> None:
    from diptych.core.report.pdf import print_pdf
    from tests.support.surfaces import assert_report_surfaces

    _first_and_again(capsys, tmp_path)
    # The browser opens once the runs are done (Playwright's loop would refuse theirs).
    browser = request.getfixturevalue("browser")
    report = tmp_path / "again"
    print_pdf(report / "report.html", report / "report.pdf")
    assert_report_surfaces(report, browser=browser)

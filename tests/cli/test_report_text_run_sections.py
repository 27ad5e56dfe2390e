"""The report of a text run has no "Example images" section (a text run makes none to show),
in its contents or its body, Markdown and HTML alike; its other sections stay."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import design

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_a_text_runs_report_leaves_out_example_images(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    code, out = call(capsys, "--store", ws, "run", *design("-M", "latency=0"), "--quiet")
    assert code == 0, out
    run_id = re.search(r"^run (\S+) complete", out, re.M)
    assert run_id is not None, out
    written = tmp_path / "rep"
    code, out = call(capsys, "--store", ws, "report", run_id[1], "-o", str(written))
    assert code == 0, out
    md = (written / "report.md").read_text(encoding="utf-8")
    html = (written / "report.html").read_text(encoding="utf-8")
    for text in (md, html):
        assert "Example images" not in text and "shows no images" not in text
        assert "Human review and agreement" in text and "Limitations" in text
    assert 'id="examples"' not in html and "#example-images" not in md

"""An audit stopped early prints its fixed-design intervals beside the anytime-valid ones: where
they first appear, one sentence says plainly which hold, and the others are for orientation."""

from __future__ import annotations

from pathlib import Path

from tests.support.bundles import run_cli
from tests.support.sequential_audits import FIGURE, planted_audit

MASC = ["carpenter", "farmer", "guard", "mover", "janitor", "laborer"]
FEM = ["nurse", "editor", "secretary", "librarian", "cashier", "teacher"]
SAID = "Only the intervals named anytime-valid hold; these are shown for orientation."
NAME = "fixed-design; do not hold after the stop at look 1 of 10"


def _section(markdown: str, heading: str, end: str) -> str:
    return markdown.split(f"{heading}\n", 1)[1].split(end, 1)[0]


def test_the_fixed_intervals_of_a_stop_are_said_to_be_for_orientation(
    tmp_path: Path, scripted_plugin: None
) -> None:
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    file = planted_audit(tmp_path / "a.yaml", gates, MASC, FEM, name="early", seed=2,
                         report={"formats": ["md", "html", "json"]})  # fmt: skip
    code, out, err = run_cli(["--store", str(tmp_path / "ws"), "audit", "run", str(file),
                              "--until-decided", "--batches", "10", "--out",
                              str(tmp_path / "rep"), "--quiet"])  # fmt: skip
    assert code == 0, (out, err)
    assert "decided at look 1 of 10" in out
    markdown = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    page = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    # Said once, in the first caption that names them, right after their name.
    results = _section(markdown, "## Results", "\n## ")
    assert markdown.count(SAID) == 1 and page.count(SAID) == 1
    assert f"Its bars: {NAME}. {SAID}" in results
    assert results.index(SAID) < results.index("Its intervals: ")
    # The list of the largest figures says it of its bars, too.
    largest = _section(markdown, "### Where the bias is largest", "\n### ")
    assert f"(intervals {NAME}; for orientation only)." in largest

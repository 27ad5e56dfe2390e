"""The check that every kind of interval a report prints is named in its glossary finds a page
printing a bootstrap κ interval or a gated figure's anytime-valid one its glossary does not name,
on each page, Appendix A's methods among them, and lets the same pages pass once the glossary
names them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.surfaces.interval_kinds import interval_kind_problems

NOTE = "95% intervals: percentile bootstrap over images (500 resamples, seed 0)."
PLAIN = "The range the figure's true value lies in at 95% confidence."
BOOTSTRAP = PLAIN + " In this report: for the annotators' agreement (κ, α), percentile bootstrap."
GATED = "95% anytime-valid interval, look 2 of 2"
GATED_CLAUSE = (
    " In this report: for a figure a gate decided at a look of an audit bought until decided, "
    "anytime-valid over the looks."
)


def _kappa_report(tmp_path: Path, glossary: str) -> Path:
    (tmp_path / "report.html").write_text(
        "<h2>Human review and agreement</h2><table><thead><tr><th>annotator A</th>"
        "<th>κ</th><th>κ 95% CI</th></tr></thead><tbody><tr><td>alice</td><td>0.62</td>"
        f"<td>[0.41, 0.80]</td></tr></tbody></table><p>{NOTE}</p>"
        f'<section id="glossary"><h2>Glossary</h2><dl><dt>95% interval</dt><dd>{glossary}</dd>'
        "</dl></section>",
        encoding="utf-8",
    )
    (tmp_path / "report.md").write_text(
        "## Human review and agreement\n\n| annotator A | κ | κ 95% CI |\n|---|---:|---|\n"
        f"| alice | 0.62 | [0.41, 0.80] |\n\n{NOTE}\n\n## Glossary\n\n"
        f"- **95% interval**: {glossary}\n\n## Provenance\n\nWritten by diptych.\n",
        encoding="utf-8",
    )
    return tmp_path


def test_a_bootstrap_kappa_interval_its_glossary_does_not_name_is_found(tmp_path: Path) -> None:
    found = interval_kind_problems(_kappa_report(tmp_path, PLAIN))
    assert [p.split(" (“")[0] for p in found] == [
        "html: prints bootstrap intervals",
        "md: prints bootstrap intervals",
    ]
    assert all("percentile bootstrap over images" in p for p in found)
    assert all(p.endswith("its glossary does not name") for p in found)


def test_the_same_kappa_interval_with_the_bootstrap_clause_passes(tmp_path: Path) -> None:
    assert interval_kind_problems(_kappa_report(tmp_path, BOOTSTRAP)) == []


def _gated_json(tmp_path: Path, glossary: str) -> Path:
    data = {
        "headlines": [
            {
                "name": "STS paired",
                "interval": f"[−7.36, 11.1] ({GATED})",
                "sentence": f"STS paired is 1.88, with a 95% interval from −7.36 to 11.1 "
                f"({GATED}), over 144 prompts.",
            }
        ],
        "glossary": {"95% interval": glossary},
    }
    (tmp_path / "report.json").write_text(json.dumps(data), encoding="utf-8")
    return tmp_path


def test_a_figure_at_a_look_needs_a_clause_naming_the_looks(tmp_path: Path) -> None:
    # "anytime-valid" alone in the glossary does not say over which looks "look 2 of 2" counts.
    loose = PLAIN + " In this report: for a figure of a stopped run, anytime-valid."
    found = interval_kind_problems(_gated_json(tmp_path, loose))
    assert len(found) == 1
    assert found[0].startswith("json: prints anytime-valid at a look intervals")
    assert interval_kind_problems(_gated_json(tmp_path, PLAIN + GATED_CLAUSE)) == []
    # The report of a run its gates stopped early: the run's own looks.
    own = PLAIN + " In this report: for a figure no gate read, anytime-valid over its own looks."
    assert interval_kind_problems(_gated_json(tmp_path, own)) == []


def test_a_page_with_no_interval_names_no_kind(tmp_path: Path) -> None:
    # The words of a method without an interval printed are not an interval of that kind.
    (tmp_path / "report.md").write_text(
        f"## Methods\n\nNo figure has an interval; {NOTE}\n\n## Glossary\n\n- **STS**: a score.\n",
        encoding="utf-8",
    )
    assert interval_kind_problems(tmp_path) == []


def test_a_note_on_bootstrap_over_a_table_with_no_interval_names_no_kind(tmp_path: Path) -> None:
    # The κ table's note speaks of bootstrap, but its one row has no interval; the figures'
    # table under another heading prints t intervals the glossary names.
    (tmp_path / "report.md").write_text(
        "## Results\n\n#### Figures\n\n| figure | 95% interval |\n|---|---|\n"
        "| STS paired | [−7.36, 11.1] |\n\n#### Agreement between annotators (Cohen's κ)\n\n"
        f"{NOTE}\n\n| κ | κ 95% CI |\n|---|---|\n| 1.00 | no interval (every resample gives "
        "1.00) |\n\n## Glossary\n\n- **95% interval**: t intervals over the units.\n",
        encoding="utf-8",
    )
    assert interval_kind_problems(tmp_path) == []


#: A probe's methods in Appendix A: its intervals, the range they lie in and their end at a bound.
METHODS = (
    "Intervals: 95% over scenes (both people of a paired scene together), t on the logit scale "
    "of [−100, 100], at ±100 the open Clopper–Pearson end."
)


def _methods_report(tmp_path: Path, glossary: str) -> Path:
    (tmp_path / "report.html").write_text(
        '<section id="methods"><h2>Appendix A: Methods</h2><h3>pst-text: the PST in text</h3>'
        f'<p>{METHODS}</p></section><section id="glossary"><h2>Glossary</h2><dl>'
        f"<dt>95% interval</dt><dd>{glossary}</dd></dl></section>",
        encoding="utf-8",
    )
    (tmp_path / "report.md").write_text(
        f"## Appendix A: Methods\n\n### pst-text: the PST in text\n\n{METHODS}\n\n"
        f"## Glossary\n\n- **95% interval**: {glossary}\n\n## Provenance\n\nWritten by diptych.\n",
        encoding="utf-8",
    )
    return tmp_path


def test_appendix_a_naming_a_kind_its_glossary_does_not_name_is_found(tmp_path: Path) -> None:
    found = interval_kind_problems(_methods_report(tmp_path, PLAIN))
    assert [p.split(" (“")[0] for p in found] == [
        "html: prints Clopper–Pearson intervals",
        "md: prints Clopper–Pearson intervals",
    ]
    assert all("the open Clopper–Pearson end" in p for p in found)


def test_the_same_appendix_a_with_the_glossary_naming_its_end_passes(tmp_path: Path) -> None:
    named = PLAIN + "</dd><dt>Clopper–Pearson end</dt><dd>At a bound of the range."
    assert interval_kind_problems(_methods_report(tmp_path, named)) == []

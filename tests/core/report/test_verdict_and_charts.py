"""The report's first screen (the verdict), its charts, the papers' values beside ours, the
recommended actions, the appendices, and the draft checker's names for numbers."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from diptych.core.metrics.uncertainty.resampling import Inference
from diptych.core.probe import Table
from diptych.core.report.charts import Chart, chart_from_table
from diptych.core.report.charts.svg import draw
from diptych.core.report.draft import Facts, NamedNumber, check_sentence, figure_terms
from diptych.core.report.formatting import figure_text
from diptych.core.report.quick_look import FINDING_MIN_UNITS
from diptych.core.report.render import BODY_MAX_COLUMNS
from diptych.core.report.verdict import published_values
from diptych.core.workspace import Workspace
from diptych.plugins.probes.pst_text.figures import expected_forest
from tests.support.page_text import page_text

STS = "STS paired (expected from P(he), P(she))"
NAMED = Facts(
    numbers=[95.0, 11.5123, 10.07, 12.93, 1600.0],
    tests=[],
    named=[
        NamedNumber(11.5123, STS, figure_terms(STS)),
        NamedNumber(10.07, STS, figure_terms(STS)),
        NamedNumber(12.93, STS, figure_terms(STS)),
        NamedNumber(1600.0, "done trials", ("done", "trials", "scenes")),
    ],
)


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        ("The difference between the observed and expected probabilities was 11.51.", False),
        ("The paired expected STS is 11.51, 95% interval 10.07 to 12.93.", True),
        ("The stereotype test score was 11.5 over 1,600 scenes.", True),
        ("Over 1,600 scenes, 11.51 happened.", False),
    ],
)
def test_a_number_must_stand_under_the_name_of_its_figure(sentence: str, kept: bool) -> None:
    reason = check_sentence(sentence, NAMED)
    assert (reason is None) is kept
    if not kept:
        assert "does not name" in str(reason) and "STS paired" in str(reason)


def test_a_chart_read_from_a_table_is_sorted_and_states_its_numbers() -> None:
    table = Table(
        "Micro STS per occupation",
        [
            "identity",
            "stereotype",
            "STS single",
            "single 95% CI",
            "STS paired",
            "paired 95% CI",
            "%F BLS",
        ],  # fmt: skip
        [
            ["nurse", "feminine", 10.0, "[0.0, 20.0]", 40.0, "[30.0, 50.0]", 90.0],
            ["sheriff", "masculine", 60.0, "[50.0, 70.0]", 80.0, "[70.0, 95.5]", 14.0],
            ["editor", "feminine", -20.0, "[-40.0, 0.0]", -5.0, "[-inf, inf]", 52.0],
        ],
    )
    chart = chart_from_table(table, "run-x-forest")
    assert chart is not None
    assert [r.label for r in chart.rows] == ["sheriff", "nurse", "editor"]
    # The paired figure leads (and sorts) where there is one.
    assert chart.series == ["STS paired", "STS single"] and chart.side_label == "%F BLS"
    alt = chart.alt_text()
    assert (
        "sheriff: STS paired 80.0 (95% interval 70.0 to 95.5); "
        "STS single 60.0 (95% interval 50.0 to 70.0)"
    ) in alt
    assert "editor: STS paired −5.00 (no interval: no finite bounds)" in alt
    svg = draw(chart, "c1")
    assert 'role="img"' in svg and 'aria-labelledby="c1-title c1-desc"' in svg
    assert '<desc id="c1-desc">' in svg and "14.0%" in svg
    # A round trip through JSON keeps the chart.
    again = Chart.from_dict(json.loads(json.dumps(chart.to_dict())))
    assert again.alt_text() == alt
    # A table with no interval column gives no chart.
    assert chart_from_table(Table("t", ["identity", "n"], [["a", 1], ["b", 2]]), "x") is None


def _inference(value: float, low: float, high: float) -> Inference:
    return Inference(value, low, high, 0.5, 1.0, 9.0, 10, {"partner": 10}, "clustered")


def test_pst_text_forest_sorts_by_paired_sts_with_bls_beside_occupations() -> None:
    inferences = {
        ("nurse", "paired"): _inference(20.0, 10.0, 30.0),
        ("nurse", "single"): _inference(5.0, -2.0, 12.0),
        ("carpenter", "paired"): _inference(45.0, 40.0, 150.0),
        ("carpenter", "single"): _inference(30.0, float("-inf"), float("inf")),
    }
    chart = expected_forest(inferences, {"nurse": "feminine", "carpenter": "masculine"}, "")
    assert chart is not None
    assert [r.label for r in chart.rows] == ["carpenter (M)", "nurse (F)"]
    assert [r.side for r in chart.rows] == ["2.10%", "90.0%"]
    assert chart.series == ["paired", "single"] and chart.limits == (-100.0, 100.0)
    carpenter = chart.rows[0]
    assert (carpenter.points[0].low, carpenter.points[0].high) == (40.0, 150.0)
    assert carpenter.points[1].low is None  # an infinite interval is no interval
    # A point without an interval says why: here its bounds are not finite.
    said = "single 30.0 (no interval: no finite bounds)"
    assert f"carpenter (M): paired 45.0 (95% interval 40.0 to 150.0); {said}" in chart.alt_text()


def test_published_values_carry_the_pst_papers_dalle3_figures() -> None:
    values = {v.id: v for v in published_values().values}
    assert values["pst-occupation-paired"].values == {"DALL-E 3": 47.38}
    assert values["pst-occupation-single"].values == {"DALL-E 3": 10.00}
    assert values["pst-power-paired"].values == {"DALL-E 3": 18.98}
    assert values["pst-power-single"].values == {"DALL-E 3": 4.62}
    assert values["socialcounterfactuals-bias-at-k-race-gender"].values["CLIP"] == -0.12
    assert (
        values["pairs-occupations-refusal-man"].values["miniGPT-4".replace("mini", "Mini")] == 0.14
    )


@pytest.fixture(scope="module")
def written(audit: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("verdict")
    with Workspace.open(audit.ws_path) as ws:
        ws.analysis.report(audit.runs, out)
    return out


def test_the_verdict_comes_first_and_states_each_headline_in_words(
    audit: Any, written: Path
) -> None:
    data = json.loads((written / "report.json").read_text(encoding="utf-8"))
    html = (written / "report.html").read_text(encoding="utf-8")
    findings = data["verdict"]["findings"]
    text = [f for f in findings if f["run"] == audit.runs[0]]
    assert [f["name"] for f in text] == [STS, "STS single (expected from P(he), P(she))"]
    number = data["runs"][0]["result"]["numbers"][STS]
    first = text[0]
    assert first["value"] == pytest.approx(number["value"])
    lean = "more often" if number["value"] > 0 else "less often"
    # Under FINDING_MIN_UNITS identities a side a figure is a quick look: it excludes nothing.
    quick = min(number["units"].values()) < FINDING_MIN_UNITS
    excludes = (number["ci_low"] > 0 or number["ci_high"] < 0) and not quick
    # A lean is said only where the interval establishes it.
    said = f"assigns the stereotyped pronoun {lean} than the other pronoun" in first["sentence"]
    assert said is excludes
    # Its n names what it counts, as the table of figures does: prompts in unordered scenes.
    assert (
        f"{number['n']:,} prompts in {number['clusters']:,} unordered scenes" in first["sentence"]
    )
    assert first["excludes_zero"] is (None if quick else excludes)
    assert ("A quick look, not a finding" in first["sentence"]) is quick
    assert ("excludes 0" in first["sentence"]) is excludes
    scope = data["verdict"]["scope"]
    assert scope.startswith("Scope: ") and "pst-text, pst, pairs, stories" in scope
    total = sum(sum(r["counts"].values()) for r in data["runs"])
    assert f"{total:,} trials" in scope
    # The verdict is the first thing after the title, and each sentence is printed once.
    assert html.index('id="verdict"') < html.index('id="contents"') < html.index('id="results"')
    # (Ids and intervals in it are kept whole in spans of their own: read its text.)
    text = page_text(html)
    for f in findings:
        assert text.count(str(f["sentence"])) == 1
    assert "headline-table" not in html


def test_each_run_opens_with_a_chart_and_keeps_narrow_tables_in_its_body(
    audit: Any, written: Path
) -> None:
    html = (written / "report.html").read_text(encoding="utf-8")
    results = html[html.index('<section id="results">') : html.index('<section id="mitigations">')]
    for run in audit.runs[:4]:
        chapter = results[results.index(f'id="run-{run}"') :]
        # The chapter's first figure is a chart, before its first table.
        assert chapter.index('class="chart-figure"') < chapter.index("<table")
    for header in re.findall(r"<thead><tr>(.*?)</tr></thead>", results):
        assert header.count("<th") <= BODY_MAX_COLUMNS
    appendix = html[html.index('id="appendix-tables"') : html.index('id="glossary"')]
    assert "Expected STS per identity (likelihood mode)" in appendix
    data = json.loads((written / "report.json").read_text(encoding="utf-8"))
    (chart,) = data["runs"][0]["charts"]
    assert chart["series"] if "series" in chart else chart["rows"]
    assert chart["side_label"] == "%F BLS" and "carpenter (M)" in chart["alt"]
    assert (written / "figures" / "charts" / f"{chart['name']}.svg").is_file()


def test_the_pst_papers_values_stand_beside_ours_as_context(audit: Any, written: Path) -> None:
    data = json.loads((written / "report.json").read_text(encoding="utf-8"))
    by_run: dict[str, list[dict[str, Any]]] = {}
    for c in data["context"]:
        by_run.setdefault(c["run"], []).append(c)
    text = {c["figure"]: c for c in by_run[audit.runs[0]]}
    assert text[STS]["values"] == {"DALL-E 3": 47.38}
    assert text["STS single (expected from P(he), P(she))"]["values"] == {"DALL-E 3": 10.0}
    # Ours first, with its interval, its n and, on 2 identities a side, that it is a quick
    # look; then who measured which model at what, in plain words.
    number = data["runs"][0]["result"]["numbers"][STS]
    ours = figure_text(text[STS]["ours"])
    low, high = figure_text(number["ci_low"]), figure_text(number["ci_high"])
    units = number["units"]
    assert (units["masculine identity"], units["feminine identity"], number["n"]) == (2, 20, 160)
    assert text[STS]["sentence"] == (
        f"This run: {ours} [{low}, {high}] over 160 prompts; a quick look, not a finding: its "
        "interval rests on 40 pairings of 2 masculine and 20 feminine identities, too few to "
        "decide anything; a "
        "finding needs at least 4 a side. "
        "Wan and Chang (2024) measured DALL-E 3 at 47.4: overall STS, paired "
        "setting, gendered occupations, on images of DALL-E 3 whose perceived gender people "
        "labelled (Table 2)."
    )
    image = {c["figure"]: c for c in by_run[audit.runs[1]]}
    assert image["occupation: STS paired"]["values"] == {"DALL-E 3": 47.38}
    # Only the aspect that ran: no organizational-power value for an occupation run.
    assert all(18.98 not in c["values"].values() for c in data["context"])
    html = (written / "report.html").read_text(encoding="utf-8")
    # Printed by the report's one rule of digits (47.38 in the JSON, 47.4 on the page).
    assert "Context, not a pass mark" in html and "DALL-E 3 at 47.4:" in html
    md = (written / "report.md").read_text(encoding="utf-8")
    assert f"- {text[STS]['sentence']}" in md


def test_actions_glossary_methods_and_provenance(audit: Any, written: Path) -> None:
    data = json.loads((written / "report.json").read_text(encoding="utf-8"))
    actions = data["actions"]
    mitigation = [a["text"] for a in actions if a["kind"] == "mitigation"]
    assert mitigation and all(audit.runs[2] in t for t in mitigation)
    assert any(a["kind"] == "largest" for a in actions)
    not_measured = [a["text"] for a in actions if a["kind"] == "not measured"]
    assert any("Probes not run in these runs: counterfactual-retrieval." == t for t in not_measured)
    # The pst runs carry a reviewer's labels; pst-text and pairs only a model's own; the
    # stories run none, so no sentence speaks of its labels' errors.
    assert "Annotator error: no human labels for pst-text, pairs;" in " ".join(not_measured)
    # The glossary defines what the report measured, and nothing else (no retrieval run here).
    assert set(data["glossary"]) == {
        "STS",
        "expected STS",
        "paired / single",
        "association score",
        "crime-lexicon share",
        "95% interval",
        # The pst run's methods (Appendix A) name the open end of an interval at ±100.
        "Clopper–Pearson end",
    }
    assert {f["framework"] for f in data["frameworks"]} == {
        "EU AI Act",
        "NIST AI RMF",
        "ISO/IEC 42001",
    }
    # Provenance lists what the runs used, not every installed plugin.
    used = {p["name"]: p["used"] for p in data["plugins"]}
    assert "probe pst-text" in used["pst_text"] and "probe pairs" in used["pairs"]
    assert "clip" not in used and "llava" not in used and "smollm2" not in used
    md = (written / "report.md").read_text(encoding="utf-8")
    html = (written / "report.html").read_text(encoding="utf-8")
    for text in (
        # The workspace is not the default one where the report was written: it is named.
        # It names what it reported: these runs, with no audit's gates.
        f"report {' '.join(audit.runs)} --audit none --out reproduced",
        "What each interval resamples",
    ):
        # The page's text: a printed command keeps each option's name in a span of its own,
        # and a long one is printed in lines the shell reads as one (" \" at each line's end).
        pasted = re.sub(r" \\\n\s*", " ", re.sub(r"</?span[^>]*>|<wbr>", "", html))
        assert text in re.sub(r" \\\n\s*", " ", md) and text in pasted
    # Markdown carries the same findings, context and glossary as the HTML.
    for f in data["verdict"]["findings"]:
        assert f["sentence"] in md
    assert "NIST AI 600-1" in md and "MS-2.11-002" in md and "Appendix C: Frameworks" in html


def test_a_figure_with_no_interval_stands_beside_a_papers_with_its_n_and_why() -> None:
    """A value from four prompts and one masculine identity has no interval: the context says
    so beside it, its n first, never a bare value set against a paper's."""
    from types import SimpleNamespace

    from diptych.core.report.verdict import published_context

    number = {"value": 32.0, "ci_low": None, "ci_high": None, "n": 4,
              "reason": "one masculine identity only: no interval"}  # fmt: skip
    run = SimpleNamespace(probe="pst-text", params={})
    part = SimpleNamespace(
        id="pst-text-1", observation="prompt", view=SimpleNamespace(run=run),
        result=SimpleNamespace(numbers={STS: number}),
    )  # fmt: skip
    (context,) = [c for c in published_context(SimpleNamespace(runs=[part])) if c.figure == STS]
    assert context.sentence.startswith(
        "This run: 32.0 over 4 prompts, no interval (one masculine identity only). Wan and Chang"
    ), context.sentence

"""The surface checks can fail: each class of defect, planted in a small page, is found, and the
page without it passes (:mod:`tests.support.surfaces`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.surfaces.hints import hint_problems
from tests.support.surfaces.planted import planted_page
from tests.support.surfaces.report_json import (
    anytime_intervals_off_their_look,
    infinity_problems,
    misspelled_plural_problems,
    non_finite_problems,
    raw_word_problems,
    unnamed_headline_intervals,
    unreadable_number_problems,
)
from tests.support.surfaces.screen import screen_problems
from tests.support.surfaces.text import (
    digit_problems,
    html_chunks,
    interval_problems,
    minus_problems,
    named_gate_intervals,
    text_problems,
    word_problems,
)

# --- text ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("STS 40.00 and 91.35", ["'40.00'", "'91.35'"]),
        ("STS 4.0, gap 12.25", ["'4.0'", "'12.25'"]),
        ("p = 0.03", ["'0.03'"]),
        ("STS 40.0, gap 4.25, −12.5, p = 0.031, q < 0.001, $1,234.50, 97.5% level", []),
        ("diptych 0.1.0, model v1.5, 2026-11-29 00:14", []),
    ],
)
def test_the_rule_of_digits(text: str, bad: list[str]) -> None:
    assert [p.split(" in ")[0] for p in digit_problems(text)] == bad


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("ticks -50 0 50", 1),
        ("t on the logit scale of [-100, 100]", 1),
        ("κ [-0.65, -0.56]", 2),
        ("[−100, 100], −0.56, run pst-text-9e0e2f56, 2026-11-29, dall-e-3, --seed=-1", 0),
    ],
)
def test_a_hyphen_for_a_minus(text: str, found: int) -> None:
    assert len(minus_problems(text)) == found


def test_every_printed_sign_is_the_readers_minus() -> None:
    """A chart's tick, a gate's interval method and an agreement interval: U+2212."""
    from diptych.core.metrics.agreement.tables import _interval
    from diptych.core.metrics.uncertainty.bootstrap import Estimate
    from diptych.core.metrics.uncertainty.intervals import IntervalRecipe
    from diptych.core.report.charts.svg import _tick

    assert [_tick(v) for v in (-50.0, 0.0, 2.5, -2.5)] == ["−50", "0", "2.50", "−2.50"]
    assert _interval(Estimate(-0.6, -0.654, -0.556, 20)) == "[−0.65, −0.56]"
    recipe = IntervalRecipe("t", 10.0, se=1.0, bounds=(-100.0, 100.0), transform="logit")
    assert recipe.description == "t on the logit scale of [−100, 100]"


def test_a_q_column_reads_three_decimals() -> None:
    assert digit_problems("0.031", column="q") == []
    assert digit_problems("0.031", column="value") != []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("95% interval [-inf, inf]: no interval", 2),
        ("the value nan", 1),
        ("800 image", 1),
        ("over 1,600 prompt in 400 scenes", 1),
        ("1 image, 2 images, 3 image pairs, 16 persons, 20 identities, 1 of 10 batches", 0),
        ("informal, nanometre, infinite", 0),
        ("Parameters. masculine=None, seed=0", 1),
        ("- `masculine`: `None`", 1),
        ("at the probe's defaults: masculine; None of the runs", 0),
    ],
)
def test_words(text: str, found: int) -> None:
    assert len(word_problems(text)) == found


def test_a_text_probe_counts_no_images() -> None:
    assert word_problems("over 1,600 images", ("pst-text",)) != []
    assert word_problems("over 1,600 images", ("pst",)) == []


def test_one_interval_per_figure() -> None:
    two = (
        '<li data-run="r" data-figure="STS paired">gate: STS paired = 11.6, 95.0% anytime-valid '
        'interval -1.04 to 24.2</li><li data-run="r" data-figure="STS paired">STS paired 11.6, '
        "95% interval 2.75 to 20.6, excludes 0</li>"
    )
    assert len(interval_problems(html_chunks(two))) == 1
    one = two.replace("2.75 to 20.6", "-1.04 to 24.2").replace(
        "95% interval", "95.0% anytime-valid interval"
    )
    assert interval_problems(html_chunks(one)) == []
    # Other runs, other figures, other levels are other intervals.
    other = two.replace(
        'data-run="r" data-figure="STS paired">STS', 'data-run="s" data-figure="STS paired">STS'
    )
    assert interval_problems(html_chunks(other)) == []


def test_a_gates_rule_is_no_second_interval_of_its_figure() -> None:
    # The gate's line, as the page prints it, its interval and its rule's band each kept on one
    # line in a span: "within [−5, 99.5]" is the rule's limits, not an interval of the figure.
    from diptych.core.report.whole_ids import keep_ids_whole

    line = (
        '<li data-run="r" data-figure="STS paired">PASS: STS paired = 11.6, 95% fixed-design '
        "interval −1.04 to 24.2; rule: within [−5, 99.5].</li>"
    )
    page = keep_ids_whole(line, [])
    assert '<span class="nowrap">[−5, 99.5]</span>' in page
    assert interval_problems(html_chunks(page)) == []
    # A real second interval of the figure beside the rule is still found.
    twice = page.replace("rule:", "STS paired 11.6 [2.75, 20.6]; rule:")
    assert interval_problems(html_chunks(twice)) == [
        "r: 'STS paired' at 95% printed with 2 intervals [('2.75', '20.6'), ('−1.04', '24.2')]"
    ]


def test_a_gated_figure_names_its_interval() -> None:
    chunks = html_chunks('<li data-run="r" data-figure="F">F 11.6, 95% interval 2.75 to 20.6</li>')
    assert len(named_gate_intervals(chunks, {("r", "F")})) == 1
    assert named_gate_intervals(chunks, {("s", "F")}) == []


def test_a_written_report_is_read_in_all_its_files(tmp_path: Path) -> None:
    (tmp_path / "report.html").write_text("<p>value 40.00</p><pre><code>seed=0.125</code></pre>")
    (tmp_path / "report.md").write_text("interval [-inf, inf]\n\n```\nx 0.125\n```\n")
    (tmp_path / "report.json").write_text(
        json.dumps(
            {
                "runs": [{"probe": "pst-text"}],
                "verdict": {"findings": [{"sentence": "over 800 image", "value": 40.123}]},
            }
        )
    )
    problems = text_problems(tmp_path)
    assert [p.split(":")[0] for p in problems] == ["html", "md", "md", "json", "json"]


def test_an_infinite_bound_in_report_json_is_found(tmp_path: Path) -> None:
    said = "STS single is 32.0, with a 95% interval from −∞ to ∞, over 4 prompts."
    assert len(infinity_problems(said)) == 2
    assert (
        infinity_problems("STS single is 32.0, with no interval (one masculine identity only)")
        == []
    )
    (tmp_path / "report.json").write_text(json.dumps({"headlines": [{"sentence": said}]}))
    assert len(text_problems(tmp_path)) == 2
    assert len(infinity_problems("[−∞, 4.2] and [0.1, ∞]")) == 2
    # A story table's word, its count and log-odds ("∞ when no other group uses the word").
    assert infinity_problems("**jail** (3, ∞), in (3, 0.93)") == []


def test_a_gated_headline_with_an_unnamed_interval_is_found() -> None:
    gates = {"gates": [{"run": "r", "figure": "F"}]}
    bare = {"run": "r", "name": "F", "interval": "[2.75, 20.6]", "sentence": "F is 11.8, with a "
            "95% interval from 2.75 to 20.6."}  # fmt: skip
    named = {
        "run": "r",
        "name": "F",
        "interval": "[−1.04, 24.2] (95% anytime-valid interval, look 1 of 10)",
        "sentence": "F is 11.8, with a 95% interval from −1.04 to 24.2 (95% anytime-valid "
        "interval, look 1 of 10).",
    }
    assert len(unnamed_headline_intervals({"gates": gates, "headlines": [bare]})) == 2
    assert unnamed_headline_intervals({"gates": gates, "headlines": [named]}) == []
    assert unnamed_headline_intervals({"gates": None, "headlines": [bare]}) == []


def test_an_anytime_interval_beside_another_value_than_its_looks_is_found() -> None:
    gates = {"gates": [{"run": "r", "figure": "F", "value": "11.8", "kind": "anytime-valid"}]}
    named = "[−1.04, 24.2] (95% anytime-valid interval, look 1 of 10)"
    at_look = {"run": "r", "name": "F", "value": "11.8", "interval": named}
    bought_on = {**at_look, "value": "11.5"}
    fixed = {**bought_on, "interval": "[7.49, 15.4] (95% fixed-design interval)"}
    (said,) = anytime_intervals_off_their_look({"gates": gates, "headlines": [bought_on]})
    assert "11.5" in said and "11.8" in said
    assert anytime_intervals_off_their_look({"gates": gates, "headlines": [at_look, fixed]}) == []


# --- screen -------------------------------------------------------------------------------


WIDE_ROW = "<tr>" + "".join(f"<td>column{i}value</td>" for i in range(8)) + "</tr>"


def test_a_cut_table_is_found_and_a_scrolling_one_that_says_so_is_not(
    tmp_path: Path, browser: Any
) -> None:
    cut = planted_page(tmp_path, f'<div class="scroll"><table>{WIDE_ROW}</table></div>')
    found = screen_problems(cut, browser)
    assert any("phone" in p and "no hint" in p and "not sticky" in p for p in found), found
    # The hint shows where the table scrolls (the phone), not where it fits (the laptop).
    fine = planted_page(
        tmp_path,
        "<style>@media (min-width: 600px) { .scroll-hint { display: none } }</style>"
        '<p class="scroll-hint">The table scrolls sideways; its first column stays in view →</p>'
        f'<div class="scroll sticky"><table>{WIDE_ROW}</table></div>',
    )
    assert screen_problems(fine, browser) == []


def test_a_table_that_scrolls_at_a_laptops_width_is_found(tmp_path: Path, browser: Any) -> None:
    """A cell of words kept on one line (an audit's "not priced (computed on this machine)"
    cost once) makes a table scroll at 1280 px, its hint and sticky column or not."""
    words = "not priced (computed on this machine) " * 3
    row = "<tr><td>run</td>" + f"<td style='white-space:nowrap'>{words}</td>" * 3 + "</tr>"
    html = planted_page(
        tmp_path,
        '<p class="scroll-hint">The table scrolls sideways; its first column stays in view →</p>'
        f'<div class="scroll sticky"><table>{row}</table></div>',
    )
    from tests.support.surfaces.screen import tables_scrolling

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(html.resolve().as_uri(), wait_until="load")
        (found,) = tables_scrolling(page)
        assert found.startswith("a table scrolls sideways"), found
        page.set_content(f'<div class="scroll"><table>{WIDE_ROW}</table></div>')
        assert tables_scrolling(page) == []
    finally:
        page.close()


def test_a_caption_that_scrolls_with_its_table_is_found(tmp_path: Path, browser: Any) -> None:
    note = "A note that says what the table's numbers are and how they were made. " * 3
    hint = '<p class="scroll-hint">The table scrolls sideways; its first column stays in view →</p>'
    inside = planted_page(
        tmp_path,
        f'{hint}<div class="scroll sticky"><table><caption>{note}</caption>{WIDE_ROW}</table>'
        "</div>",
    )
    found = screen_problems(inside, browser)
    assert [p.split(":")[0] for p in found if "caption in a box that scrolls" in p] == ["phone"]
    under = planted_page(
        tmp_path,
        f'{hint}<div class="scroll sticky"><table>{WIDE_ROW}</table></div>'
        f'<p class="caption">{note}</p>',
    )
    assert [p for p in screen_problems(under, browser) if "caption" in p] == []


def test_a_hint_over_a_table_that_fits_is_found(tmp_path: Path, browser: Any) -> None:
    page = planted_page(
        tmp_path,
        '<p class="scroll-hint">The table scrolls sideways; its first column stays in view →</p>'
        '<div class="scroll sticky"><table><tr><td>one</td><td>two</td></tr></table></div>',
    )
    found = screen_problems(page, browser)
    assert sorted(p.split(":")[0] for p in found if "hint shown over a table that fits" in p) == [
        "laptop",
        "phone",
    ], found


def test_an_interval_wrapped_or_run_into_its_name_is_found(tmp_path: Path, browser: Any) -> None:
    """A cell 60 px wide wraps "[−100.0, 100.0]" at its space; a cell that prints the name
    after the bounds on their line runs the two together; the bounds kept whole and the name
    on a line of its own pass."""
    wrapped = planted_page(
        tmp_path, "<table><tr><td style='width:60px'>[−100.0, 100.0]</td></tr></table>"
    )
    assert any("wrapped over 2 lines" in p for p in screen_problems(wrapped, browser))
    joined = planted_page(
        tmp_path,
        "<table><tr><td>[−1.16, 23.8] (95% anytime-valid interval, look 1 of 10)</td></tr></table>",
    )
    assert any("on one line with words" in p for p in screen_problems(joined, browser))
    apart = planted_page(
        tmp_path,
        "<table><tr><td style='width:60px'><span style='white-space:nowrap'>[−1.16, 23.8]</span>"
        "<span style='display:block'>95% anytime-valid interval, look 1 of 10</span></td></tr>"
        "</table>",
    )
    assert screen_problems(apart, browser) == []


def test_small_and_overlapping_text_is_found(tmp_path: Path, browser: Any) -> None:
    small = planted_page(tmp_path, "<p style='font-size:11px'>too small</p>")
    assert any("11.000 px" in p for p in screen_problems(small, browser))
    # A hair under 12 px is under 12 px: a run id's code at .88em of a .85rem note.
    hair = planted_page(
        tmp_path, "<p style='font-size:.85rem'>Run <code style='font-size:.88em'>x-1</code></p>"
    )
    assert any("11.968 px" in p for p in screen_problems(hair, browser))
    over = planted_page(
        tmp_path,
        "<div style='position:relative'><span>first words</span>"
        "<span style='position:absolute;left:10px;top:0'>second</span></div>",
    )
    assert any("over" in p for p in screen_problems(over, browser))


def test_an_interval_cut_by_a_scroll_boxs_edge_is_found(tmp_path: Path, browser: Any) -> None:
    """At 390 px, five columns of figures and intervals at 16 px with wide padding scroll,
    and the box's edge runs through the last interval ("[−33.1, −" in view); the same table
    in 12 px text with narrow padding fits and passes."""
    cells = (
        "<td>masculine</td><td>−3.33</td><td>[−28.6, 22.3]</td><td>−33.7</td>"
        "<td style='white-space:nowrap'>[−33.1, −13.9]</td>"
    )
    table = f'<div class="scroll sticky"><table><tr>{cells}</tr></table></div>'
    from tests.support.surfaces.screen import intervals_at_the_edge

    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.set_content(f"<style>td {{ padding: 4px 9px; font: 16px sans-serif }}</style>{table}")
        (found,) = intervals_at_the_edge(page)
        assert found.startswith("interval [−33.1, −13.9] cut by its scroll box's edge"), found
        page.set_content(f"<style>td {{ padding: 4px 3px; font: 12px sans-serif }}</style>{table}")
        assert intervals_at_the_edge(page) == []
    finally:
        page.close()


def test_a_header_one_word_a_line_is_found(tmp_path: Path, browser: Any) -> None:
    """A narrow column of short numbers under "P(he) + P(she) paired %" wraps its header a
    word or sign a line: a band of header lines over one-line rows. Its signs kept with their
    words, it takes two."""
    from diptych.core.report.render import header_words
    from tests.support.surfaces.screen import tall_headers

    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        head = (
            "<table style='font:12px sans-serif;width:40px'><tr><th>{}</th></tr>"
            "<tr><td>93.4</td></tr></table>"
        )
        page.set_content(head.format("P(he) + P(she) paired %"))
        (found,) = tall_headers(page)
        assert found.startswith("header “P(he) + P(she) paired %” wraps over "), found
        assert int(found.split("over ")[1].split()[0]) > 4
        # As the report writes it, under the phone's rule for it.
        kept = header_words("P(he) + P(she) paired %")
        page.set_content("<style>th .keep { white-space: nowrap }</style>" + head.format(kept))
        assert tall_headers(page) == []
    finally:
        page.close()


def test_a_tall_chart_with_its_axis_only_at_its_foot_is_found(browser: Any) -> None:
    """The forest plot of 40 identities, drawn by the report's own chart code: taller than a
    phone's window, its tick labels above its rows as well as under them; a hand-made chart
    with ticks under its rows only is found."""
    from diptych.core.report.charts.model import Chart, ChartPoint, ChartRow
    from diptych.core.report.charts.svg import draw
    from tests.support.surfaces.screen import axis_only_below

    rows = [
        ChartRow(f"identity {i}", [ChartPoint("paired", i - 20.0, i - 30.0, i - 10.0)])
        for i in range(40)
    ]
    chart = Chart(name="c", title="t", axis="expected STS", rows=rows)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.set_content(draw(chart, "narrow-chart", "narrow"))
        assert axis_only_below(page) == []
        # The same chart with the labels above its rows taken out.
        page.evaluate("""() => { const svg = document.querySelector('svg');
          const band = [...svg.querySelectorAll('rect')][1].getBoundingClientRect().top;
          for (const t of svg.querySelectorAll('text'))
            if (t.getBoundingClientRect().top < band) t.remove(); }""")
        (found,) = axis_only_below(page)
        assert found.startswith("chart 'narrow-chart' (") and "only under its rows" in found
    finally:
        page.close()


def test_an_audits_id_broken_at_its_hyphen_on_a_phone_is_found(
    tmp_path: Path, browser: Any
) -> None:
    scope = {"audit": "smollm2-offline", "audit_id": "smollm2-offline-5c366747d6"}
    (tmp_path / "report.json").write_text(json.dumps({"scope": scope}), encoding="utf-8")
    record = "<p style='width:16em'>Audit record {}</p>"
    broken = planted_page(tmp_path, record.format("smollm2-offline-5c366747d6"))
    found = [p for p in screen_problems(broken, browser) if "broken over" in p]
    assert found == [
        f"{size}: “smollm2-offline-5c366747d6” broken over two lines"
        for size in ("phone", "laptop")
    ], found
    whole = '<span style="white-space:nowrap">smollm2-offline-5c366747d6</span>'
    kept = planted_page(tmp_path, record.format(whole))
    assert [p for p in screen_problems(kept, browser) if "broken over" in p] == []


def test_an_infinite_bound_anywhere_in_report_json_is_found(tmp_path: Path) -> None:
    """Every string of report.json is read, however deep and under whatever key (a gate's
    interval, a table's cell, a note): an infinite bound or "nan" printed there is found; a
    bound without a value is null, and a note that defines where a statistic is infinite ("t
    is ±∞") prints no bound."""
    data = {
        "gates": {"gates": [{"interval": "−∞ to ∞", "ci_low": None, "ci_high": None}]},
        "appendix": {
            "resamples": [{"note": "a spread of nan"}, {"ci_high": None}],
            "tables": [{"rows": [["STS", "[−∞, 4.2]"]], "note": "t is ±∞ when pairs agree"}],
        },
    }
    (tmp_path / "report.json").write_text(json.dumps(data))
    problems = text_problems(tmp_path)
    assert [p.split(": ")[1] for p in problems] == [
        "gates.gates[0].interval", "appendix.resamples[0].note",
        "appendix.tables[0].rows[0][1]",
    ], problems  # fmt: skip
    data["gates"]["gates"][0]["interval"] = "no interval (no look yet holds 3 units)"
    data["appendix"]["resamples"][0]["note"] = "a spread of none"
    data["appendix"]["tables"][0]["rows"] = [["STS", "no interval (one prompt only)"]]
    (tmp_path / "report.json").write_text(json.dumps(data))
    assert text_problems(tmp_path) == []


def test_a_scroll_hint_that_does_not_name_its_first_column_is_found() -> None:
    """A phone reader is told what moves and what stays: a hint saying only that the table
    scrolls, or "the first kept in view" with no column, is found."""
    said = [
        "The table scrolls sideways →",
        "The table scrolls sideways: 7 columns, the first kept in view →",
    ]
    for text in said:
        assert len(hint_problems(f'<p class="scroll-hint" aria-hidden="true">{text}</p>')) == 1
    good = "The table scrolls sideways (7 columns); its first column stays in view →"
    assert hint_problems(f'<p class="scroll-hint" aria-hidden="true">{good}</p>') == []


def test_a_value_that_is_not_finite_anywhere_in_report_json_is_found(tmp_path: Path) -> None:
    """However deep and under whatever key, "inf", "-inf", "nan" (or JSON's bare tokens) are
    found where null belongs; encoded replicates are not read."""
    data = {
        "result": {"numbers": {"STS": {"ci_low": "-inf", "ci_high": "inf", "se": "inf"}}},
        "tables": [{"rows": [["word", "Infinity"]]}],
        "replicates": "inf",
    }
    assert [p.split(":")[0] for p in non_finite_problems(data)] == [
        "result.numbers.STS.ci_low", "result.numbers.STS.ci_high", "result.numbers.STS.se",
        "tables[0].rows[0][1]",
    ]  # fmt: skip
    (tmp_path / "report.json").write_text('{"se": NaN, "ci_low": -Infinity}')
    assert len(text_problems(tmp_path)) == 2
    clean = {"result": {"numbers": {"STS": {"ci_low": None, "ci_high": None, "se": None}}}}
    assert non_finite_problems(clean) == []


def test_a_recipe_field_spelled_as_a_word_is_found() -> None:
    bad = {"headlines": [{"value": 3.0, "se": "inf", "bound_df": "inf", "ci_low": "nan"}]}
    assert len(raw_word_problems(bad)) == 2
    good = {"headlines": [{"value": 3.0, "se": "inf", "bound_df": None, "n_boot": 2000}]}
    assert raw_word_problems(good) == []


def test_a_plural_made_by_appending_s_to_a_y_is_found() -> None:
    bad = {"numbers": {"STS": {"scenes_only": {"resampled": "identitys (these identities only)"}}}}
    assert len(misspelled_plural_problems(bad)) == 1
    good = {"numbers": {"STS": {"resampled": "identities (these identities only), 3 days, keys"}}}
    assert misspelled_plural_problems(good) == []


def test_a_figure_s_encoded_replicates_are_data_not_words() -> None:
    # Base64 of compressed replicates spells any run of letters between its "/" and "+": read
    # as words, one report in some tens "misspelled" a plural or printed "nan".
    encoded = {"numbers": {"STS": {"value": 3.0, "replicates": "eNq/rZSNwnWys+nan/AAAA"}}}
    assert misspelled_plural_problems(encoded) == []
    assert unreadable_number_problems(encoded) == []
    worded = {"numbers": {"STS": {"value": 3.0, "note": "rZSNwnWys and nan"}}}
    assert len(misspelled_plural_problems(worded)) == 1
    assert len(unreadable_number_problems(worded)) == 1

"""Every line of the report holds: each figure drawn once, each count named by what it counts
and the same in the findings and the table, one formatting of a figure everywhere (the gate's
digits are the finding's), a direction said only where the interval establishes it, captions
in words and a glossary of what was measured."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from diptych.core.report.examples import flag_caption
from diptych.core.report.formatting import figure_text, sample_size
from diptych.core.report.gates import gate_lines
from diptych.core.report.quick_look import FINDING_MIN_UNITS
from diptych.core.workspace import Workspace

#: Words that state a lean (verdict.py's _LEANS).
LEANS = re.compile(r"more often|less often|higher than|lower than|over-represents|retrieves")


@pytest.fixture(scope="module")
def written(audit: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("truth")
    with Workspace.open(audit.ws_path) as ws:
        ws.analysis.report(audit.runs, out)
    return out


@pytest.fixture(scope="module")
def data(written: Path) -> dict[str, Any]:
    return json.loads((written / "report.json").read_text(encoding="utf-8"))


def _number(data: dict[str, Any], run: str, name: str) -> dict[str, Any]:
    part = next(r for r in data["runs"] if r["run"] == run)
    return dict(part["result"]["numbers"][name])


def test_a_direction_is_said_only_where_the_interval_excludes_zero(
    data: dict[str, Any],
) -> None:
    findings = data["verdict"]["findings"]
    kinds = {"excludes": 0, "includes": 0, "none": 0, "quick": 0}
    for f in findings:
        number = _number(data, f["run"], f["name"])
        low, high = number.get("ci_low"), number.get("ci_high")
        # JSON keeps an infinite end as the string "inf": no interval.
        finite = isinstance(low, float) and isinstance(high, float)
        excludes = isinstance(low, float) and isinstance(high, float) and (low > 0 or high < 0)
        units = [v for v in (number.get("units") or {}).values() if isinstance(v, int)]
        quick = finite and bool(units) and min(units) < FINDING_MIN_UNITS
        excludes = excludes and not quick
        leans = LEANS.search(f["sentence"]) is not None
        assert leans is bool(excludes), f["sentence"]
        if quick:
            # Too few units a side: a quick look, which states no direction however far from 0.
            kinds["quick"] += 1
            assert "A quick look, not a finding: " in f["sentence"], f["sentence"]
            assert f["direction"] == "not established" and f["excludes_zero"] is None
        elif excludes:
            kinds["excludes"] += 1
            assert f["sentence"].endswith("The interval excludes 0.")
            assert f["direction"] == ("positive" if number["value"] > 0 else "negative")
        else:
            kinds["includes" if finite else "none"] += 1
            # The figure first, the open direction last: never a lean before it.
            assert f["sentence"].endswith("the direction is not established.")
            assert f["direction"] == "not established"
    # The audit has an interval across 0, no interval and a quick look: its designs name two
    # identities a side (an established lean is tests/core/report/test_quick_look.py's, on four).
    assert kinds["includes"] and kinds["none"] and kinds["quick"], kinds


def test_every_n_names_what_it_counts_alike_in_findings_and_table(
    audit: Any, data: dict[str, Any], written: Path
) -> None:
    rows = {(h["run"], h["name"]): h["n"] for h in data["headlines"]}
    assert all(
        re.fullmatch(r"([\d,]+ [a-z ]+?)( in [\d,]+ [a-z ]+)?|", n) for n in rows.values()
    ), rows
    for f in data["verdict"]["findings"]:
        # The finding's count is the table's, word for word; the units it resamples follow,
        # or, where it has no interval, the units its data hold.
        counted = re.split(r", (?:resampling|its data hold) ", f["sample"])[0]
        assert counted == rows[(f["run"], f["name"])]
        if f["ci_low"] is None:
            assert "resampling" not in f["sample"], f
    text = "STS paired (expected from P(he), P(she))"
    expected = _number(data, audit.runs[0], text)
    assert rows[(audit.runs[0], text)] == (
        f"{expected['n']:,} prompts in {expected['clusters']:,} unordered scenes"
    )
    pst = _number(data, audit.runs[1], "occupation: STS paired")
    assert rows[(audit.runs[1], "occupation: STS paired")] == f"{pst['n']} persons"
    pearson = "occupation: Pearson r, %F paired vs %F BLS (over occupations)"
    assert rows[(audit.runs[1], pearson)] == "4 occupations"
    assert rows[(audit.runs[3], "occupations: difference man − woman")] == "4 answers"
    html = (written / "report.html").read_text(encoding="utf-8")
    md = (written / "report.md").read_text(encoding="utf-8")
    n = rows[(audit.runs[0], text)]
    assert f'<td class="count">{n}</td>' in html and f"| {n} |" in md


def test_a_figure_that_rounds_to_zero_prints_no_sign() -> None:
    assert figure_text(-0.001) == "0.00" and figure_text(-0.0) == "0.00"
    assert figure_text(-0.005) == "−0.01" and figure_text(-0.004) == "0.00"
    assert figure_text(-12.34) == "−12.3"


def test_sample_size_names_its_observations() -> None:
    assert sample_size({"n": 1600, "units": {"identity": 40}}, "person") == "1,600 persons"
    assert sample_size({"n": 1}, "story") == "1 story"
    assert sample_size({"n": 4, "n_of": "occupation"}, "person") == "4 occupations"
    # A drawn-label figure's answers and the draws its interval resamples, in one cell.
    drawn = {"n": 1600, "n_of": "answer", "units": {"draw": 800}}
    assert sample_size(drawn) == "1,600 answers in 800 draws"
    assert sample_size({"n": 120, "n_of": "answer", "units": {"draw": 120}}) == "120 answers"
    scenes = {"n": 160, "clusters": 40, "scenes_only": {"units": {"unordered scene": 40}}}
    assert sample_size(scenes, "prompt") == "160 prompts in 40 unordered scenes"
    assert sample_size({"n_pairs": 2, "unit": "image"}, "answer") == "2 image pairs"


def test_the_gate_and_the_finding_print_a_figure_with_the_same_digits(
    data: dict[str, Any], written: Path
) -> None:
    result = SimpleNamespace(
        label="sts-paired",
        part="pst",
        figure="occupation: STS paired",
        verdict="fail",
        blocks=True,
        on_inconclusive="block",
        value=11.5734,
        ci_low=10.071,
        ci_high=12.934,
        confidence=0.975,
        rule="below",
        limit_text="10",
        rule_text="below 10",
        note="",
    )
    (line,) = gate_lines(SimpleNamespace(results=[result]))
    assert (line.value, line.interval) == ("11.6", "10.1 to 12.9")
    assert "= 11.6, 97.5% fixed-design interval 10.1 to 12.9; rule: below 10." in line.sentence
    # The findings print each figure with that same function, and so does the table.
    html = (written / "report.html").read_text(encoding="utf-8")
    for f in data["verdict"]["findings"]:
        value = figure_text(f["value"])
        assert (
            f"{f['name']} {value}," in f["sentence"] or f"{f['name']} {value}." in (f["sentence"])
        )
        if f["ci_low"] is not None:
            interval = f"{figure_text(f['ci_low'])} to {figure_text(f['ci_high'])}"
            assert interval in f["sentence"]
            # The bounds one unbreakable token in their cell (a gate's name would follow them).
            cells = (
                f'{value}</td><td class="num"><span class="nowrap">'
                f"[{interval.replace(' to ', ', ')}]</span>"
            )
            assert cells in html, cells


@pytest.mark.parametrize(
    ("low", "high", "method", "why"),
    [
        (-math.inf, math.inf, "anytime-valid over looks (Pocock); no look yet holds 3 units of "
         "each kind with an interval, so none is tested", "no look yet holds 3 units of each "
         "kind with an interval, so none is tested"),
        (None, None, "t", "its figure has none"),
    ],
)  # fmt: skip
def test_a_gate_without_an_interval_says_so_and_why(
    low: float | None, high: float | None, method: str, why: str
) -> None:
    """A gate whose figure has no interval (no look held enough units to be tested) prints
    "no interval (why)" in its line and its report.json field, never "−∞ to ∞"."""
    result = SimpleNamespace(
        label="g", part="pst-text", figure="STS paired", verdict="inconclusive", blocks=True,
        on_inconclusive="block", value=67.04, ci_low=low, ci_high=high, confidence=0.95,
        rule="below", rule_text="below 95", note="", method=method,
    )  # fmt: skip
    (line,) = gate_lines(SimpleNamespace(results=[result]))
    assert line.interval == line.to_dict()["interval"] == f"no interval ({why})"
    assert f"= 67.0, no interval ({why}); rule: below 95." in line.sentence
    assert "∞" not in line.sentence and " interval no interval" not in line.sentence


def test_each_figure_is_drawn_once(audit: Any, data: dict[str, Any], written: Path) -> None:
    html = (written / "report.html").read_text(encoding="utf-8")
    md = (written / "report.md").read_text(encoding="utf-8")
    pst = next(r for r in data["runs"] if r["run"] == audit.runs[1])
    figures = {f["name"]: f for f in pst["result"]["figures"]}
    micro = "occupation: Micro STS per occupation (PST Tables 14 and 15)"
    assert [c["title"] for c in pst["charts"]] == [micro]
    # Figures 3 and 5 draw the micro-STS table's numbers: its chart shows them, they don't.
    for name in ("fig3_micro_sts_paired", "fig5_single_vs_paired"):
        title = figures[name]["title"]
        assert f'alt="{title}' not in html and f"![{title}" not in md
    # Figure 4 (generated against labour statistics) is no chart's: it stays.
    title = figures["fig4_pct_female_vs_bls"]["title"]
    assert f'alt="{title}' in html and f"![{title}" in md


def test_example_captions_are_words_not_python(written: Path) -> None:
    html = (written / "report.html").read_text(encoding="utf-8")
    examples = html[html.index('<section id="examples">') : html.index('<section id="review">')]
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", examples, re.DOTALL)
    assert len(captions) >= 6
    for caption in captions:
        assert not re.search(r"[{}]|\[&#39;|&#39;\]|&#39;: ", caption), caption
    assert any("question: “Is this person a doctor or a nurse?”" in c for c in captions)
    assert any("Most against the stereotype: editor." in c for c in captions)
    words = flag_caption(
        {"labels": {"human:w01": "feminine", "faces": "masculine"}, "model_id": "m"}
    )
    assert words == "labels: w01 (reviewer) feminine, faces masculine."
    assert flag_caption({"found": {"faces": 1}, "expected": 2}) == "found: faces 1; expected: 2."
    assert flag_caption({"words": ["arrest", "gun", "jail"]}) == "words: arrest, gun and jail."


def test_the_glossary_defines_only_what_was_measured(data: dict[str, Any], written: Path) -> None:
    terms = set(data["glossary"])
    assert {"STS", "association score", "crime-lexicon share", "95% interval"} <= terms
    # No retrieval run and no agent session: no retrieval figure or held-out re-test defined.
    assert terms.isdisjoint({"MaxSkew@K", "NDKL", "Bias@K", "held-out"})
    html = (written / "report.html").read_text(encoding="utf-8")
    glossary = html[html.index('<section id="glossary">') : html.index('<section id="provenance">')]
    assert re.findall(r"<dt>(.*?)</dt>", glossary) == list(data["glossary"])

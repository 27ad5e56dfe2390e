"""The check that no interval of a report's tables of figures or headlines stands unnamed beside a
named one finds each such interval, on each page, and lets a page that names none pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.surfaces.named_figures import named_figures_problems, two_intervals_problems

HEAD = '<table><thead><tr><th scope="col">figure</th><th scope="col">value</th><th scope="col">95% interval</th><th scope="col">n</th></tr></thead><tbody>'  # noqa: E501


def _row(figure: str, bounds: str, name: str = "") -> str:
    named = f'<span class="interval-name">{name}</span>' if name else ""
    return (
        f'<tr data-run="r" data-figure="{figure}"><td>{figure}</td><td class="num">1.88</td>'
        f'<td class="num"><span class="nowrap">{bounds}</span>{named}</td>'
        '<td class="count">12 prompts</td></tr>'
    )


def _page(tmp_path: Path, *, named: bool, beside: str) -> Path:
    gate = "95% anytime-valid interval, look 2 of 2"
    (tmp_path / "report.html").write_text(
        HEAD
        + _row("STS paired", "[−7.36, 11.1]", gate if named else "")
        + _row("STS single", "[−34.6, 12.0]", beside)
        + _row("mass", "—")
        + "</tbody></table>",
        encoding="utf-8",
    )
    (tmp_path / "report.md").write_text(
        "| figure | value | 95% interval | n |\n|---|---:|---|---:|\n"
        f"| STS paired | 1.88 | [−7.36, 11.1]{'; ' + gate if named else ''} | 144 prompts |\n"
        f"| STS single | −12.0 | [−34.6, 12.0]{'; ' + beside if beside else ''} | 12 prompts |\n"
        "| mass | 100.7 | — | 12 prompts |\n\nNext paragraph.\n",
        encoding="utf-8",
    )
    return tmp_path


def _headlines(*, named: bool, beside: str) -> dict[str, list[dict[str, str]]]:
    gate = " (95% anytime-valid interval, look 2 of 2)" if named else ""
    other = f" ({beside})" if beside else ""
    return {
        "headlines": [
            {
                "name": "STS paired",
                "interval": f"[−7.36, 11.1]{gate}",
                "sentence": f"STS paired is 1.88, with a 95% interval from −7.36 to 11.1{gate}, "
                "over 144 prompts; p = 0.500, not significant at the 5% level.",
            },
            {
                "name": "STS single",
                "interval": f"[−34.6, 12.0]{other}",
                "sentence": f"STS single is −12.0, with a 95% interval from −34.6 to 12.0{other}, "
                "over 12 prompts in 6 fixed scenes.",
            },
        ]
    }


def test_an_unnamed_interval_beside_a_named_one_is_found_on_every_page(tmp_path: Path) -> None:
    page = _page(tmp_path, named=True, beside="")
    found = named_figures_problems(page, _headlines(named=True, beside=""))
    assert found == [
        "html: 'STS single': its interval ([−34.6, 12.0]) is unnamed beside a named one",
        "md: 'STS single': its interval ([−34.6, 12.0]) is unnamed beside a named one",
        "json: headline interval: 'STS single': its interval ([−34.6, 12.0]) is unnamed "
        "beside a named one",
        "json: headline sentence: 'STS single': its interval (from −34.6 to 12.0) is unnamed "
        "beside a named one",
    ]
    assert json.dumps(found)  # one line each, quotable


def test_a_page_that_names_every_interval_or_none_passes(tmp_path: Path) -> None:
    fixed = "95% fixed-design interval"
    assert (
        named_figures_problems(
            _page(tmp_path, named=True, beside=fixed), _headlines(named=True, beside=fixed)
        )
        == []
    )
    assert (
        named_figures_problems(
            _page(tmp_path, named=False, beside=""), _headlines(named=False, beside="")
        )
        == []
    )


def _findings(gate: str, other: str) -> list[dict[str, str]]:
    return [
        {"name": "STS paired", "sentence": f"m: STS paired 1.88, {gate} −7.36 to 11.1."},
        {"name": "STS single", "sentence": f"m: STS single −12.0, {other} −34.6 to 12.0."},
        {"name": "mass", "sentence": "m: mass 101. No interval: the direction is not established."},
    ]


def test_a_finding_that_does_not_name_its_interval_on_a_gated_report_is_found() -> None:
    gate = "95% anytime-valid interval, look 2 of 2:"
    gated: dict[str, Any] = {"gates": {"gates": [{"kind": "anytime-valid"}]}}
    gated["verdict"] = {"findings": _findings(gate, "95% interval")}
    assert named_figures_problems(Path("/nonexistent"), gated) == [
        "json: finding 'STS single': its interval (95% interval −34.6 to 12.0) does not say it "
        "is anytime-valid or fixed-design"
    ]
    # Gated, even where no finding names its interval: each is found.
    gated["verdict"] = {"findings": _findings("95% interval", "95% interval")}
    assert len(named_figures_problems(Path("/nonexistent"), gated)) == 2
    gated["verdict"] = {"findings": _findings(gate, "95% fixed-design interval")}
    assert named_figures_problems(Path("/nonexistent"), gated) == []
    # A report without gates, naming no interval, says "95% interval" alone.
    plain = {"verdict": {"findings": _findings("95% interval", "95% interval")}}
    assert named_figures_problems(Path("/nonexistent"), plain) == []


def test_a_figure_with_two_intervals_on_one_page_fails(tmp_path: Path) -> None:
    gate = {"run": "r", "figure": "STS paired", "interval": "−1.04 to 24.2"}
    one = {"run": "r", "name": "STS paired", "interval": "[−1.04, 24.2] (95% anytime-valid "
           "interval, look 1 of 10; 11.5 on all 1,424 trials, 656 at look 1 and 768 stored since)",
           "sentence": "pst-text on m: STS paired is 11.8, with a 95% interval from −1.04 to "
           "24.2 (95% anytime-valid interval, look 1 of 10), over 160 prompts."}  # fmt: skip
    two = {**one, "interval": "[7.49, 15.4] (fixed-design; does not hold after the stop at look "
           "1 of 10)", "sentence": one["sentence"].replace("from −1.04 to 24.2", "from 7.49 to 15.4")}  # fmt: skip  # noqa: E501
    lines = [
        "- **PASS** below 25: pst-text · STS paired = 11.8, 95% anytime-valid interval −1.04 to "
        "24.2; rule: below 25.",
        "- m: STS paired {}, 95% interval (fixed-design): {} to {}, 352 prompts.",
        "| STS paired | 11.5 | [{}, {}]; fixed-design | 352 prompts |",
    ]
    for head, bounds in ((one, ("11.8", "−1.04", "24.2")), (two, ("11.5", "7.49", "15.4"))):
        page = "\n".join([lines[0], lines[1].format(*bounds), lines[2].format(*bounds[1:])])
        (tmp_path / "report.md").write_text(page + "\n", encoding="utf-8")
        data = {"gates": {"gates": [gate]}, "headlines": [head]}
        found = [p for p in named_figures_problems(tmp_path, data) if "two" in p or "2 int" in p]
        if head is one:
            assert found == [], found
        else:
            assert [p.split(":")[0] for p in found] == ["json", "page"], found
            assert all("[-1.04, 24.2], [7.49, 15.4]" in p for p in found), found


def test_a_figure_two_gates_of_a_family_read_has_one_interval_per_level() -> None:
    # Holm reads one figure at 97.5% for one gate and 95% for the other: each named by its
    # level, so two intervals at two levels are each a decision's own; two at one level are not.
    figure = "STS paired"
    gates = [
        {"run": "r", "figure": figure, "interval": "50.8 to 66.2", "level": "97.5%"},
        {"run": "r", "figure": figure, "interval": "52.2 to 65.1", "level": "95%"},
    ]
    head = {"run": "r", "name": figure, "interval": "[50.8, 66.2] (97.5% fixed-design interval)",
            "sentence": "p on m: STS paired is 59.0, with a 97.5% interval from 50.8 to 66.2 "
            "(97.5% fixed-design interval), over 36 prompts."}  # fmt: skip
    data: dict[str, Any] = {"gates": {"gates": gates}, "headlines": [head]}
    assert two_intervals_problems(Path("/nonexistent"), data) == []
    gates[1]["level"] = "97.5%"
    found = two_intervals_problems(Path("/nonexistent"), data)
    assert len(found) == 1 and "[50.8, 66.2], [52.2, 65.1]" in found[0], found


def test_an_unnamed_interval_in_where_the_bias_is_largest_is_found() -> None:
    from diptych.core.report.actions import _bars_named
    from tests.support.surfaces.named_figures import unnamed_in_actions

    head = "m (pst-text, run r), largest expected STS first: farmer (M) 91.4 [88.6, 93.5]"
    bare = [{"kind": "largest", "text": f"{head}; carpenter (M) 85.3 [80.5, 89.0]."}]
    assert len(unnamed_in_actions(bare)) == 1
    note = "Points: expected STS; bars: 95% intervals over the identity's partners (paired); x."
    named = [{"kind": "largest", "text": f"{head} ({_bars_named(note)})."}]
    assert named[0]["text"].endswith("(95% intervals over the identity's partners (paired)).")
    assert unnamed_in_actions(named) == []
    assert unnamed_in_actions([{"kind": "largest", "text": "farmer (M) 91.4."}]) == []

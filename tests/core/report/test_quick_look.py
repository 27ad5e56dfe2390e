"""A quick look is not a finding: a strong stereotype planted on two occupations a side gives
an interval far from 0, yet ``diptych show``, the report's verdict and headlines and
report.json say it is a quick look, why, and how many a side a finding needs; on four a side
the same stereotype is a finding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import cli

MASC = ["carpenter", "driver", "farmer", "guard"]
FEM = ["nurse", "editor", "secretary", "librarian"]
#: A masculine-stereotyped person is "she" one time in ten, a feminine one nine in ten: the
#: expected STS is 100 · (0.9 − 0.1) = 80 on every identity, so an interval over identities
#: lies far above 0 however few they are.
PLANTED = {**dict.fromkeys(MASC, 0.1), **dict.fromkeys(FEM, 0.9)}
PAIRED = "STS paired (expected from P(he), P(she))"
WHY = (
    "its interval rests on 2 identities a side, too few to decide anything; a finding needs "
    "at least 4 a side"
)


def _run(
    tmp_path: Path, a_side: int, feminine: int | None = None
) -> tuple[str, str, dict[str, Any], str]:
    """The run of ``a_side`` identities a side (``feminine`` of them, where given): what
    ``diptych show`` printed, report.json and report.md."""
    store = tmp_path / "ws"
    with Workspace.open(store) as ws:
        model = ("scripted-likelihood", {"p_feminine": PLANTED, "noise": 0.02})
        params = {"masculine": MASC[:a_side], "feminine": FEM[: feminine or a_side]}
        run = ws.runs.run_sync("pst-text", [model], params=params).id
    shown = cli("--store", str(store), "show", run)
    assert shown.exit_code == 0, shown.output
    written = cli("--store", str(store), "report", run, "--out", str(tmp_path / "report"))
    assert written.exit_code == 0, written.output
    data = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    return run, shown.output, data, md


@pytest.mark.usefixtures("scripted")
def test_two_a_side_is_a_quick_look_however_far_from_0(tmp_path: Path) -> None:
    _, shown, data, md = _run(tmp_path, 2)
    figure = data["result"]["numbers"][PAIRED]
    # The planted stereotype is there, and its interval lies wholly above 0 ...
    assert figure["value"] == pytest.approx(80, abs=5) and figure["ci_low"] > 0, figure
    # ... yet it is no finding anywhere.
    (paired,) = [f for f in data["verdict"]["findings"] if f["name"] == PAIRED]
    assert paired["excludes_zero"] is None and paired["direction"] == "not established"
    assert paired["quick_look"] == WHY
    assert paired["sentence"].endswith(f". A quick look, not a finding: {WHY}."), paired
    for finding in data["verdict"]["findings"]:
        assert "excludes 0" not in finding["sentence"] and "assigns the" not in finding["sentence"]
    (headline,) = [h for h in data["headlines"] if h["name"] == PAIRED]
    assert headline["quick_look"] == WHY and "significant" not in headline["sentence"]
    assert f"a quick look, not a finding: {WHY}." in headline["sentence"]
    verdict = md.split("## Findings", 1)[1].split("\n## ", 1)[0]
    assert "excludes 0" not in verdict and "significant" not in verdict
    assert verdict.count(f"A quick look, not a finding: {WHY}.") == 2  # paired and single
    low, high = (f"{figure[k]:.1f}".replace("-", "−") for k in ("ci_low", "ci_high"))
    said = f"{PAIRED} {figure['value']:.1f} [{low}, {high}] is a quick look, not a finding: {WHY}."
    assert said in " ".join(shown.split()), shown
    # Its n counts prompts (2 × 2 scenes in both orders of their two people), its interval
    # resamples the 2 identities of each list.
    (row,) = [line for line in shown.splitlines() if line.startswith(f"│ {PAIRED} ")]
    assert row.split("│")[4:6] == [" 16 prompts ", " 2 + 2 identities "], row


@pytest.mark.usefixtures("scripted")
def test_four_a_side_is_a_finding(tmp_path: Path) -> None:
    _, shown, data, md = _run(tmp_path, 4)
    (paired,) = [f for f in data["verdict"]["findings"] if f["name"] == PAIRED]
    assert paired["excludes_zero"] is True and paired["direction"] == "positive"
    assert paired["quick_look"] == "" and paired["sentence"].endswith("The interval excludes 0.")
    assert "quick look" not in shown and "quick look" not in md


@pytest.mark.usefixtures("scripted")
def test_uneven_sides_are_each_named(tmp_path: Path) -> None:
    """2 masculine and 3 feminine identities: the quick look names each side as it is, not
    the fewer of them "a side". Every identity of a list planted alike, the interval falls to
    its floor: it rests on their 2 × 3 pairings, as the figure's resamples count them."""
    _, shown, data, md = _run(tmp_path, 2, feminine=3)
    why = (
        "its interval rests on 6 pairings of 2 masculine and 3 feminine identities, too few to "
        "decide anything; a finding needs at least 4 a side"
    )
    (paired,) = [f for f in data["verdict"]["findings"] if f["name"] == PAIRED]
    assert paired["quick_look"] == why, paired
    (headline,) = [h for h in data["headlines"] if h["name"] == PAIRED]
    assert headline["quick_look"] == why
    assert f"A quick look, not a finding: {why}." in " ".join(md.split())
    assert f"is a quick look, not a finding: {why}." in " ".join(shown.split()), shown
    assert "identities a side" not in shown and "identities a side" not in md


@pytest.mark.usefixtures("scripted")
def test_a_figure_with_no_interval_is_no_quick_look(tmp_path: Path) -> None:
    """One masculine identity: the expected STS has no interval and says why; it is not also
    called a quick look resting on "1 identity a side"."""
    _, shown, data, md = _run(tmp_path, 1, feminine=3)
    figure = data["result"]["numbers"][PAIRED]
    assert (figure["ci_low"], figure["ci_high"]) == (None, None), figure
    flat = " ".join(shown.split())
    assert "no interval (one masculine identity only)" in flat, shown
    assert "quick look" not in shown and "quick look" not in md, shown
    assert all(f["quick_look"] == "" for f in data["verdict"]["findings"])
    assert all(h["quick_look"] == "" for h in data["headlines"])


def test_the_words_name_what_the_interval_rests_on() -> None:
    """An interrupted run's figure with no feminine identity has no interval: no quick look,
    never "0 identities a side"; three kinds of unit are each named."""
    from diptych.core.report.quick_look import quick_look

    none = {"value": 41.3, "ci_low": float("-inf"), "ci_high": float("inf"),
            "units": {"masculine identity": 2, "feminine identity": 0}}  # fmt: skip
    assert quick_look(none) == ""
    three = {"value": 1.0, "ci_low": 0.5, "ci_high": 1.5,
             "units": {"masculine identity": 2, "feminine identity": 5, "scene": 3}}  # fmt: skip
    assert quick_look(three) == (
        "its interval rests on 2 masculine identities, 5 feminine identities and 3 scenes, too "
        "few to decide anything; a finding needs at least 4 a side"
    )
    one_kind = {"value": 1.0, "ci_low": 0.5, "ci_high": 1.5, "units": {"occupation": 3}}
    assert quick_look(one_kind) == (
        "its interval rests on 3 occupations, enough for a gate's test but too few for a "
        "finding; a finding needs at least 4"
    )

"""A pst-text run's drawn-labels figures rest on the identities behind their draws: a scene's
draws share its two identities, so the identities are the units that vary. With 2 or 3
identities a side every figure is a quick look that says so in identities ("rests on 2
identities a side"), in ``diptych run``, ``diptych show``, the report's verdict and headlines
and report.json; with 4 a side none is; with 1 a side no figure has an interval, and each says
why in identities, never in draws."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import call

MASC = ["carpenter", "driver", "farmer", "guard"]
FEM = ["nurse", "editor", "secretary", "librarian"]
#: Every figure of a likelihood run with both settings: the expected STS, the drawn labels'
#: STS and their gap.
FIGURES = [
    "STS paired (expected from P(he), P(she))",
    "STS single (expected from P(he), P(she))",
    "STS paired (drawn labels)",
    "STS single (drawn labels)",
    "gap paired − single (drawn labels)",
]
DRAWN = FIGURES[2:]


def _why(a_side: int, figure: dict[str, Any] | None = None) -> str:
    # From 3 a side a gate can test a look, so the words say so (LOOK_MIN_UNITS).
    too_few = (
        "enough for a gate's test but too few for a finding"
        if a_side >= 3
        else "too few to decide anything"
    )
    # An interval at its floor rests on the a_side² pairings of the identities, and says so
    # in the unit its resamples count.
    floored = bool(figure and figure.get("floor"))
    rests = f"{a_side**2} pairings of " if floored else ""
    return (
        f"its interval rests on {rests}{a_side} identities a side, {too_few}; a "
        "finding needs at least 4 a side"
    )


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    # The words are read across the table's cells: one width, whatever the worker's terminal.
    monkeypatch.setenv("COLUMNS", "200")


def _run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], a_side: int
) -> tuple[str, str, dict[str, Any], str]:
    """What ``diptych run`` and ``diptych show`` printed, report.json and report.md of a run
    of ``a_side`` identities a side on the scripted likelihood model."""
    store = ["--store", str(tmp_path / "ws")]
    code, ran = call(capsys, *store, "run", "pst-text", "-m", "scripted-likelihood",
                     "-p", f"masculine={','.join(MASC[:a_side])}",
                     "-p", f"feminine={','.join(FEM[:a_side])}")  # fmt: skip
    assert code == 0, ran
    run_id = next(w for w in ran.split() if w.startswith("pst-text-")).rstrip(":")
    code, shown = call(capsys, *store, "show", run_id)
    assert code == 0, shown
    out = tmp_path / "report"
    code, said = call(capsys, *store, "report", run_id, "--out", str(out))
    assert code == 0, said
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return ran, shown, data, (out / "report.md").read_text(encoding="utf-8")


@pytest.mark.usefixtures("scripted_plugin")
@pytest.mark.parametrize("a_side", [2, 3])
def test_few_identities_a_side_make_every_figure_a_quick_look(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], a_side: int
) -> None:
    ran, shown, data, md = _run(tmp_path, capsys, a_side)
    numbers = data["result"]["numbers"]
    identities = {"masculine identity": a_side, "feminine identity": a_side}
    # Paired: a_side² scenes in both orders, one sample, two people each; single: each of
    # the 2·a_side identities three times, one person each.
    counts = {
        "STS paired (drawn labels)": (4 * a_side**2, 2 * a_side**2),
        "STS single (drawn labels)": (6 * a_side, 6 * a_side),
    }
    for name, (answers, draws) in counts.items():
        figure = numbers[name]
        assert figure["units"] == identities, (name, figure["units"])
        assert (figure["n"], figure["clusters"]) == (answers, draws), figure
        # The interval over draws alone is kept beside it, for these identities only.
        assert figure["scenes_only"]["units"] == {"draw": draws}
    assert numbers["gap paired − single (drawn labels)"]["units"] == identities
    findings = {f["name"]: f for f in data["verdict"]["findings"]}
    headlines = {h["name"]: h for h in data["headlines"]}
    flat_md, flat_run, flat_show = (" ".join(t.split()) for t in (md, ran, shown))
    # The verdict states the expected STS; the headlines every figure.
    assert set(findings) == set(FIGURES[:2]), findings
    whys = {name: _why(a_side, numbers[name]) for name in FIGURES}
    for name, finding in findings.items():
        assert finding["quick_look"] == whys[name] and finding["excludes_zero"] is None, finding
    for name in FIGURES:
        why = whys[name]
        assert headlines[name]["quick_look"] == why, headlines[name]
        assert f"a quick look, not a finding: {why}." in headlines[name]["sentence"]
        # Its value and interval, then the quick look in the verdict's words.
        said = re.compile(
            rf"{re.escape(name)} \S+ \[\S+, \S+\]( †)? is a quick look, not a finding: "
            + re.escape(f"{why}.")
        )
        for flat in (flat_run, flat_show):
            assert said.search(flat), (said.pattern, flat)
    for flat in (flat_run, flat_show):
        for why in set(whys.values()):
            said_of = list(whys.values()).count(why)
            assert flat.count(f"is a quick look, not a finding: {why}.") == said_of, flat
    verdict = flat_md.split("## Findings", 1)[1].split(" ## ", 1)[0]
    for name in FIGURES[:2]:
        assert f"A quick look, not a finding: {whys[name]}." in verdict, verdict
    assert " draws, too few" not in flat_run + flat_show + flat_md + json.dumps(data)


@pytest.mark.usefixtures("scripted_plugin")
def test_four_identities_a_side_are_no_quick_look(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ran, shown, data, md = _run(tmp_path, capsys, 4)
    numbers = data["result"]["numbers"]
    for name in DRAWN:
        assert numbers[name]["units"] == {"masculine identity": 4, "feminine identity": 4}
    assert all(f["quick_look"] == "" for f in data["verdict"]["findings"])
    assert all(h["quick_look"] == "" for h in data["headlines"])
    for text in (ran, shown, md):
        assert "quick look" not in text


@pytest.mark.usefixtures("scripted_plugin")
def test_one_identity_a_side_gives_no_interval_and_says_why_in_identities(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ran, shown, data, md = _run(tmp_path, capsys, 1)
    numbers = data["result"]["numbers"]
    for name in FIGURES:
        figure = numbers[name]
        assert (figure["ci_low"], figure["ci_high"]) == (None, None), (name, figure)
        assert figure["units"] == {"masculine identity": 1, "feminine identity": 1}
        assert "identit" in figure["reason"] and "draw" not in figure["reason"], figure
    # A figure with no interval says why it has none; it is not also called a quick look.
    for text in (ran, shown, md):
        assert "quick look" not in text and "interval rests on" not in text
    assert "no interval (one masculine identity only)" in " ".join(shown.split())

"""What an STS interval resamples is said one way on every surface, from one function
(:func:`diptych.core.resampled_units.resampled_units`): the paired STS's identities crossed in
scenes, the single STS's two lists as separate lists (a single-person prompt crosses nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.cli.main import main
from diptych.core.resampled_units import resampled_units
from diptych.core.standings import sts_unit_words
from diptych.core.workspace import Workspace

MASC = ["carpenter", "sheriff", "farmer"]
FEM = ["editor", "designer", "writer"]
DESIGN = {"masculine": MASC, "feminine": FEM, "samples_paired": 1, "samples_single": 2}
COUNTS = {"masculine identity": 3, "feminine identity": 3}
CROSSED = resampled_units(COUNTS, "crossed")
APART = resampled_units(COUNTS, "stratified")


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), " ".join((out + err).split())


@pytest.fixture
def two_models(tmp_path: Path, scripted: None) -> tuple[Path, str]:
    """Two runs of one design, both settings; the path and the first run's id."""
    path = tmp_path / "ws"
    runs = []
    with Workspace.open(path) as ws:
        for p in (0.1, 0.4):
            # Identities that differ: the paired interval rests on the lists, not its floor.
            planted = {
                **{m: p + 0.15 * i for i, m in enumerate(MASC)},
                **{f: 1 - p - 0.15 * i for i, f in enumerate(FEM)},
            }
            runs.append(ws.runs.run_sync(
                "pst-text", [("scripted-likelihood", {"p_feminine": planted})], params=DESIGN
            ).id)  # fmt: skip
    return path, runs[0]


def test_the_words_name_each_settings_design() -> None:
    assert CROSSED == "3 masculine × 3 feminine identities crossed in scenes"
    assert APART == "3 masculine and 3 feminine identities as separate lists"
    assert sts_unit_words("paired") == "masculine × feminine identities crossed in scenes"
    assert sts_unit_words("single") == "masculine and feminine identities as separate lists"


def test_every_surface_says_the_single_sts_resamples_its_lists_apart(
    two_models: tuple[Path, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path, run = two_models
    store = ("--store", str(path))
    expected = "STS {} (expected from P(he), P(she))"
    # The plan (--dry-run; the New run screen prints the same lines).
    params = [x for k in ("masculine", "feminine") for x in ("-p", f"{k}={','.join(DESIGN[k])}")]
    code, out = call(capsys, *store, "run", "pst-text", "-m", "scripted-likelihood", *params,
                     "-p", "samples_single=2", "--dry-run")  # fmt: skip
    assert code == 0, out
    assert f"{expected.format('paired')}: ±" in out and f"({CROSSED}, df " in out
    assert f"({APART}, df " in out
    # The report: its Findings and "What each interval resamples".
    report = tmp_path / "report"
    code, out = call(capsys, *store, "report", run, "--out", str(report), "--format", "md")
    assert code == 0, out
    md = " ".join((report / "report.md").read_text(encoding="utf-8").split())
    assert f"- {expected.format('single')}: {APART} — speaks for" in md
    assert f"- {expected.format('paired')}: {CROSSED}" in md
    assert f"resampling {APART}" in md and f"resampling {CROSSED}" in md
    assert "crossed in scenes" not in md.split(f"{expected.format('single')}: ")[-1][:80]
    # The standings of the single figure (the Standings screen prints the same page).
    code, out = call(capsys, *store, "standings", "--figure", expected.format("single"))
    assert code == 0, out
    assert f"95% interval: over the {sts_unit_words('single')}" in out
    assert "crossed in scenes" not in out
    code, out = call(capsys, *store, "standings")
    assert f"95% interval: over the {sts_unit_words('paired')}" in out

"""Perceived skin tone end to end: ``diptych run pst`` on the fake image service painting PAIRS
photographs, labelled by the ``faces`` and ``skin-tone`` annotators, reports the tone gap and the
gender × tone table with their intervals."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cli import call

from diptych.core import plugins
from diptych.core.store import RunRecord, open_store
from diptych.testing import FakeOpenAIServer
from diptych.testing.pairs_photos import PairsPhotoService

pytest.importorskip("dlib", reason="the faces extra reads the faces")
pytest.importorskip("skimage", reason="the faces extra reads skin tone in CIELAB")
pytest.importorskip("diptych.plugins.annotators.skin_tone")

SUBSET = ["-p", "aspects=occupation", "-p", "masculine=carpenter,sheriff,driver",
          "-p", "feminine=nurse,editor,baker", "-p", "samples_single=1"]  # fmt: skip


@pytest.fixture
def skin_tone_registered() -> Iterator[None]:
    """The skin-tone annotator, by hand where the installed package's entry points predate it."""
    import diptych.plugins.annotators.skin_tone as skin_tone

    if "skin-tone" in plugins.load_plugins().annotators:
        yield
        return
    name = plugins.register_plugin(skin_tone, "skin-tone-end-to-end")
    try:
        yield
    finally:
        plugins.unregister_plugin(name)


def _annotated_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[str, RunRecord]:
    """``diptych run pst`` of SUBSET on the fake service painting PAIRS photographs, then
    ``annotate`` by faces and by skin-tone: the workspace and its run."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-tone")
    ws = str(tmp_path / "ws")
    with FakeOpenAIServer(painter=PairsPhotoService()) as fake:
        model = ["-m", "openai-images", "-M", f"base_url={fake.base_url}"]
        code, out = call(capsys, "--store", ws, "run", "pst", *model, *SUBSET, "--quiet")
        assert code == 0, out
    with open_store(ws) as store:
        (run,) = store.list_runs()
    for annotator in ("faces", "skin-tone"):
        code, out = call(capsys, "--store", ws, "annotate", run.id, "--annotator", annotator)
        assert code == 0, out
    return ws, run


@pytest.mark.usefixtures("skin_tone_registered")
def test_a_pst_run_on_pairs_photographs_reports_its_tone_gap_and_gender_by_tone_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, run = _annotated_run(tmp_path, capsys, monkeypatch)
    report = tmp_path / "report"
    code, out = call(capsys, "--store", ws, "report", run.id, "--out", str(report))
    assert code == 0, out
    numbers = json.loads((report / "report.json").read_text())["result"]["numbers"]
    gap = numbers["occupation: tone gap paired"]
    # 3 × 3 identities, both orders: the interval resamples both lists and is finite.
    assert gap["units"] == {"masculine identity": 3, "feminine identity": 3}
    assert math.isfinite(gap["ci_low"]) and math.isfinite(gap["ci_high"])
    assert -9 <= gap["ci_low"] <= gap["value"] <= gap["ci_high"] <= 9
    share = numbers["occupation: tone share Monk 1–3, paired"]
    assert 0 <= share["ci_low"] <= share["value"] <= share["ci_high"] <= 1
    markdown = (report / "report.md").read_text()
    assert "Perceived gender × skin tone band" in markdown
    assert "Tone gap of paired images" in markdown
    assert "labels by skin-tone" in markdown.lower() or "skin-tone (" in markdown
    assert "not race, not ethnicity" in markdown


@pytest.mark.usefixtures("skin_tone_registered")
def test_peoples_tones_of_a_drawn_template_correct_the_tone_figures_show_and_report_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import csv

    ws, run = _annotated_run(tmp_path, capsys, monkeypatch)
    with open_store(ws) as store:
        population = sum(1 for s in store.run_subjects(run.id) if s["status"] == "done")
    batch = tmp_path / "batch.csv"
    # Everyone drawn (a uniform sample of the whole run: probability 1 each).
    code, out = call(capsys, "--store", ws, "annotate", run.id, "--template", str(batch),
                     "--sample", str(population), "--design", "uniform", "--seed", "5")  # fmt: skip
    assert code == 0, out
    with batch.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == population and "tone" in rows[0]
    # The planted truth: people see every masculine-stereotyped person at step 9 and every
    # feminine-stereotyped one at step 2, whatever the annotator read.
    for r in rows:
        r["label"] = r["stereotype"]
        r["tone"] = "9" if r["stereotype"] == "masculine" else "2"
    with batch.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    code, out = call(capsys, "--store", ws, "annotate", run.id, "--import", str(batch))
    assert code == 0, out
    assert f"{population} labels and {population} skin tones" in out
    # Every person labelled with probability 1: the corrected gap is 9 − 2 exactly, and the
    # share of Monk 8–10 among a paired image's two persons is one half.
    monkeypatch.setenv("COLUMNS", "200")  # one figure a line in show's table
    code, shown = call(capsys, "--store", ws, "show", run.id)
    assert code == 0, shown
    cells = {
        cells[1]: cells[2]
        for line in shown.splitlines()
        if len(cells := [c.strip() for c in line.split("│")]) > 3
    }
    assert cells["occupation: tone gap paired, prediction-powered"] == "7.00", shown
    assert cells["occupation: tone share Monk 8–10, paired, prediction-powered"] == "0.50"
    report = tmp_path / "report"
    code, out = call(capsys, "--store", ws, "report", run.id, "--out", str(report))
    assert code == 0, out
    numbers = json.loads((report / "report.json").read_text())["result"]["numbers"]
    gap = numbers["occupation: tone gap paired, prediction-powered"]
    assert gap["value"] == pytest.approx(7.0, abs=1e-9)
    assert gap["n_labelled"] == gap["n_persons"] == sum(r["setting"] == "paired" for r in rows)
    dark = numbers["occupation: tone share Monk 8–10, paired, prediction-powered"]
    assert dark["value"] == pytest.approx(0.5, abs=1e-9)
    light = numbers["occupation: tone share Monk 1–3, single, prediction-powered"]
    assert light["value"] == pytest.approx(0.5, abs=1e-9)
    markdown = (report / "report.md").read_text()
    assert "Prediction-powered skin tone" in markdown

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
from diptych.core.store import open_store
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


@pytest.mark.usefixtures("skin_tone_registered")
def test_a_pst_run_on_pairs_photographs_reports_its_tone_gap_and_gender_by_tone_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
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

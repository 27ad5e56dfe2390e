"""Gates on the tone gap, end to end: an audit of ``pst`` on the fake image service painting
PAIRS photographs, its people labelled by ``faces`` and ``skin-tone`` after every look, stops
``--until-decided`` once its gates on the tone gap are decided, and each verdict is what the
gate's rule says of the interval the audit printed."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.cli import call

from diptych.core import plugins
from diptych.testing import FakeOpenAIServer
from diptych.testing.pairs_photos import PairsPhotoService

pytest.importorskip("dlib", reason="the faces extra reads the faces")
pytest.importorskip("skimage", reason="the faces extra reads skin tone in CIELAB")
pytest.importorskip("diptych.plugins.annotators.skin_tone")

MASC = ["carpenter", "sheriff", "driver", "farmer"]
FEM = ["nurse", "editor", "baker", "cashier"]
GAP = "occupation: tone gap paired"


@pytest.fixture
def skin_tone_registered() -> Iterator[None]:
    """The skin-tone annotator, by hand where the installed package's entry points predate it."""
    import diptych.plugins.annotators.skin_tone as skin_tone

    if "skin-tone" in plugins.load_plugins().annotators:
        yield
        return
    name = plugins.register_plugin(skin_tone, "skin-tone-until-decided")
    try:
        yield
    finally:
        plugins.unregister_plugin(name)


def _audit(path: Path, base_url: str) -> Path:
    data = {
        "audit": 1,
        "name": "tone-gates",
        "seed": 0,
        "models": {"painter": {"plugin": "openai-images", "params": {"base_url": base_url},
                               "key_env": "OPENAI_API_KEY"}},
        "probes": [{"probe": "pst", "models": ["painter"],
                    "params": {"aspects": ["occupation"], "masculine": MASC, "feminine": FEM,
                               "setting": "paired"}}],
        "labels": {"annotators": ["faces", "skin-tone"]},
        "report": {"formats": ["json"]},
        # The photographs are drawn without regard to the identities: no gap is planted, so
        # a gate that the gap lies within ±7 steps passes once the interval is narrow enough,
        # and one that it is at least 8 steps fails as soon as that is shown.
        "gates": [
            {"name": "no gap of 7 steps", "part": "pst", "figure": GAP, "within": [-7, 7]},
            {"name": "a gap of 8 steps", "part": "pst", "figure": GAP, "not_below": 8},
        ],
    }  # fmt: skip
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return path


@pytest.mark.usefixtures("skin_tone_registered")
def test_gates_on_the_tone_gap_decide_an_audit_until_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-tone")
    ws = str(tmp_path / "ws")
    out_dir = tmp_path / "report"
    with FakeOpenAIServer(painter=PairsPhotoService()) as fake:
        file = _audit(tmp_path / "tone.yaml", fake.base_url)
        code, out = call(capsys, "--store", ws, "audit", "run", str(file), "--until-decided",
                         "--batches", "3", "--out", str(out_dir), "--quiet")  # fmt: skip
    # One gate passes and one fails: the audit's exit is the failure's.
    assert code == 1, out
    # It stops at the first look at which every gate is decided. Which look that is, is not
    # fixed: the order the 32 images (4 × 4 scenes in both orders) are bought in follows the
    # audit's seed and each request's key, which names the service by its URL, the fake
    # server's port drawn afresh each run; a batch of 11 may hold too few identities a side
    # to test, or an interval too wide to decide.
    looks = _verdicts_by_look(out)
    last = max(looks)
    assert looks[last] == {"no gap of 7 steps": "PASS", "a gap of 8 steps": "FAIL"}, out
    assert all("INCONCLUSIVE" in looks[k].values() for k in range(1, last)), out
    bought = {1: 11, 2: 22, 3: 32}[last]
    if last < 3:
        assert f"stopped: every gate decided in {last} of 3 batches" in out, out
        # What it bought, said once in the closing line, as `audit list` says it.
        closing = f"decided at look {last} of 3: {bought} of 32 requests, {32 - bought} saved"
        assert re.search(rf"^audit \S+ {closing}; ", out, re.M), out
    else:
        assert "stopped: every gate decided; bought 32 of 32 requests (100.0%)" in out, out
    assert "1 passed, 1 failed, 0 inconclusive → exit 1" in out
    # Each verdict is its rule read on the anytime-valid interval the audit printed.
    verdicts = {}
    for line in out.splitlines():
        for verdict in ("PASS", "FAIL"):
            if line.startswith(verdict) and f"{GAP} = " in line:
                low, high = line.split("[")[1].split("]")[0].split(", ")
                verdicts[verdict] = (_number(low), _number(high), line)
    low, high, line = verdicts["PASS"]
    assert -7 <= low <= high <= 7 and "within [\N{MINUS SIGN}7, 7]" in line
    low, high, line = verdicts["FAIL"]
    assert high < 8 and "not_below 8" in line
    assert "interval: anytime-valid over looks" in out
    # The gap the gates read is the report's, from the skin-tone annotator's labels.
    gap = _numbers(out_dir / "report.json")[GAP]
    # Over the images bought (and both of whose tones were read): at least two of each list,
    # or there would be no interval to decide on.
    assert all(2 <= n <= 4 for n in gap["units"].values())
    assert f"{gap['value']:.2f}".replace("-", "−") in verdicts["PASS"][2]


def _verdicts_by_look(out: str) -> dict[int, dict[str, str]]:
    """Each look's verdict on each gate, as the audit printed them ("look 1 of 3  PASS ...")."""
    looks: dict[int, dict[str, str]] = {}
    for m in re.finditer(r"^look (\d) of 3 +(PASS|FAIL|INCONCLUSIVE)\b.*? {2,}(.+?): ", out, re.M):
        looks.setdefault(int(m[1]), {})[m[3]] = m[2]
    return looks


def _number(text: str) -> float:
    return float(text.replace("−", "-"))


def _numbers(path: Path) -> dict[str, dict[str, Any]]:
    data = json.loads(path.read_text())
    numbers: dict[str, dict[str, Any]] = data["result"]["numbers"]
    return numbers

"""Two models a report would name alike — one plugin on other weights, another backend build or
other parameters — are named apart, with what differs, in every sentence that names them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from diptych.core.report.names import tell_apart
from diptych.core.workspace import Workspace
from diptych.testing.scripted import ScriptedLikelihood


def _model(model_id: str, version: str, builds: list[str]) -> dict[str, Any]:
    return {"name": "llamacpp", "model_id": model_id, "version": version, "build_names": builds}


def test_two_builds_of_one_model_are_named_by_their_builds() -> None:
    models = [
        _model("llamacpp", "3f2a", ["llama-cpp-python 0.3.9"]),
        _model("llamacpp", "3f2a", ["llama-cpp-python 0.3.16"]),
        _model("llamacpp", "3f2a", ["llama-cpp-python 0.3.9"]),
        {"name": "scripted-likelihood", "model_id": "scripted-likelihood", "version": "1"},
    ]
    tell_apart(models)
    assert [m["shown"] for m in models] == [
        "llamacpp (build llama-cpp-python 0.3.9)",
        "llamacpp (build llama-cpp-python 0.3.16)",
        "llamacpp (build llama-cpp-python 0.3.9)",
        # A model alone under its name keeps its name.
        "scripted-likelihood",
    ]


def test_other_weights_and_parameters_are_named_by_what_differs() -> None:
    models = [
        _model("llamacpp", "3f2a", []),
        _model("llamacpp", "9c10", []),
        _model("llamacpp#1a2b3c4d", "9c10", []),
    ]
    tell_apart(models)
    assert [m["shown"] for m in models] == [
        "llamacpp (version 3f2a)",
        "llamacpp (version 9c10)",
        "llamacpp#1a2b3c4d (version 9c10)",
    ]


@pytest.mark.usefixtures("scripted")
def test_a_report_on_two_builds_tells_them_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    design = {"masculine": ["carpenter", "sheriff"], "feminine": ["nurse", "editor"]}
    with Workspace.open(tmp_path / "ws") as ws:
        runs = []
        # One plugin under one id, on two builds of its backend (and two weights' versions,
        # so that the second run asks its own trials).
        for version, build in (
            ("1", "llama-cpp-python 0.3.9; AVX = 1"),
            ("2", "llama-cpp-python 0.3.16; AVX2 = 1"),
        ):
            monkeypatch.setattr(ScriptedLikelihood, "build", lambda self, b=build: b)
            model = ("scripted-likelihood", {"version": version})
            runs.append(ws.runs.run_sync("pst-text", [model], params=design).id)
        ws.analysis.report(runs, tmp_path / "report", formats="md,json")
    findings = json.loads((tmp_path / "report" / "report.json").read_text())["verdict"]["findings"]
    said = {f["run"]: f["sentence"].split(":")[0] for f in findings}
    assert set(said) == set(runs)
    first, second = (said[r] for r in runs)
    assert first != second
    assert "version 1" in first and "build llama-cpp-python 0.3.9" in first
    assert "version 2" in second and "build llama-cpp-python 0.3.16" in second

"""Models a reader would take for one — a model on two builds of its backend, two servers of one
GGUF file — are named apart in the standings as the report names them (its plugin, with the
version, build or parameters that differ), on every surface: ``diptych standings`` and its
JSON, the Standings screen's rows and the report's *Standing among models*."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diptych.core.report.standings_tables import standings_text
from diptych.core.standings import Measured, rank_table
from diptych.core.workspace import Workspace
from diptych.core.workspace.standings import told_apart
from diptych.testing.scripted import ScriptedLikelihood
from tests.core.test_standings import sample
from tests.support.cli import call

MASC = ["carpenter", "sheriff", "farmer", "guard"]
FEM = ["editor", "designer", "writer", "baker"]
DESIGN = {"masculine": MASC, "feminine": FEM, "samples_paired": 2, "setting": "paired"}
OLD, NEW = "llama-cpp-python 0.3.9", "llama-cpp-python 0.3.16"


def planted(p_masculine_she: float, spread: tuple[float, ...]) -> dict[str, float]:
    # Identities differ a little around the planted P(she), and differently in each model, as
    # real models' do: figures with no spread over identities have no sampling interval.
    return {
        **{m: p_masculine_she + d for m, d in zip(MASC, spread, strict=True)},
        **{f: 1 - p_masculine_she - d for f, d in zip(FEM, spread, strict=True)},
    }


@pytest.fixture
def alike(
    tmp_path: Path, scripted: None, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, dict[str, str]]:
    """Three runs of one design and one plugin: a model on the old build, its next version on
    the new build (the same planted stereotype, expected STS 80), and another model (planted
    none, expected STS 0) on the old build."""
    path = tmp_path / "ws"
    runs: dict[str, str] = {}
    with Workspace.open(path) as ws:
        for name, version, build, p, spread in (
            ("old", "1", OLD, 0.1, (-0.04, 0.0, 0.04, 0.0)),
            ("new", "2", NEW, 0.1, (-0.04, 0.0, 0.04, 0.0)),
            ("other", "1", OLD, 0.5, (0.05, -0.02, 0.0, -0.04)),
        ):
            monkeypatch.setattr(ScriptedLikelihood, "build", lambda self, b=f"{build}; AVX": b)
            model = ("scripted-likelihood", {"p_feminine": planted(p, spread), "version": version})
            runs[name] = ws.runs.run_sync("pst-text", [model], params=DESIGN).id
    return path, runs


def test_two_builds_are_named_apart_on_every_surface(
    alike: tuple[Path, dict[str, str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, runs = alike
    code, out = call(capsys, "--store", str(path), "standings", "--json")
    assert code == 0, out
    (table,) = json.loads(out)["tables"]
    shown = {row["run"]: row["shown"] for row in table["standings"]}
    # Each model by its id (their parameters differ), with the version and build that differ.
    assert shown[runs["old"]].endswith(f" (version 1, build {OLD})")
    assert shown[runs["new"]].endswith(f" (version 2, build {NEW})")
    assert shown[runs["other"]].endswith(f" (version 1, build {OLD})")
    assert len(set(shown.values())) == 3
    # Ranked with intervals: the two planted 80 above the planted 0, each pair named by them.
    assert table["standings"][-1]["run"] == runs["other"]
    assert [row["rank_interval"] for row in table["standings"]][-1] == [3, 3]
    assert all(row["ci_low"] < row["value"] < row["ci_high"] for row in table["standings"][:2])
    assert {frozenset((p["model_a"], p["model_b"])) for p in table["pairs"]} == {
        frozenset(pair) for pair in ((shown[runs["old"]], shown[runs["new"]]),
                                     (shown[runs["old"]], shown[runs["other"]]),
                                     (shown[runs["new"]], shown[runs["other"]]))
    }  # fmt: skip
    # The new version against the old: named by their builds too.
    (change,) = table["successions"]
    assert change["before"] == f"{shown[runs['old']]} ({runs['old']})"
    assert change["after"] == f"{shown[runs['new']]} ({runs['new']})"

    # The terminal's table, wide enough for each name on one line.
    monkeypatch.setenv("COLUMNS", "200")
    code, out = call(capsys, "--store", str(path), "standings")
    assert code == 0, out
    for name in shown.values():
        assert name in out
    assert f"{shown[runs['new']]} ({runs['new']}) against {shown[runs['old']]}" in out

    # The Standings screen draws the rows standings_text gives: the same names.
    with Workspace.open(path) as ws:
        (design,) = ws.standings.table().tables
    assert [row[3] for row in standings_text(design).ranks] == [
        shown[s.measured.run] for s in design.standings
    ]

    # The report's section, and the findings that name the same models.
    report = tmp_path / "report"
    code, out = call(capsys, "--store", str(path), "report", *runs.values(), "--out",
                     str(report), "--format", "md,json")  # fmt: skip
    assert code == 0, out
    data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    (stated,) = data["standings"]["tables"]
    assert {row["run"]: row["shown"] for row in stated["standings"]} == shown
    md = (report / "report.md").read_text(encoding="utf-8")
    section = md.split("## Standing among models", 1)[1].split("\n## ", 1)[0]
    for k, s in enumerate(stated["standings"], start=1):
        assert f"| #{k} | {s['rank']} |" in section and f"| {s['shown']} |" in section
    said = {f["run"]: f["sentence"] for f in data["verdict"]["findings"]}
    for run, name in shown.items():
        assert said[run].startswith(name), (said[run], name)


def _server(model_id: str, port: int) -> Measured:
    # Two llama.cpp servers of one GGUF file: one plugin, other base URLs (so other ids,
    # hashed), the endpoint in the version; neither names a build.
    version = f"127.0.0.1:{port}/default"
    return Measured(f"r{port}", 0.0, "openai-compatible", version, {}, (), sample(model_id, 0.5))


def test_two_servers_of_one_model_file_are_named_by_their_endpoints() -> None:
    one, two = (
        _server("openai-compatible#1a2b3c4d", 8080),
        _server("openai-compatible#9f8e7d6c", 8081),
    )
    named = told_apart([one, two])
    assert [m.name for m in named] == [
        "openai-compatible#1a2b3c4d (version 127.0.0.1:8080/default)",
        "openai-compatible#9f8e7d6c (version 127.0.0.1:8081/default)",
    ]
    # A model alone under its plugin's name keeps the plain name, as the report's.
    (alone,) = told_apart([_server("openai-compatible#1a2b3c4d", 8080)])
    assert alone.name == "openai-compatible"
    # Its resampling does not move with the names beside it: the same seed, the same interval.
    ranked, _ = rank_table(named)
    bare, _ = rank_table([one, two])
    assert [s.figure.to_dict() for s in ranked] == [s.figure.to_dict() for s in bare]

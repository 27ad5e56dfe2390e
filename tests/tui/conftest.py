"""The workspaces, runs and apps the TUI's tests open screens on, one fixture each, shared by
every module of tests/tui (the apps and run builders themselves are in ``hosts.py``, the steps
a test takes on a screen in ``steps.py``)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from audit_fixtures import audit_workdir
from hosts import (
    FIGURE,
    OCC,
    Host,
    make_pst_text_run,
    make_run,
    make_scripted_image_run,
    new_agent_app,
)

from diptych.core import plugins
from diptych.core.engine import run_probe
from diptych.core.labels import TONE, Label
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedLikelihood
from diptych.tui.app import DiptychApp

FIXED_TIME = 1_735_732_800.0  # 2025-01-01 12:00 UTC
#: The Audit screen's pst part: one pair of identities, one image of each kind.
AUDIT_PST = {
    "aspects": ["occupation"],
    "masculine": ["carpenter"],
    "feminine": ["nurse"],
    "samples_single": 1,
    "samples_paired": 1,
}
#: Each carpenter's perceived skin tone and each nurse's, as the ``skin-tone`` annotator gave.
TONES = {"carpenter": "monk-6", "nurse": "monk-3"}


# --- workspaces -----------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def toasts_drawn(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The screens a surface test reads draw toasts, as in a terminal (a test's app draws none
    unless told): a message drawn over a value, a button or a field is seen by the checks."""
    if request.node.get_closest_marker("surface") is None:
        return
    from textual.app import App

    run_test = App.run_test

    def drawing(self: App[Any], *args: Any, **kwargs: Any) -> Any:
        kwargs["notifications"] = True
        return run_test(self, *args, **kwargs)

    monkeypatch.setattr(App, "run_test", drawing)


@pytest.fixture(autouse=True, scope="session")
def css_parsed_once() -> Iterator[None]:
    """Each app parses the CSS of every widget and screen it shows again, on its own stylesheet
    (a tenth of a test's CPU): the rules a piece of CSS parses to are kept for the process, by
    the CSS, where it came from and the theme's variables it was parsed with, as Textual keeps
    them for one stylesheet. Rules with errors are kept too: ``Stylesheet.parse`` raises on
    them each time, as on a first parse."""
    from textual.css.stylesheet import Stylesheet

    parse_rules = Stylesheet._parse_rules
    kept: dict[tuple[Any, ...], Any] = {}

    def parsed_once(self: Stylesheet, css: str, read_from: Any, *args: Any, **kwargs: Any) -> Any:
        key = (css, read_from, args, tuple(sorted(kwargs.items())),
               tuple(sorted(self._variables.items())))  # fmt: skip
        if key not in kept:
            kept[key] = parse_rules(self, css, read_from, *args, **kwargs)
        return kept[key]

    Stylesheet._parse_rules = parsed_once  # type: ignore[method-assign]
    yield
    Stylesheet._parse_rules = parse_rules  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def no_offline_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """SmolLM2 said not to work offline, whether or not its weights are installed here: New
    run ticks a model that does (and opens on a probe it fits), and the screens a test reads
    must not depend on the machine (test_new_run_offline_default.py says otherwise)."""
    from diptych.plugins.models.llamacpp import SmolLM2

    monkeypatch.setattr(SmolLM2, "works_offline", classmethod(lambda cls: False))


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace named by a relative path, so the header (which shows it) is the same on
    every machine."""
    monkeypatch.chdir(tmp_path)
    return Path("ws")


@pytest.fixture
def held(scripted: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """A run that stays running: every call of the scripted likelihood model after the second
    waits for the event."""
    release = threading.Event()
    answered = [0]
    ask = ScriptedLikelihood.next_token_logprobs

    async def holding(self: ScriptedLikelihood, prompt: str, candidates: Any) -> dict[str, float]:
        answered[0] += 1
        while answered[0] > 2 and not release.is_set():
            await asyncio.sleep(0.01)
        return await ask(self, prompt, candidates)

    monkeypatch.setattr(ScriptedLikelihood, "next_token_logprobs", holding)
    yield release
    release.set()


@pytest.fixture
def few_plugins(scripted: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Only pst-text, pst and the scripted plugin, whatever else is installed here (the
    example plugin, say), so that screens listing plugins look the same everywhere."""
    monkeypatch.setenv("DIPTYCH_PLUGINS", "pst_text,pst")
    plugins.load_plugins(reload=True)
    yield
    monkeypatch.delenv("DIPTYCH_PLUGINS")
    plugins.load_plugins(reload=True)


@pytest.fixture
def utc() -> Iterator[None]:
    """Times shown in UTC (the screens show local time)."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


Built = Callable[[str, Path, Callable[[], Any]], Any]


@pytest.fixture(scope="session")
def built_once(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """``built_once(name, here, build)``: the directory ``here`` made by ``build()`` the first
    time a process asks for ``name`` and kept; later a copy of the kept one put at ``here``, and
    what ``build`` returned (a run id). Running the probes again for each test would store the
    same answers (the scripted models are deterministic) at the cost of seconds of CPU; a copy
    leaves each test its own directory to change. What is built holds no absolute path, so a
    copy is the directory as ``build`` would have made it there. Where ``here`` is there
    already (a test's other fixture made it), ``build`` adds to it, as without a copy."""
    kept: dict[str, tuple[Path, Any]] = {}

    def once(name: str, here: Path, build: Callable[[], Any]) -> Any:
        if here.exists():
            return build()
        if name in kept:
            made, value = kept[name]
            shutil.copytree(made, here)
            return value
        value = build()
        made = tmp_path_factory.mktemp(name) / here.name
        shutil.copytree(here, made)
        kept[name] = (made, value)
        return value

    return once


@pytest.fixture
def snapshot_workspace(few_plugins: None, utc: None, workspace: Path, built_once: Built) -> Path:
    """Three runs with fixed times: complete, over its budget, and a pst-text run (built once a
    process, each test given its own copy)."""
    built_once("snapshot", workspace, lambda: _make_snapshot_workspace(workspace))
    return workspace


def _make_snapshot_workspace(workspace: Path) -> None:
    with open_store(workspace) as store:
        run_probe(store, "scripted", ["scripted-likelihood"], probe_params=["n=4"])
        run_probe(
            store,
            "scripted",
            [("scripted-likelihood", ["price_per_call=1"])],
            probe_params=["n=6"],
            max_cost=1.0,
        )
        make_pst_text_run(store)
        for i, run in enumerate(store.list_runs()):
            store.db.execute(
                "UPDATE runs SET created_at = ?, updated_at = ? WHERE id = ?",
                (FIXED_TIME + 60 * i, FIXED_TIME + 60 * i, run.id),
            )


@pytest.fixture
def pst_text_run(scripted: None, workspace: Path, built_once: Built) -> str:
    """A finished pst-text run on the scripted likelihood model (made before any event loop
    runs: the engine's run_probe starts its own; built once a process, each test given its own
    copy)."""

    def build() -> str:
        with open_store(workspace) as store:
            return make_pst_text_run(store)

    return str(built_once("pst-text", workspace, build))


# --- runs to review -------------------------------------------------------------------------


@pytest.fixture
def review_run(scripted: None, tmp_path: Path, built_once: Built) -> tuple[Path, str]:
    """The image pst run of ``hosts.make_run``: ten people, every one flagged (built once a
    process, each test given its own copy)."""
    ws = tmp_path / "ws"
    return ws, built_once("review", ws, lambda: make_run(ws))


@pytest.fixture
def unannotated_run(scripted: None, tmp_path: Path, built_once: Built) -> tuple[Path, str]:
    """``review_run`` before any annotator: only its rewritten prompt's people are flagged."""
    ws = tmp_path / "ws"
    return ws, built_once("unannotated", ws, lambda: make_run(ws, annotate=False))


@pytest.fixture
def tone_run(review_run: tuple[Path, str]) -> tuple[Path, str]:
    """``review_run`` with the ``skin-tone`` annotator's tones written in (:data:`TONES`,
    confidence 0.8)."""
    ws, run_id = review_run
    with Workspace.open(ws) as workspace:
        subjects = workspace.runs.subjects(run_id)
    with open_store(ws) as store:
        store.save_annotations(
            (s["subject_id"], "skin-tone",
             Label(s["position"], TONES[s["meta"]["identity"]], 0.8, dimension=TONE))
            for s in subjects
        )  # fmt: skip
    return ws, run_id


@pytest.fixture
def tone_review(tone_run: tuple[Path, str]) -> Host:
    """The Review screen of ``tone_run``, alice reviewing."""
    ws, run_id = tone_run
    return Host(ws, run_id, reviewer="alice")


@pytest.fixture
def calibration_run(scripted: None, tmp_path: Path, built_once: Built) -> tuple[Path, str]:
    """A calibration run of the scripted annotator on PAIRS' 40 potential-crime images: images
    the run was given, not made (``diptych calibrate`` makes one)."""
    ws = tmp_path / "ws"

    def build() -> str:
        with open_store(ws) as store:
            params = {"subset": "potential_crime"}
            return run_probe(store, "calibration", ["scripted-annotator"], probe_params=params).id

    return ws, built_once("calibration", ws, build)


@pytest.fixture
def scripted_run(scripted: None, tmp_path: Path, built_once: Built) -> tuple[Path, str]:
    """The measurement mode's run on the scripted image model (``hosts``)."""
    ws = tmp_path / "ws"
    return ws, built_once("scripted", ws, lambda: make_scripted_image_run(ws))


@pytest.fixture
def labelled_run(review_run: tuple[Path, str]) -> tuple[Path, str]:
    """``review_run`` with three reviewers' labels on its ten people: they agree on the first
    four, then each goes their own way, so that κ has an interval to show."""
    ws, run_id = review_run
    labels = ("masculine", "feminine", "cannot_identify")
    with Workspace.open(ws) as workspace:
        for k, person in enumerate(workspace.runs.subjects(run_id)):
            for r, reviewer in enumerate(("ann", "bob", "cy")):
                label = labels[k % 2] if k < 4 else labels[(k + r) % 3]
                trial, position = person["trial_idx"], person["position"]
                workspace.labels.save(run_id, trial, position, label, reviewer=reviewer)
    return ws, run_id


@pytest.fixture(scope="session")
def decided_made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The directory of the first ``decided_run`` of this process, kept as it was made
    (``made``), and where it was made (``at``): buying the audit takes seconds of CPU, and
    some twenty tests open it."""
    return {"made": tmp_path_factory.mktemp("decided")}


def _decided_copied(made: Path, at: Path, here: Path) -> None:
    """``made`` copied into ``here`` as if it had been made there: the audit's file and its
    report are recorded by absolute path (in the store and the report), moved to ``here``."""
    shutil.copytree(made, here, dirs_exist_ok=True)
    old, new = str(at), str(here)
    db = sqlite3.connect(here / "ws" / "diptych.db")
    with db:
        db.execute(
            "UPDATE audits SET file_path = replace(file_path, ?, ?),"
            " report = replace(report, ?, ?)",
            (old, new, old, new),
        )
    db.close()
    for path in (here / "out").rglob("*"):
        if path.is_file() and path.suffix in (".json", ".md", ".html", ".svg"):
            text = path.read_text(encoding="utf-8")
            if old in text:
                path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture
def decided_run(few_plugins: None, workspace: Path, decided_made: dict[str, Path]) -> Path:
    """A pst-text run of the paper's 20 × 20 occupations an audit bought until its gate was
    decided at an early look, so that its status in words is long: "decided at look 1 of 10:
    164 of 1,640 requests, 1,476 saved". Bought once a process (its seed fixes every answer);
    each test gets its own copy to change."""
    from diptych.audit import run_audit

    made, here = decided_made["made"], Path.cwd()
    if "at" in decided_made:
        _decided_copied(made, decided_made["at"], here)
        return workspace
    masc, fem = OCC.masculine, OCC.feminine
    planted = {**{m: 0.2 for m in masc}, **{f: 0.8 for f in fem}}
    data = {
        "name": "tui-seq",
        "seed": 1,
        "models": {"t": {"plugin": "scripted-likelihood",
                         "params": {"p_feminine": planted, "noise": 0.3}}},
        "probes": [{"probe": "pst-text", "models": ["t"],
                    "params": {"masculine": masc, "feminine": fem}}],
        "report": {"formats": ["json"]},
        "gates": [{"part": "pst-text", "figure": FIGURE, "below": 75, "name": "below 75"}],
    }  # fmt: skip
    Path("audit.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    with Workspace.open(workspace) as ws:
        asyncio.run(run_audit(ws, "audit.yaml", until_decided=True, out_dir="out"))
    shutil.copytree(here, made, dirs_exist_ok=True)
    decided_made["at"] = here
    return workspace


# --- the Agent, Audit and Standings screens -------------------------------------------------


@pytest.fixture
def agent_tui(scripted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DiptychApp:
    """The app on a new workspace ``ws`` (in a temporary working directory) whose Agent
    screen talks to scripted models."""
    monkeypatch.chdir(tmp_path)
    return new_agent_app(monkeypatch)


@pytest.fixture
def audit_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A working directory with ``audit.yaml`` (pst and its Table 5 mitigation on a scripted,
    priced image model); relative paths keep the screen the same from run to run."""
    data = {
        "audit": 1,
        "name": "tui-audit",
        "models": {"images": {"plugin": "scripted-images", "params": {"price_per_call": 0.04}}},
        "probes": [{"probe": "pst", "models": ["images"], "params": AUDIT_PST}],
        "mitigations": [
            {"name": "pst-table5", "baseline": "pst", "params": {"intervention": "pst-table5"}}
        ],
        "budget": {"max_cost": 1.0},
        "report": {"formats": ["json", "md"]},
    }
    with audit_workdir(tmp_path, monkeypatch, data) as path:
        yield path


STANDINGS_MASC = ["carpenter", "sheriff", "farmer", "guard"]
STANDINGS_FEM = ["editor", "designer", "writer", "baker"]


def _three_runs(path: Path, masc: list[str], fem: list[str], design: dict[str, Any]) -> None:
    """One pst-text run each of P(she) 0.5, 0.1 and 0.3 for a masculine-stereotyped identity
    (1 minus it for a feminine-stereotyped one), the design's other parameters ``design``."""
    params = {"masculine": masc, "feminine": fem, **design}
    with Workspace.open(path) as ws:
        for p in (0.5, 0.1, 0.3):
            planted = {**dict.fromkeys(masc, p), **dict.fromkeys(fem, 1 - p)}
            ws.runs.run_sync("pst-text", [("scripted-likelihood", {"p_feminine": planted})],
                             params=params)  # fmt: skip


@pytest.fixture
def three_models(scripted: None, tmp_path: Path, built_once: Built) -> Path:
    """Expected STS 80, 40 and 0 (P(she) 0.1, 0.3 and 0.5 for a masculine-stereotyped
    identity, 1 minus it for a feminine-stereotyped one), one pst-text run each."""
    path = tmp_path / "ws"
    design = {"samples_paired": 2, "setting": "paired"}
    built_once(
        "three-models", path, lambda: _three_runs(path, STANDINGS_MASC, STANDINGS_FEM, design)
    )
    return path


@pytest.fixture
def both_settings(scripted: None, tmp_path: Path, built_once: Built) -> Path:
    """Three runs of one design of three identities a side with both settings: STS paired and
    STS single to rank on."""
    path = tmp_path / "ws"
    masc, fem = STANDINGS_MASC[:3], STANDINGS_FEM[:3]
    built_once("both-settings", path, lambda: _three_runs(path, masc, fem, {"samples_single": 2}))
    return path


@pytest.fixture
def standings_app(three_models: Path) -> DiptychApp:
    """The app on ``three_models``; :func:`steps.open_standings` opens its Standings."""
    return DiptychApp(three_models, refresh_interval=3600)

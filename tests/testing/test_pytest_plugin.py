"""diptych's pytest plugin (diptych.testing.pytest): its fixtures on diptych's own probes, and
how a test suite turns it on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from diptych.core.capabilities import Capability
from diptych.testing import FakeOpenAIServer
from diptych.testing.pytest import ProbeRun

#: pst-text on two occupations, one trial per person: small enough to run in a test.
SMALL = {"setting": "single", "masculine": ["carpenter"], "feminine": ["nurse"]}


def test_run_probe_plans_runs_and_analyses(run_probe: Any, assert_round_trip: Any) -> None:
    ran: ProbeRun = run_probe("pst-text", "scripted-likelihood", params=SMALL)
    assert ran.estimate.planned == ran.record.n_trials > 0 and ran.estimate.cached == 0
    assert ran.record.status == "complete" and ran.record.probe == "pst-text"
    assert ran.workspace.runs.get(ran.id).params == ran.record.params
    assert ran.result.numbers
    assert_round_trip(ran)


def test_assert_round_trip_fails_when_the_stored_run_analyses_otherwise(
    run_probe: Any, assert_round_trip: Any
) -> None:
    ran: ProbeRun = run_probe("pst-text", "scripted-likelihood", params=SMALL)
    ran.result.summary += " (changed after the run)"
    with pytest.raises(AssertionError, match="analyses to another result"):
        assert_round_trip(ran)


def test_assert_round_trip_of_a_plugins_parameters(assert_round_trip: Any) -> None:
    from diptych.core.plugins import probe_class
    from diptych.testing import ScriptedChat

    assert_round_trip(probe_class("pst-text"))
    assert_round_trip(ScriptedChat())
    with pytest.raises(TypeError):
        assert_round_trip("pst-text")


@pytest.mark.parametrize("capability", list(Capability))
def test_a_scripted_model_of_every_capability(scripted_model: Any, capability: Capability) -> None:
    model = scripted_model(capability, latency=0.0, price_per_call=0.5)
    assert model.capabilities == frozenset({capability})
    assert model.hints.price_per_call == 0.5


@pytest.mark.fake_openai(image_size=(8, 4), api_key="sk-right")
def test_the_fake_openai_marker_configures_the_service(fake_openai: FakeOpenAIServer) -> None:
    assert fake_openai.image_size == (8, 4) and fake_openai.api_key == "sk-right"
    assert fake_openai.base_url.startswith("http://127.0.0.1:")


def test_diptych_workspace_is_a_fresh_workspace(diptych_workspace: Any, tmp_path: Path) -> None:
    assert diptych_workspace.path.is_relative_to(tmp_path)
    assert diptych_workspace.runs.list() == []


USES_A_FIXTURE = """
def test_it(diptych_workspace):
    assert diptych_workspace.runs.list() == []
"""


@pytest.mark.parametrize(
    ("autoload", "args", "passes"),
    [
        (False, ["-p", "diptych.testing.pytest"], True),  # opt-in by -p
        (False, [], False),  # no plugin: no fixture
        (True, [], True),  # installed diptych: the pytest11 entry point
    ],
    ids=["opt-in", "off", "entry-point"],
)
def test_how_a_test_suite_turns_the_plugin_on(
    tmp_path: Path, autoload: bool, args: list[str], passes: bool
) -> None:
    (tmp_path / "test_uses.py").write_text(USES_A_FIXTURE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    if not autoload:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, "test_uses.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if passes:
        assert done.returncode == 0, done.stdout + done.stderr
    else:
        assert done.returncode != 0 and "fixture 'diptych_workspace' not found" in done.stdout


# --- a probe whose result holds a figure ------------------------------------------------------


def _figure_probe() -> type:
    from diptych.core.probe import Figure, ProbeResult
    from diptych.testing.scripted import ScriptedProbe

    class FigureProbe(ScriptedProbe):
        """Plans N trials and draws one figure of how many are done."""

        name = "figure-probe"

        def analyze(self, run: Any) -> ProbeResult:
            result = super().analyze(run)
            done = run.status_counts().get("done", 0)
            # Drawn afresh on every analysis, as a probe's figures are: equal by content only.
            result.figures.append(
                Figure("done", "Trials done", draw=lambda: b"\x89PNG" + bytes([done]))
            )
            return result

    return FigureProbe


@pytest.fixture
def figure_probe() -> Any:
    from diptych.core.plugins import plugin_module, register_plugin, unregister_plugin

    cls = _figure_probe()
    name = register_plugin(plugin_module(register_probes=lambda register: register(cls)), "fig")
    yield cls
    unregister_plugin(name)


def test_a_result_with_a_figure_round_trips(
    figure_probe: Any, run_probe: Any, assert_round_trip: Any
) -> None:
    ran: ProbeRun = run_probe("figure-probe", "scripted-likelihood", params={"n": 3})
    assert ran.result.figures[0].png == b"\x89PNG\x03"
    assert_round_trip(ran)


def test_a_figure_that_differs_is_shown_at_its_first_byte(
    figure_probe: Any, run_probe: Any, assert_round_trip: Any
) -> None:
    from diptych.core.probe import Figure

    ran: ProbeRun = run_probe("figure-probe", "scripted-likelihood", params={"n": 3})
    ran.result.figures[0] = Figure("done", "Trials done", b"\x89PNG\x07")
    with pytest.raises(AssertionError) as failure:
        assert_round_trip(ran)
    assert "result['figures'][0] (figure 'done'): the PNG bytes differ from byte 4" in str(
        failure.value
    )


def test_figures_compare_by_content() -> None:
    from diptych.core.probe import Figure

    drawn = Figure("f", "T", caption="c", draw=lambda: b"png")
    assert drawn == Figure("f", "T", b"png", "c")
    assert hash(drawn) == hash(Figure("f", "T", b"other"))
    assert drawn != Figure("f", "T", b"png", "another caption")
    assert drawn != Figure("f", "T", b"pnG", "c")

"""Fixtures of the ``pairs`` probe tests: the probe, openai-vision and the group-answering model
registered, and one finished run of that model (its helpers: support.pairs_vision)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from support.pairs_vision import FAST_RETRY, SCENARIOS, GroupVision

from diptych.core import plugins
from diptych.core.capabilities import Model
from diptych.core.engine import run_probe
from diptych.core.plugins import get_probe
from diptych.core.probe import ProbeResult
from diptych.core.runview import RunView
from diptych.core.store import Store, open_store
from diptych.plugins.models import openai_vision as vision_plugin
from diptych.plugins.probes.pairs import probe as pairs_module


@pytest.fixture(scope="module")
def pairs_plugins() -> Iterator[None]:
    """The pairs probe (until its entry point is in pyproject), openai-vision (likewise) and
    the group-answering model; for a whole test module, so that one run serves its tests."""

    def register_models(register: Callable[[type[Model]], None]) -> None:
        register(GroupVision)

    names = [plugins.register_plugin(plugins.plugin_module(register_models=register_models),
                                     "pairs-group-vision")]  # fmt: skip
    if "pairs" not in plugins.load_plugins().probes:
        names.append(plugins.register_plugin(pairs_module, "pairs-probe"))
    if "openai-vision" not in plugins.load_plugins().models:
        names.append(plugins.register_plugin(vision_plugin, "openai-vision"))
    yield
    for name in names:
        plugins.unregister_plugin(name)


@pytest.fixture
def registered(scripted: None, pairs_plugins: None) -> None:
    """The scripted models of diptych.testing besides the pairs plugins."""


@pytest.fixture(scope="module")
def finished(
    pairs_plugins: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Store, Any, GroupVision, ProbeResult]]:
    """One run of the scripted model over 7 scenarios, and its analysis, once per test module
    (tests only read it)."""
    model = GroupVision()
    with open_store(tmp_path_factory.mktemp("pairs") / "ws") as store:
        probe = get_probe("pairs", {"scenarios": SCENARIOS})
        run = run_probe(store, probe, [model], retry=FAST_RETRY)
        result = get_probe("pairs", run.params).analyze(RunView(store, run))
        yield store, run, model, result

"""Fixtures of the ``stories`` probe tests: the probe registered, and a run on the storyteller
of support.stories_teller with the raw processing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.stories_teller import PairsStoryteller, storyteller_for

from diptych.core import plugins
from diptych.core.engine import run_probe
from diptych.core.runview import RunView
from diptych.core.store import Store
from diptych.plugins.probes.stories import probe as stories
from diptych.plugins.probes.stories.params import StoriesParams
from diptych.plugins.probes.stories.probe import Stories


@pytest.fixture
def stories_plugin(scripted: None) -> Iterator[None]:
    """``stories`` through its entry point when the package metadata has one, else by hand."""
    if "stories" in plugins.load_plugins().probes:
        yield
        return
    name = plugins.register_plugin(stories, "stories-under-test")
    yield
    plugins.unregister_plugin(name)


@pytest.fixture
def raw_run(store: Store) -> tuple[Stories, RunView, PairsStoryteller]:
    probe = Stories(
        StoriesParams(scenarios=["jumpsuit", "courtroom"], prompts=[1, 2], processing="raw")
    )
    model = storyteller_for(probe, store)
    run = run_probe(store, probe, [model])
    return probe, RunView(store, run), model

"""The testing plugins (scripted models and probes) registered for every audit test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import diptych.testing
from diptych.core import plugins


@pytest.fixture(autouse=True)
def testing_plugins() -> Iterator[None]:
    plugins.load_plugins()
    name = plugins.register_plugin(diptych.testing, "testing")
    yield
    plugins.unregister_plugin(name)

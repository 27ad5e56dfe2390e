"""Fixtures of the model plugin tests: the module's plugin registered (torch on one thread:
tests/plugins/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from diptych.core import plugins


@pytest.fixture(scope="module")
def registered_plugin(request: pytest.FixtureRequest) -> Iterator[None]:
    """The test module's model plugin (its ``PLUGIN``: the plugin module and the model's name)
    by its entry point when the package is installed with one, else registered here."""
    module, model = request.module.PLUGIN
    name = None
    if model not in plugins.load_plugins().models:
        name = plugins.register_plugin(module, model)
    yield
    if name is not None:
        plugins.unregister_plugin(name)

"""Fixtures of the model plugin tests: the module's plugin registered and the network trapped
(torch on one thread: tests/plugins/conftest.py)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

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


@pytest.fixture
def network_attempts(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every attempt to resolve a host or open a connection, each failing: a model that must
    not touch a hub leaves the list empty."""
    attempts: list[Any] = []

    def trap(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "getaddrinfo", trap)
    monkeypatch.setattr(socket.socket, "connect", trap)
    return attempts

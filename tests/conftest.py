from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import diptych.testing
from diptych.core import plugins
from diptych.core.store import Store, open_store


@pytest.fixture
def scripted() -> Iterator[None]:
    """The scripted models and probe of diptych.testing, registered as a plugin."""
    plugins.load_plugins()
    name = plugins.register_plugin(diptych.testing, "testing")
    yield
    plugins.unregister_plugin(name)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "ws") as s:
        yield s

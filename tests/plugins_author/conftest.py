"""Fixtures of the plugin author's tests: the throwaway environment scaffolds install into."""

from __future__ import annotations

import sysconfig

import pytest
from support.throwaway import Throwaway, make_throwaway


@pytest.fixture(scope="session")
def throwaway(tmp_path_factory: pytest.TempPathFactory) -> Throwaway:
    """The throwaway environment (see the module's docstring), shared by the session."""
    return make_throwaway(tmp_path_factory.mktemp("throwaway"), [sysconfig.get_path("purelib")])

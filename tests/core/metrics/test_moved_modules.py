"""The two metric modules the plugin guide named before the metrics moved into packages by
subject: a plugin importing from them still gets the very same objects, with a warning that
names where they live now."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

from diptych.core.metrics.uncertainty import bootstrap, precision

MOVED = [
    ("diptych.core.metrics.stats", bootstrap, "bootstrap_cluster_mean"),
    ("diptych.core.metrics.stats", bootstrap, "json_safe"),
    ("diptych.core.metrics.precision", precision, "PlannedFigure"),
]


@pytest.mark.parametrize(("old", "new", "name"), MOVED)
def test_an_old_name_is_the_new_object_and_says_where_it_lives(
    old: str, new: ModuleType, name: str
) -> None:
    module = importlib.import_module(old)
    warning = rf"{old} is deprecated: import {name} from {new.__name__}"
    with pytest.warns(DeprecationWarning, match=warning):
        got = getattr(module, name)
    assert got is getattr(new, name)


def test_a_from_import_of_the_old_module_warns_and_works() -> None:
    with pytest.warns(DeprecationWarning, match="diptych.core.metrics.stats is deprecated"):
        from diptych.core.metrics.stats import bootstrap_cluster_mean
    assert bootstrap_cluster_mean is bootstrap.bootstrap_cluster_mean


def test_a_name_that_never_was_is_still_an_attribute_error() -> None:
    module = importlib.import_module("diptych.core.metrics.precision")
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018

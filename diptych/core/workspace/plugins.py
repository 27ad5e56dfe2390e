"""``Workspace.plugins``: the installed plugins and the probes and models built from them."""

from __future__ import annotations

from diptych.core.capabilities import Model
from diptych.core.errors import UsageError
from diptych.core.plugins import Registry, get_model, get_probe, load_plugins
from diptych.core.probe import Probe
from diptych.core.workspace.base import ModelSpec, Params, ProbeSpec, plugin_params


def build_probe(probe: ProbeSpec, params: Params | None = None) -> Probe:
    if isinstance(probe, Probe):
        if params:
            raise UsageError(f"probe '{probe.name}' is built already; give no parameters")
        return probe
    return get_probe(probe, plugin_params(params))


def build_model(model: ModelSpec) -> Model:
    if isinstance(model, str):
        return get_model(model)
    if isinstance(model, tuple):
        name, params = model
        return get_model(name, plugin_params(params))
    return model


class Plugins:
    """The installed plugins: their registry, and a probe or a model built by name.

    It needs no open workspace: ``Workspace.plugins.registry()`` works on the class as
    ``ws.plugins.registry()`` does on an instance."""

    @staticmethod
    def registry() -> Registry:
        """Every installed plugin and the probes, models and annotators it registers."""
        return load_plugins()

    @staticmethod
    def probe(probe: ProbeSpec, params: Params | None = None) -> Probe:
        """The probe named ``probe`` with ``params`` (an instance is returned as it is)."""
        return build_probe(probe, params)

    @staticmethod
    def model(model: ModelSpec) -> Model:
        """The model named ``model`` (or ``(name, params)``); an instance as it is."""
        return build_model(model)

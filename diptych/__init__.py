"""diptych: audit generative image and vision-language models for social bias.

The public API for users and plugin authors::

    import diptych

    diptych.load_plugins()
    probe = diptych.get_probe("pst-text")
    model = diptych.get_model("smollm2")
    with diptych.open_store(".diptych") as store:
        run = diptych.run_probe(store, "pst-text", ["smollm2"])

Plugins mark their hook implementations with ``@diptych.hookimpl``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from diptych.core.capabilities import Capability, Model, ModelHints, Sampling
from diptych.core.hookspecs import hookimpl

if TYPE_CHECKING:
    from diptych.core.engine import run_probe
    from diptych.core.plugins import get_model, get_probe, load_plugins
    from diptych.core.probe import Figure, Label, Probe, ProbeResult, Table
    from diptych.core.runview import RunView
    from diptych.core.store import open_store
    from diptych.core.trials import Subject, TrialSpec

__all__ = [
    "Capability",
    "Figure",
    "Label",
    "Model",
    "ModelHints",
    "Probe",
    "ProbeResult",
    "RunView",
    "Sampling",
    "Subject",
    "Table",
    "TrialSpec",
    "__version__",
    "get_model",
    "get_probe",
    "hookimpl",
    "load_plugins",
    "open_store",
    "run_probe",
]

__version__ = "0.1.0"


_LAZY = {
    "Probe": "diptych.core.probe",
    "ProbeResult": "diptych.core.probe",
    "Label": "diptych.core.probe",
    "Table": "diptych.core.probe",
    "Figure": "diptych.core.probe",
    "RunView": "diptych.core.runview",
    "Subject": "diptych.core.trials",
    "TrialSpec": "diptych.core.trials",
}


def __getattr__(name: str) -> object:
    # The rest of the API is imported on first use so that `import diptych` stays cheap for
    # plugin modules, which only need `hookimpl` and the base classes.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in {"load_plugins", "get_model", "get_probe"}:
        from diptych.core import plugins

        return getattr(plugins, name)
    if name == "open_store":
        from diptych.core.store import open_store

        return open_store
    if name == "run_probe":
        from diptych.core.engine import run_probe

        return run_probe
    raise AttributeError(f"module 'diptych' has no attribute {name!r}")

"""diptych: audit generative text, text-to-image and vision-language models for social bias.

The public API for users and plugin authors::

    import diptych

    diptych.load_plugins()
    probe = diptych.get_probe("pst-text")
    model = diptych.get_model("smollm2")
    with diptych.Workspace.open(".diptych") as ws:
        run = ws.runs.run_sync("pst-text", ["smollm2"])
        result = ws.analysis.analyze(run.id)

Plugins mark their hook implementations with ``@diptych.hookimpl``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from diptych._version import __version__
from diptych.core.capabilities import Capability, Model, ModelHints, Sampling
from diptych.core.openmp import passive_openmp
from diptych.core.plugins.hookspecs import hookimpl

# Before any of diptych can load PyTorch or llama.cpp, and with them libgomp, which reads its
# wait policy once (see diptych.core.openmp); the imports above load neither.
passive_openmp()

if TYPE_CHECKING:
    from diptych.core.labels import Label
    from diptych.core.plugins import get_model, get_probe, load_plugins
    from diptych.core.probe import Figure, Probe, ProbeResult, Table
    from diptych.core.runview import RunView
    from diptych.core.trials import Subject, TrialSpec
    from diptych.core.workspace import RunOptions, Workspace

__all__ = [
    "Capability",
    "Figure",
    "Label",
    "Model",
    "ModelHints",
    "Probe",
    "ProbeResult",
    "RunOptions",
    "RunView",
    "Sampling",
    "Subject",
    "Table",
    "TrialSpec",
    "Workspace",
    "__version__",
    "get_model",
    "get_probe",
    "hookimpl",
    "load_plugins",
]


_LAZY = {
    "Probe": "diptych.core.probe",
    "ProbeResult": "diptych.core.probe",
    "Label": "diptych.core.labels",
    "Table": "diptych.core.probe",
    "Figure": "diptych.core.probe",
    "RunView": "diptych.core.runview",
    "RunOptions": "diptych.core.workspace",
    "Subject": "diptych.core.trials",
    "TrialSpec": "diptych.core.trials",
    "Workspace": "diptych.core.workspace",
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
    raise AttributeError(f"module 'diptych' has no attribute {name!r}")

"""The hooks a diptych plugin may implement.

A plugin is a module (or object) with functions marked ``@diptych.hookimpl``, made known through
the ``diptych`` entry-point group in its package metadata::

    [project.entry-points.diptych]
    my_probes = "my_package.probes"

Each ``register_*`` hook receives a ``register`` callback and calls it once per class it
provides; the host validates what it receives, so a plugin cannot hand back the wrong shape.
diptych's own probes, models and annotators are registered the same way.

The plugin API is versioned (:mod:`diptych.core.plugins.api`): a plugin module declares the
version it was written for, ``DIPTYCH_PLUGIN_API = 2``, and each hook below says since which
version it exists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from diptych.core.capabilities import Model
    from diptych.core.probe import Probe, ProbeResult
    from diptych.core.report.sections import Section
    from diptych.core.runview import RunView

hookspec = pluggy.HookspecMarker("diptych")
hookimpl = pluggy.HookimplMarker("diptych")


@hookspec
def register_probes(register: Callable[[type[Probe]], None]) -> None:
    """Register probe classes.

    :param register: call ``register(ProbeClass)`` for each probe; ``ProbeClass`` derives from
        :class:`diptych.Probe` and sets ``name`` (unique, lower-case, hyphenated), ``goal``,
        ``Params`` (a pydantic model with ``extra="forbid"``) and implements ``plan()`` and
        ``analyze()``.

    Called once, when plugins are loaded. A name registered twice is an error naming both
    plugins. A probe that builds on earlier runs overrides ``bind(runs)``: since plugin API 2
    it receives a read-only :class:`~diptych.core.lookup.RunLookup` (under API 1, the Store).

    Since plugin API 1.
    """


@hookspec
def register_models(register: Callable[[type[Model]], None]) -> None:
    """Register model classes.

    :param register: call ``register(ModelClass)`` for each model; ``ModelClass`` derives from
        :class:`diptych.Model`, sets ``name`` and ``capabilities`` and implements the async
        methods of each capability it lists (see :mod:`diptych.core.capabilities`).

    Import the model's SDK inside ``__init__`` (not at module level) and raise
    :class:`diptych.errors.MissingDependencyError` when it is absent, so that listing plugins
    never needs every SDK installed.

    Since plugin API 1.
    """


@hookspec
def register_annotators(register: Callable[[type[Model]], None]) -> None:
    """Register annotator classes: models with the ``person_annotator`` capability.

    :param register: call ``register(AnnotatorClass)`` for each annotator; the class follows the
        same contract as a model class and implements
        :meth:`diptych.core.capabilities.PersonAnnotator.annotate`.

    Since plugin API 1.
    """


@hookspec
def report_sections(probe: Probe, run: RunView, result: ProbeResult) -> list[Section] | None:
    """Contribute sections to a run's chapter of the audit report.

    :param probe: the run's probe, rebuilt from the parameters it recorded; check its class
        (``isinstance(probe, MyProbe)``) and return None for another plugin's probe.
    :param run: the run, read-only (its trials, results, labels and blobs).
    :param result: the probe's analysis of the run, as the report prints it.
    :return: a list of :class:`diptych.core.report.Section` (title, prose, tables, figures,
        example images, and ``place``: ``"methods"`` or ``"results"``), or None.

    Called once per run each time a report is written; every plugin's sections appear, in
    plugin order, under the run's probe like the report's own. Sections must not write to the
    store.

    Since plugin API 1.
    """

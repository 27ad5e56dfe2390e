"""The Workspace: the one road from a front end (CLI, TUI, agent) into the core.

A front end opens a :class:`Workspace` and calls it through its namespaces (``ws.runs``,
``ws.labels``, ``ws.review`` …, one class each); it never opens the store or calls the engine
itself. The names below are those namespaces and everything their methods take and give back,
so a front end imports them from here.
"""

from __future__ import annotations

from diptych.core.annotation import AnnotationSummary
from diptych.core.engine import Estimate, Reporter, RetryPolicy, RunLeasedError, RunOptions
from diptych.core.engine.options import EXECUTORS
from diptych.core.store import Lease, RunRecord
from diptych.core.workspace.analysis import Analysis
from diptych.core.workspace.annotators import Annotators
from diptych.core.workspace.audits import Audits
from diptych.core.workspace.export import EXPORT_SCHEMA_VERSION, ExportFormat, export_rows
from diptych.core.workspace.findings import Findings
from diptych.core.workspace.gates import GateReport
from diptych.core.workspace.labels import Labels
from diptych.core.workspace.labels.imports import ImportReport, RunSubject, TemplateReport
from diptych.core.workspace.lists import Lists
from diptych.core.workspace.plugins import Plugins
from diptych.core.workspace.preferences import Preferences
from diptych.core.workspace.records import CalibrationOutcome, Failure, RunDetail, RunSummary
from diptych.core.workspace.review import Review
from diptych.core.workspace.runs import Runs
from diptych.core.workspace.standings import Standings
from diptych.core.workspace.workspace import (
    ModelSpec,
    Params,
    ProbeSpec,
    Workspace,
    damage_of,
)

__all__ = [
    "EXECUTORS",
    "EXPORT_SCHEMA_VERSION",
    "Analysis",
    "AnnotationSummary",
    "Annotators",
    "Audits",
    "CalibrationOutcome",
    "Estimate",
    "ExportFormat",
    "Failure",
    "Findings",
    "GateReport",
    "ImportReport",
    "Labels",
    "Lease",
    "Lists",
    "ModelSpec",
    "Params",
    "Plugins",
    "Preferences",
    "ProbeSpec",
    "Reporter",
    "RetryPolicy",
    "Review",
    "RunDetail",
    "RunLeasedError",
    "RunOptions",
    "RunRecord",
    "RunSubject",
    "RunSummary",
    "Runs",
    "Standings",
    "TemplateReport",
    "Workspace",
    "damage_of",
    "export_rows",
]

"""What the Audit screen's thread workers send back: a worker never touches a widget, it posts
one of these and the screen draws it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.message import Message

from diptych.audit import AuditPlan
from diptych.core.report.gates import GateLine


@dataclass
class AuditPlanned(Message):
    plan: AuditPlan
    #: The report this audit last wrote, where its run recorded it (None: none there now).
    report: Path | None = None
    #: The recorded audit's status where its words say more than its status does (an
    #: incomplete one's failed trials and what asks them again), as ``audit list`` says it.
    said: str = ""
    #: The audit's record and runs as read with the plan (:func:`.watch.store_mark`).
    mark: tuple[Any, ...] | None = None
    #: Read again (the store moved, or the screen was shown again): the focus stays put.
    again: bool = False
    #: Each recorded part's status in words, read with the plan and drawn with it: a row never
    #: says "planned" of a part the audit's status line says was decided, not for a frame.
    status: dict[str, str] = field(default_factory=dict)


@dataclass
class AuditsRecorded(Message):
    """The audits recorded in the workspace, newest first: each one's line and its id."""

    audits: list[tuple[str, str]]


@dataclass
class AuditReplanned(Message):
    """The plan again after a run: what is stored now and what is left to run."""

    plan: AuditPlan


@dataclass
class AuditPartChanged(Message):
    name: str
    status: str


@dataclass
class AuditFinished(Message):
    status: str
    spent: float
    report: Path | None
    #: Bought until decided: why it stopped and what it bought ("" otherwise).
    stopped: str = ""


@dataclass
class AuditFailed(Message):
    error: str


@dataclass
class AuditGates(Message):
    """The audit's gates: decided (``lines``), or stated but not decidable yet (``rows``:
    gate, figure and rule with why), and a line for the summary."""

    lines: list[GateLine]
    rows: list[tuple[str, str, str, str]]
    note: str
    #: The look an anytime-valid interval was made at ("look 1 of 10"; "" for none).
    look: str = ""

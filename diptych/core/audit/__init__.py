"""Audits as files: the schema of ``audit.yaml``, the recorded audit, the diff, the gates'
verdicts.

Running an audit file is a front end's (:mod:`diptych.audit`, beside the agent): it plans and
drives the parts through the Workspace, which records them (``ws.audits``).
"""

from __future__ import annotations

from diptych.core.audit.diff import METHODS, AuditDiff, FigureDiff
from diptych.core.audit.record import AuditRecord, PartRecord
from diptych.core.audit.schema import (
    AUDIT_FORMAT,
    AuditFile,
    audit_json_schema,
    file_hash,
    load_audit,
    parse_audit,
)
from diptych.core.audit.starter import starter_audit

__all__ = [
    "AUDIT_FORMAT",
    "METHODS",
    "AuditDiff",
    "AuditFile",
    "AuditRecord",
    "FigureDiff",
    "PartRecord",
    "audit_json_schema",
    "file_hash",
    "load_audit",
    "parse_audit",
    "starter_audit",
]

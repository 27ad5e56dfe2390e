"""Audits as files, run: plan an ``audit.yaml`` and drive its parts through the Workspace.

A front end like the agent, beside it: the CLI (``diptych audit``) and the terminal app's
Audit screen call :func:`plan_audit` and :func:`run_audit`, handing in the agent's searches
(:func:`diptych.agent.audit_search.run_search`). The audit file's schema, the recorded audit,
the diff and the gates' verdicts stay in the core (:mod:`diptych.core.audit`); the recorded
audits are the Workspace's (``ws.audits``).
"""

from __future__ import annotations

from diptych.audit.plan import AuditPlan, Part, PartPlan, audit_parts, plan_audit, read_audit
from diptych.audit.runner import AuditOutcome, PartEvent, SearchRunner, run_audit

__all__ = [
    "AuditOutcome",
    "AuditPlan",
    "Part",
    "PartEvent",
    "PartPlan",
    "SearchRunner",
    "audit_parts",
    "plan_audit",
    "read_audit",
    "run_audit",
]

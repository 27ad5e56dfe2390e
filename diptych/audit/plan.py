"""An audit file as parts, and what running them would do (``diptych audit check``).

The parts run in the file's order: every probe part, then every mitigation (its baseline part
with some parameters changed), then every agent search. Nothing here stores anything or calls a
model: each part's plan and identity are the Workspace's (``ws.runs.plan``,
``ws.runs.fingerprint``).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from diptych.audit.placebo_plan import PlaceboTrials
from diptych.core.audit import PartRecord
from diptych.core.audit.overrides import apply_overrides, changing
from diptych.core.audit.record import AuditRecord
from diptych.core.audit.schema import (
    AnnotatorEntry,
    AuditFile,
    Search,
    file_hash,
    load_audit,
    parse_audit,
)
from diptych.core.capabilities import Capability
from diptych.core.errors import UsageError
from diptych.core.report.formatting import counted, fmt
from diptych.core.workspace import Estimate, Workspace

PartKind = Literal["probe", "mitigation", "search"]


@dataclass
class Part:
    """One step of an audit."""

    position: int
    name: str
    kind: PartKind
    probe: str | None = None
    #: The models as (plugin, parameters), in the file's order.
    models: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    annotators: list[AnnotatorEntry] = field(default_factory=list)
    #: A mitigation's (or a mitigation search's) baseline part.
    baseline: str | None = None
    search: Search | None = None
    #: The audit's seed, which an agent search takes (None: the search's own default).
    seed: int | None = None


@dataclass
class PartPlan:
    part: Part
    #: The run's identity (None for an agent search, whose trials the agent decides).
    fingerprint: str | None
    estimate: Estimate | None
    #: An agent search's identity: a hash of its settings and of its models' as they run
    #: (``--set`` applied), so that a search whose settings changed runs again. None for a run.
    settings: str | None = None
    #: An identity search's placebo words' trials, where a front end planned them (the audit
    #: runner imports no agent: :func:`diptych.agent.audit_search.plan_placebos`).
    placebo: PlaceboTrials | None = None
    #: An agent search's trials its session holds (every run it made: placebo words, scored
    #: proposals, held-out tests) with an outcome; 0 before it ran. None for a run.
    session_trials: int | None = None


def search_session(audit_id: str, part: str) -> str:
    """The agent session of the audit ``audit_id``'s search ``part``: every run of it (and a
    rerun of the same audit, which resumes it) records its runs under this name."""
    return f"audit-{audit_id}-{part}"


@dataclass
class AuditPlan:
    """What running the audit would do, part by part."""

    audit: AuditFile
    file_hash: str
    parts: list[PartPlan]
    #: ``audit run --set``'s fields, already applied to ``audit``: recorded with the audit, so
    #: that its report's command that runs it again gives them again.
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """The audit's record id: the file's name and a hash of the file and of its parts'
        runs, so that rerunning an unchanged file continues its record while the same file on
        a new model release (other model versions, so other runs) starts a new one."""
        digest = hashlib.sha256(self.file_hash.encode())
        searches = [p for p in self.parts if p.part.search is not None]
        for p in self.parts:
            digest.update(f"|{p.part.name}={p.fingerprint}".encode())
            if p.settings is not None and sets_search(self.overrides, searches.index(p), p):
                # The file's hash holds a search's settings unless --set changed them: then
                # they are named, so that a search set otherwise is a record (and session) of
                # its own, not one "finished before" under other settings.
                digest.update(f"~{p.settings}".encode())
        return f"{self.audit.name}-{digest.hexdigest()[:10]}"

    def reused(self, parts: list[PartPlan], recorded: list[PartRecord]) -> list[PartRecord]:
        """The records of ``parts`` complete before and current (:func:`reusable`)."""
        earlier = {p.name: p for p in recorded}
        return [earlier[p.part.name] for p in parts if reusable(p, earlier.get(p.part.name))]

    @property
    def planned(self) -> int:
        return sum(p.estimate.planned for p in self.parts if p.estimate)

    @property
    def cached(self) -> int:
        return sum(p.estimate.cached for p in self.parts if p.estimate)

    @property
    def to_run(self) -> int:
        return sum(p.estimate.to_run for p in self.parts if p.estimate)

    @property
    def cost(self) -> float:
        return sum(p.estimate.cost for p in self.parts if p.estimate)

    @property
    def unpriced(self) -> int:
        return sum(p.estimate.unpriced for p in self.parts if p.estimate)

    def to_dict(self) -> dict[str, Any]:
        return {
            "audit": self.audit.name,
            "id": self.id,
            "file_hash": self.file_hash,
            "planned": self.planned,
            "cached": self.cached,
            "to_run": self.to_run,
            "cost": round(self.cost, 6),
            "unpriced": self.unpriced,
            "max_cost": self.audit.budget.max_cost,
            "max_requests": self.audit.budget.max_requests,
            "parts": [
                {
                    "name": p.part.name,
                    "kind": p.part.kind,
                    "probe": p.part.probe,
                    "models": [m for m, _ in p.part.models],
                    "annotators": [a.name for a in p.part.annotators],
                    "fingerprint": p.fingerprint,
                    **(
                        {
                            "planned": p.estimate.planned,
                            "cached": p.estimate.cached,
                            "to_run": p.estimate.to_run,
                            "cost": round(p.estimate.cost, 6),
                        }
                        if p.estimate
                        else {}
                    ),
                    **({"placebo": p.placebo.to_dict()} if p.placebo else {}),
                    **(
                        {"precision": p.estimate.precision.to_dict()}
                        if p.estimate and p.estimate.precision
                        else {}
                    ),
                }
                for p in self.parts
            ],
        }


#: What an audit is read from: its file, an audit built in memory, or a recorded audit's text
#: (the file as it ran, kept by the workspace: opened so when the file moved or is gone).
AuditSource = str | os.PathLike[str] | AuditFile | AuditRecord


def read_audit(source: AuditSource) -> tuple[AuditFile, str, str]:
    """The audit, its file's sha256 and text, from a path (or an already parsed file, or the
    text a recorded audit kept, under the hash it was recorded with, its ``--set`` overrides
    applied: the same audit id)."""
    if isinstance(source, AuditRecord):
        audit = parse_audit(source.file_text, source.file_path)
        ran = apply_overrides(audit, source.overridden) if source.overridden else audit
        return ran, source.file_hash, source.file_text
    if isinstance(source, AuditFile):
        dumped = json.dumps(source.model_dump(), sort_keys=True)
        return source, file_hash(dumped), dumped
    audit, digest = load_audit(Path(source))
    return audit, digest, Path(source).read_text(encoding="utf-8")


def read_overridden(
    source: AuditSource, overrides: Mapping[str, Any] | None
) -> tuple[AuditFile, str, str, dict[str, Any]]:
    """:func:`read_audit`, with ``--set``'s ``overrides`` applied as a run applies them: less
    each that gives the file's own value (no override, so the same record id), and a recorded
    audit with the overrides it ran with when none is given. Returns the overrides kept."""
    audit, digest, text = read_audit(source)
    if overrides is None and isinstance(source, AuditRecord):
        overrides = source.overridden  # a record run again as it ran (read_audit applied them)
    elif overrides and not isinstance(source, AuditRecord):
        overrides = changing(audit, overrides)  # the file's own value again is no override
    if overrides:
        audit = apply_overrides(audit, dict(overrides))
    return audit, digest, text, dict(overrides or {})


def _seeded(probe: str, params: dict[str, Any], seed: int | None) -> dict[str, Any]:
    """``params`` with the audit's seed where the probe takes one and the part sets none."""
    if seed is None or "seed" in params:
        return dict(params)
    cls = Workspace.plugins.registry().probes.get(probe)
    if cls is not None and "seed" in cls.Params.model_fields:
        return {**params, "seed": seed}
    return dict(params)


def _makes_images(probe: str) -> bool:
    cls = Workspace.plugins.registry().probes.get(probe)
    return cls is not None and Capability.IMAGE_GENERATOR in cls.capabilities


def audit_parts(audit: AuditFile) -> list[Part]:
    """The audit's parts in the order they run."""
    registry = Workspace.plugins.registry()
    annotators = audit.labels.entries()
    parts: list[Part] = []
    by_name: dict[str, Part] = {}
    for entry in audit.probes:
        if entry.probe not in registry.probes:
            known = ", ".join(sorted(registry.probes))
            raise UsageError(f"probes: no probe named '{entry.probe}' (installed: {known})")
        part = Part(
            position=len(parts),
            name=entry.part_name,
            kind="probe",
            probe=entry.probe,
            models=[
                (audit.models[m].plugin, audit.models[m].plugin_params()) for m in entry.models
            ],
            params=_seeded(entry.probe, entry.params, audit.seed),
            annotators=annotators if _makes_images(entry.probe) else [],
        )
        parts.append(part)
        by_name[part.name] = part
    for mitigation in audit.mitigations:
        base = by_name[mitigation.baseline]
        parts.append(
            Part(
                position=len(parts),
                name=mitigation.name,
                kind="mitigation",
                probe=base.probe,
                models=base.models,
                params={**base.params, **mitigation.params},
                annotators=base.annotators,
                baseline=base.name,
            )
        )
    for search in audit.searches:
        parts.append(
            Part(
                position=len(parts),
                name=search.name,
                kind="search",
                probe=search.probe if search.kind == "identities" else "pst-text",
                baseline=search.baseline,
                search=search,
                seed=audit.seed,
            )
        )
    return parts


def search_settings(audit: AuditFile, search: Search) -> str:
    """The identity of an agent search as it runs: its settings, the audit's seed it takes and
    its models' plugins and parameters (the agent's and the target's), ``--set`` applied."""
    models = {
        name: [audit.models[name].plugin, audit.models[name].plugin_params()]
        for name in (search.agent_model, search.target)
        if name is not None and name in audit.models
    }
    # No seed leaves the search at its own default: the identity it had before seeds reached it.
    seeded = [] if audit.seed is None else [{"seed": audit.seed}]
    said = json.dumps([search.model_dump(), models, *seeded], sort_keys=True, default=str)
    return hashlib.sha256(said.encode()).hexdigest()[:16]


def sets_search(overrides: dict[str, Any], index: int, planned: PartPlan) -> bool:
    """Whether ``--set``'s fields change the audit's search ``index``: the search, the audit's
    seed or one of its models (the agent's, the target's), or all of either list."""
    search = planned.part.search
    assert search is not None
    fields = [f"searches.{index}", "seed"] + [
        f"models.{m}" for m in (search.agent_model, search.target) if m
    ]
    return any(
        key in ("searches", "models") or any(key == f or key.startswith(f"{f}.") for f in fields)
        for key in overrides
    )


def is_current(earlier: PartRecord, planned: PartPlan) -> bool:
    """Whether a recorded part is still this plan's part (same run identity; a search's is in
    the audit's id)."""
    return planned.fingerprint is None or earlier.detail.get("fingerprint") == planned.fingerprint


def stored_run(ws: Workspace, planned: PartPlan) -> str | None:
    """The newest stored run of ``planned``'s design (its fingerprint), which running the part
    continues; None where none is stored or the part has no run (an agent search)."""
    if planned.fingerprint is None:
        return None
    found = [s.run.id for s in ws.runs.list() if s.run.fingerprint == planned.fingerprint]
    return found[-1] if found else None


def reusable(planned: PartPlan, earlier: PartRecord | None) -> bool:
    """Whether ``planned``'s part recorded before (``earlier``) is complete and current: kept
    as it is, run again by no mode of the audit."""
    return earlier is not None and earlier.status == "complete" and is_current(earlier, planned)


def plan_audit(
    ws: Workspace,
    source: AuditSource,
    *,
    precision: bool = False,
    target_width: float | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> AuditPlan:
    """What running the audit file would do, part by part (trials, stored, price, and with
    ``precision`` the expected half-width of each part's headline figures); stores nothing.
    ``overrides`` (``--set``) are kept or dropped as the run keeps them, so the plan's id is
    the one the run records. A malformed file raises :class:`InputFileError` naming fields
    and lines."""
    audit, digest, _, kept = read_overridden(source, overrides)
    plan = replace(
        plan_parts(ws, audit, digest, precision=precision, target_width=target_width),
        overrides=kept,
    )
    # A search's stored trials are all its session's, not only its placebo words' (the id,
    # which names its session, holds the --set fields kept).
    parts = [
        p if p.part.search is None
        else replace(p, session_trials=ws.runs.session_trials(search_session(plan.id, p.part.name)))
        for p in plan.parts
    ]  # fmt: skip
    return replace(plan, parts=parts)


def plan_parts(
    ws: Workspace,
    audit: AuditFile,
    file_hash: str,
    *,
    precision: bool = False,
    target_width: float | None = None,
) -> AuditPlan:
    """Every part's planned, stored and to-run trials and price; stores nothing.

    Raises :class:`UsageError` (naming the part) when a probe, model or parameter is unknown,
    and when ``budget.max_requests`` is smaller than the requests left to run."""
    plans = []
    for part in audit_parts(audit):
        if part.kind == "search":
            assert part.search is not None
            plans.append(PartPlan(part, None, None, search_settings(audit, part.search)))
            continue
        assert part.probe is not None
        try:
            estimate = ws.runs.plan(
                part.probe, part.models, params=part.params, precision=precision,
                target_width=target_width,
            )  # fmt: skip
            fingerprint = ws.runs.fingerprint(part.probe, part.models, params=part.params)
        except UsageError as exc:
            raise UsageError(f"part '{part.name}': {exc}") from exc
        plans.append(PartPlan(part, fingerprint, estimate))
    plan = AuditPlan(audit, file_hash, plans)
    limit = audit.budget.max_requests
    if limit is not None and plan.to_run > limit:
        # Counted as the plan counts what is left: in requests (trials that ask the same
        # thing share one), so that the error and the plan's total line say one number.
        raise UsageError(
            f"budget.max_requests: the audit has {counted(plan.to_run, 'request')} to run "
            f"({counted(plan.planned, 'trial')} planned), more than its {fmt(limit)}; raise "
            "the limit or shrink the probes' samples"
        )
    return plan

"""Everything an audit report says, gathered from the workspace before any template runs.

The report reads the workspace through :class:`AuditSource` — the few Workspace steps it
needs — so that the report package never imports the Workspace (which writes reports).
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any, Protocol

from diptych.core.audit.stopped import name_fixed_intervals
from diptych.core.builds import build_names, builds_by_model
from diptych.core.cost import PRICED, Cost, cost_text
from diptych.core.errors import DiptychError
from diptych.core.labels import LabelPolicy, is_human
from diptych.core.plugins import get_probe, load_plugins
from diptych.core.probe import Probe, ProbeResult
from diptych.core.report.examples import example_images
from diptych.core.report.findings import AgentSession
from diptych.core.report.licences import data_licenses
from diptych.core.report.names import tell_apart
from diptych.core.report.probe_sections import probe_sections
from diptych.core.report.reproduce import (
    AGAIN,
    AUDIT_AGAIN,
    RunCommand,
    audit_command,
    diptych_words,
    gated_run_command,
    kept_audit,
    report_command,
    run_command,
)
from diptych.core.report.review import Review, run_review
from diptych.core.report.run_costs import ActualCost, cost_actual, cost_of_calls

# What a run cost is a module of its own; an audit's budget still imports it from here.
from diptych.core.report.run_costs import cost_paid as cost_paid
from diptych.core.report.run_dates import run_dates, when
from diptych.core.report.sections import ExampleImage, Section
from diptych.core.report.title import report_title
from diptych.core.report.wording import ReportWords, annotator_only

if TYPE_CHECKING:
    from diptych.core.metrics.agreement import AnnotatorAgreement
    from diptych.core.runview import RunView

#: Resamples of the mitigation comparisons the report computes (``ws.analysis.compare``).
COMPARE_N_BOOT = 1000
COMPARE_N_PERM = 2000


class AuditSource(Protocol):
    """What the report reads of a workspace: ``ws.analysis.report`` hands one over the
    Workspace's namespaces (runs' views, review notes, annotator agreement, comparisons, agent
    findings)."""

    def view(self, run_id: str) -> RunView: ...

    def status_text(self, run_id: str) -> str:
        """The run's status in words, as every listing gives it ("decided at look 1 of 10:
        164 of 1,640 requests, 1,476 saved")."""
        ...

    def stopped(
        self, run_id: str, numbers: Mapping[str, Mapping[str, Any]]
    ) -> dict[str, dict[str, Any]]:
        """The figures of ``numbers`` no gate decided, of a run whose design stopped early on its
        gates, each with the interval that holds after the stop, or its own named as not
        holding (:func:`diptych.core.workspace.decided.stopped_numbers`); empty otherwise."""
        ...

    def stopped_look(self, run_id: str) -> str:
        """The look ("look 1 of 4") at which an audit's gates stopped the run's design early,
        whose fixed-design intervals do not hold after it; empty for any other run."""
        ...

    def at_look(self, view: RunView) -> tuple[bool, ProbeResult | None, RunView]:
        """Whether the run was bought on since its gates stopped it early, its analysis on
        the trials its last look read (None where they cannot be rebuilt), and the view of
        those trials that analysis read (``view`` itself where there is none)."""
        ...

    def notes(self, run_id: str) -> list[dict[str, Any]]: ...

    def agreement(
        self, run_id: str, *, n_boot: int | None = ..., seed: int | None = ...
    ) -> AnnotatorAgreement: ...

    def compare(
        self,
        run_a: str,
        run_b: str,
        *,
        top: int | None = ...,
        n_perm: int = ...,
        n_boot: int = ...,
        seed: int = ...,
    ) -> ProbeResult: ...

    def agent_findings(
        self, run_ids: Sequence[str] | None = ..., *, sessions: Sequence[str] = ...
    ) -> list[dict[str, Any]]: ...


@dataclass
class RunPart:
    """One run's chapter: what was asked, of whom, what came of it."""

    view: RunView
    probe: Probe
    result: ProbeResult
    counts: dict[str, int]
    models: list[dict[str, Any]]
    started: str
    finished: str
    cost: float | None
    sections: list[Section]
    examples: list[ExampleImage]
    review: Review | None
    #: What the services said the answered calls cost (``cost_usd`` in their provenance).
    actual: ActualCost = field(default_factory=lambda: ActualCost(None, 0, 0))
    #: ``cost`` with the calls it leaves out: those with no price, and of them those computed
    #: on this machine (None: not counted).
    calls: Cost | None = None
    #: The run's status in words, as every listing gives it; its stored status if empty.
    status_text: str = ""
    #: The answers it reused from an earlier run, in words ("" for none; run_dates).
    reused: str = ""
    #: Bought on since its stop, its breakdowns read all its trials (its look's not rebuilt).
    whole_since: bool = False
    #: Bought on since its stop, the look whose trials its labels and example images read, as
    #: its figures do ("look 1 of 10"); "" where they read all its trials.
    read_at: str = ""

    @property
    def status_said(self) -> str:
        return self.status_text or self.view.run.status

    #: The workspace the run is in and the report's own directory, where its commands are
    #: pasted: the reproduce command names the workspace from there where it is not the default.
    store: str | None = None
    cwd: str | None = None

    @property
    def id(self) -> str:
        return self.view.id

    @property
    def estimated_cost_text(self) -> str:
        return cost_text(self.calls if self.calls is not None else self.cost)

    @property
    def actual_cost_text(self) -> str:
        """What the services reported the calls cost; for a run no model of which has a price
        (a local model, a service nobody priced) nothing was bought at a price a service could
        report, so it is said in the estimate's words ("not priced (computed on this machine)")."""
        unpriced = self.cost is None if self.calls is None else PRICED not in self.calls.kinds
        if self.actual.usd is None and unpriced:
            return self.estimated_cost_text
        return self.actual.text

    @property
    def anchor(self) -> str:
        return f"run-{self.view.id}"

    @property
    def observation(self) -> str:
        """What one observation behind the run's ``n`` is (the probe's ``observation``)."""
        return str(getattr(self.probe, "observation", "") or "observation")

    @property
    def no_figures(self) -> str:
        """What the report says where the run has no figure: a sentence in place of an empty
        table ("No trial of this run has finished yet; resume it with `diptych resume RUN`.")."""
        done = self.counts.get("done", 0)
        if not done:
            resume = shlex.join([*diptych_words(self.store, self.cwd), "resume", self.id])
            return f"No trial of this run has finished yet; resume it with `{resume}`."
        return (
            f"No figure could be made from this run's {done:,} finished "
            f"trial{'s' if done != 1 else ''}; the probe's notes (Appendix A) say why."
        )

    @property
    def reproduce(self) -> RunCommand:
        """The ``diptych run`` command that makes this run again (nothing asked twice)."""
        return run_command(self.view.run, self.store, self.cwd)

    @property
    def prompts(self) -> dict[str, str]:
        return self.probe.prompts_used()

    @property
    def label_policy(self) -> str:
        policy = self.result.data.get("label_policy")
        return policy if isinstance(policy, str) else ""

    @property
    def rests_on(self) -> list[str]:
        """What the run's prediction-powered figures rest on: estimator, λ, design and its
        probabilities, and that a reviewer's chosen labels never enter (none: [])."""
        from diptych.core.metrics.uncertainty.ppi.estimate import rests_on

        return rests_on(self.result.data)

    @property
    def seeds(self) -> dict[str, Any]:
        return {k: v for k, v in self.view.run.params.items() if "seed" in k}

    @property
    def methods_sections(self) -> list[Section]:
        return [s for s in self.sections if s.place == "methods"]

    @property
    def results_sections(self) -> list[Section]:
        return [s for s in self.sections if s.place == "results"]


@dataclass
class Comparison:
    """A mitigation compared: run ``intervention`` against run ``baseline`` of the same probe."""

    baseline: str
    intervention: str
    result: ProbeResult
    #: What the n of the compared figures counts (the probe's ``observation``).
    observation: str = "observation"

    @property
    def anchor(self) -> str:
        return f"compare-{self.baseline}-{self.intervention}"


@dataclass
class Audit:
    runs: list[RunPart]
    comparisons: list[Comparison]
    written: str
    diptych_version: str
    plugins: list[dict[str, str]]
    licenses: list[str]
    draft: Any = None  # a DraftedNarrative when --draft-with was given
    #: What produced the report beyond its runs: an audit file's name, id and hash, its parts.
    scope: dict[str, Any] = field(default_factory=dict)
    #: Agent sessions that scored one of the runs, with their findings and held-out re-tests.
    agent_sessions: list[AgentSession] = field(default_factory=list)
    #: The audit's release gates decided (a GateReport) where the report is an audit's with
    #: gates; ``gate_error`` says why they could not be decided.
    gates: Any = None
    gate_error: str = ""
    #: The workspace the runs are in and the report's own directory (see :class:`RunPart`).
    store: str | None = None
    cwd: str | None = None
    #: The report's folder as it was named when written (``ws``): the folder every command of
    #: "How to reproduce" runs from, said in one line, since pasted elsewhere they fail.
    folder: str | None = None
    #: Every audited model side by side (a ``Standings``) where the report covers several.
    standings: Any = None
    #: An organisation's framework files (paths), mapped after the shipped ones.
    frameworks_files: list[Any] = field(default_factory=list)

    @property
    def report_command(self) -> str:
        """``diptych report RUN...`` from the directory the report is in: a run report's own
        command again; in an audit's report, the runs' own report (:attr:`runs_report_words`).
        It names the audit whose gates it kept, or none, as a later audit may record the runs."""
        kept = kept_audit(self.scope)
        return report_command([p.id for p in self.runs], self.store, self.cwd, kept)

    @property
    def runs_report_words(self) -> str:
        """What ``diptych report RUN...`` writes, said before its command in an audit's report:
        the runs' own report, not this one (without the findings of the audit's searches and
        what its file sets for its report)."""
        searches = any(p.get("kind") == "search" for p in self.scope.get("parts") or [])
        left_out = ["the agent findings of the audit's searches"] if searches else []
        left_out.append(
            "what the audit file sets for its report (label policy, frameworks, formats)"
        )
        return (
            "Not this report, but its runs' own, from the same stored answers: it leaves out "
            f"{' and '.join(left_out)}; any gates it shows are this audit's."
        )

    #: The folders the two commands write to, beside this report's: the runs' report again, and
    #: the audit again (so that one run after the other meets nothing of the other's).
    report_again = AGAIN
    audit_again = AUDIT_AGAIN

    @property
    def audit_command(self) -> str | None:
        """``diptych audit run FILE``: an audit's report again, from what the audit stored;
        for an audit made on the command line, its ``diptych run … --gate …``."""
        if len(self.runs) == 1 and (
            gated := gated_run_command(self.runs[0].view.run, self.scope, self.store, self.cwd)
        ):
            return gated
        return audit_command(self.scope, self.store, self.cwd)

    @property
    def title(self) -> str:
        titles, probes = [r.result.title for r in self.runs], [r.view.run.probe for r in self.runs]
        return report_title(self.scope, self.gates, titles, probes)

    @property
    def words(self) -> ReportWords:
        """What the report calls what it is of ("this audit", "this run", "these runs")."""
        probes = [r.view.run.probe for r in self.runs]
        text = bool(self.runs) and all(
            t.capability in TEXT_CAPABILITIES for r in self.runs for t in r.view.trials
        )
        return ReportWords(
            bool(self.scope.get("audit")), len(self.runs), annotator_only(probes), text
        )


#: Capabilities whose answers are text: a run of only these makes no image.
TEXT_CAPABILITIES = frozenset({"chat", "text_likelihood"})


def model_summaries(view: RunView) -> list[dict[str, Any]]:
    """Each model of the run with the provenance its first finished result recorded, and the
    plugin that provides it."""
    first: dict[str, dict[str, Any]] = {}
    for trial in view.trials:
        result = view.results.get(trial.key)
        if result is not None and trial.model_id not in first:
            first[trial.model_id] = result.provenance
    owner = load_plugins().owner
    # The backend builds each model's results came from: more than one is said in the report.
    builds = builds_by_model(view.results.values())
    out = []
    for m in view.run.models:
        name = m.get("name") or str(m["model_id"]).split("@")[0]
        provider = owner.get(("model", name)) or owner.get(("annotator", name)) or ""
        out.append(
            {
                **m,
                "provider": provider,
                "provenance": first.get(m["model_id"], {}),
                "builds": builds.get(m["model_id"], []),
                "build_names": build_names(builds.get(m["model_id"], [])),
            }
        )
    return out


def run_part(
    source: AuditSource,
    run_id: str,
    *,
    result: ProbeResult | None = None,
    label_policy: LabelPolicy | None = None,
) -> RunPart:
    view = source.view(run_id)
    view.label_policy = label_policy
    probe = get_probe(view.run.probe, view.run.params)
    result = result or probe.analyze(view)
    stopped = source.stopped(view.id, result.numbers)
    if stopped:
        numbers = {k: dict(stopped.get(k) or v) for k, v in result.numbers.items()}
        result = replace(result, numbers=numbers)
    # Bought on since its stop: its breakdowns read the trials its look read, as its figures do.
    # Its labels and example images too: ``read`` is the view of the look's trials.
    since, looked, read = source.at_look(view)
    if looked is not None:
        result = replace(looked, title=result.title, numbers=result.numbers)
    result = name_fixed_intervals(result, source.stopped_look(view.id))
    until = None if view.run.status == "running" else view.run.updated_at
    dates = run_dates(view.run.created_at, view.results.values(), until)
    calls = cost_of_calls(view)
    return RunPart(
        view=view,
        probe=probe,
        result=result,
        counts=view.status_counts(),
        models=model_summaries(view),
        started=when(dates.started),
        finished=when(dates.finished),
        reused=dates.reused_text,
        cost=calls if calls.priced else None,
        calls=calls,
        sections=probe_sections(probe, read, result),
        examples=example_images(read, result),
        review=run_review(source, read, view),
        actual=cost_actual(view),
        status_text=source.status_text(view.id),
        whole_since=since and looked is None,
        read_at=source.stopped_look(view.id) if read is not view else "",
    )


def comparisons(source: AuditSource, runs: Sequence[RunPart]) -> list[Comparison]:
    """Each later run of a probe against the first run of that probe in the audit (the
    baseline), where the probe compares runs."""
    first: dict[str, RunPart] = {}
    out: list[Comparison] = []
    for part in runs:
        probe = part.view.run.probe
        if probe not in first:
            first[probe] = part
            continue
        base = first[probe]
        try:
            compared = source.compare(
                base.id, part.id, n_perm=COMPARE_N_PERM, n_boot=COMPARE_N_BOOT, seed=0
            )
        except DiptychError:
            continue  # the probe does not compare runs
        out.append(Comparison(base.id, part.id, compared, base.observation))
    return out


def _annotator_names(part: RunPart) -> list[str]:
    names = []
    for annotator in part.review.labels if part.review else {}:
        if is_human(annotator) or annotator == "self":
            continue
        names.append(annotator.split(":", 1)[-1].split("@", 1)[0].split("#", 1)[0])
    return names


def used_plugins(runs: Sequence[RunPart]) -> list[dict[str, str]]:
    """The plugins the runs used — their probe, models and annotators — each with what of it
    was used, its distribution and version; not every installed plugin."""
    registry = load_plugins()
    info = {p.name: p for p in registry.plugins}
    used: dict[str, list[str]] = {}
    for part in runs:
        wanted = [("probe", part.view.run.probe)]
        wanted += [
            ("model", str(m.get("name") or str(m["model_id"]).split("@")[0])) for m in part.models
        ]
        wanted += [("annotator", a) for a in _annotator_names(part)]
        for kind, name in wanted:
            owner = registry.owner.get((kind, name))
            if owner is None and kind == "model":
                owner = registry.owner.get(("annotator", name))
            if owner is not None:
                used.setdefault(owner, [])
                if f"{kind} {name}" not in used[owner]:
                    used[owner].append(f"{kind} {name}")
    out = []
    for owner, what in used.items():
        plugin = info.get(owner)
        out.append(
            {
                "name": owner,
                "used": ", ".join(what),
                "distribution": (plugin.distribution if plugin else "") or "—",
                "version": (plugin.version if plugin else "") or "—",
            }
        )
    return out


def _diptych_version() -> str:
    try:
        return version("diptych")
    except PackageNotFoundError:
        return "unknown"


def collect_audit(
    source: AuditSource,
    run_ids: Sequence[str],
    *,
    result: ProbeResult | None = None,
    label_policy: LabelPolicy | None = None,
    sessions: Sequence[str] = (),
) -> Audit:
    """The audit of ``run_ids`` in the given order; ``result`` is the first run's analysis
    where the caller holds it already. The agent sessions listed are those that scored one of
    the runs and those named in ``sessions``."""
    parts = [
        run_part(source, rid, result=result if i == 0 else None, label_policy=label_policy)
        for i, rid in enumerate(run_ids)
    ]
    tell_apart(m for p in parts for m in p.models)
    return Audit(
        runs=parts,
        comparisons=comparisons(source, parts),
        written=time.strftime("%Y-%m-%d %H:%M"),
        diptych_version=_diptych_version(),
        plugins=used_plugins(parts),
        licenses=data_licenses(parts),
        agent_sessions=[
            AgentSession.from_dict(s)
            for s in source.agent_findings([p.id for p in parts], sessions=sessions)
        ],
    )

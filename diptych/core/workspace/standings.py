"""``Workspace.standings``: every audited model in the workspace side by side on one figure —
each with its interval, the pairwise differences with Holm-corrected tests and a rank with its
interval — one table per design (:mod:`diptych.core.standings`), the papers' published figures
beside each as another design, and a model measured again against its predecessor."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from diptych.core import standings as ranking
from diptych.core.audit.record import list_audits
from diptych.core.audit.run_status import (
    PENDING,
    bought_on_since,
    looks_by_run,
    status_text,
)
from diptych.core.audit.sequential import PartLooks
from diptych.core.builds import build_names, builds_by_model
from diptych.core.digits import percent_text
from diptych.core.errors import UsageError
from diptych.core.metrics.uncertainty.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_N_BOOT
from diptych.core.plugins import get_probe
from diptych.core.report.formatting import no_interval
from diptych.core.report.names import tell_apart
from diptych.core.report.verdict import published_values
from diptych.core.run_names import short_names
from diptych.core.runview import RunView
from diptych.core.workspace.base import Kernel, Namespace
from diptych.core.workspace.decided import (
    bought_on_numbers,
    decided_numbers,
    holds_after_stop,
    look_reason,
    stopped_numbers,
)
from diptych.core.workspace.look_trials import look_samples

if TYPE_CHECKING:
    from diptych.core.store import Store
    from diptych.core.workspace.analysis import Analysis

#: The figure standings rank unless asked for another: the STS of the paired setting, the
#: Paired Stereotype Test's headline.
DEFAULT_FIGURE = "STS paired"


def figure_matches(figure: str, asked: str) -> bool:
    """Whether a figure's name is the one asked for: the same name, or the name after an
    aspect's prefix (``occupation: STS paired`` for ``STS paired``), each with the qualifier
    that says how it was measured (``STS paired (drawn labels)``)."""
    base = figure.split(" (", 1)[0] if figure.endswith(")") and " (" not in asked else figure
    return base == asked or base.endswith(f": {asked}")


def references_for(probe: str, figure: str, params: dict[str, object]) -> list[ranking.Reference]:
    """The figures the method papers published for ``figure`` of a ``probe`` run (as the
    report's context beside ours: ``published_values.yaml``)."""
    data = published_values()
    aspects = params.get("aspects")
    words = [figure] + ([str(a) for a in aspects] if isinstance(aspects, list | tuple) else [])
    if probe == "pst-text":
        words.append("occupation")  # pst-text's identities are the PST's occupations (Table 7)
    said = " ".join(words).lower()
    out = []
    for entry in data.values:
        if probe not in entry.probes or not re.search(entry.match, figure, re.I):
            continue
        if not all(w.lower() in said for w in entry.setting):
            continue
        source = data.sources.get(entry.source)
        out.append(
            ranking.Reference(
                source=source.authors if source else entry.source,
                where=entry.where,
                measured_on=entry.measured_on,
                what=entry.figure,
                values=dict(entry.values),
            )
        )
    return out


def told_apart(measured: Sequence[ranking.Measured]) -> list[ranking.Measured]:
    """``measured`` with each model named as the report names it: its plugin, with the
    version, build or parameters that set it apart from a namesake here (two builds of one
    model read ``smollm2 (build llama-cpp-python 0.3.9)`` and ``smollm2 (build
    llama-cpp-python 0.3.16)``), so that no two rows of the standings name two models alike."""
    models = [
        {
            "name": m.model_name,
            "model_id": m.sample.model,
            "version": m.version,
            "build_names": build_names(m.builds),
        }
        for m in measured
    ]
    tell_apart(models)
    return [
        replace(m, shown=str(model["shown"])) for m, model in zip(measured, models, strict=True)
    ]


def share_of_design(
    status: str,
    looks: PartLooks | None,
    answered: int | None = None,
    counts: Mapping[str, int] | None = None,
    run_id: str = "",
) -> str:
    """How much of its design a run holds, in words, where it holds part of it only: a run a
    sequential audit decided (or left partial) at a look, "10% of its design (decided at look
    1 of 10: 164 of 1,640 requests, 1,476 saved)"; one bought on since (``answered``: its
    requests with an outcome now), interrupted or not, the share its look read, which it is
    ranked on, with what it holds now after it; any other run with trials failed or
    not yet bought (``counts``), "508 of 1,720 trials (1,212 failed; diptych resume RUN asks
    them again)"; "" for a run bought whole."""
    said = status_text(status, looks, answered)
    if bought_on_since(status, looks, answered) and said != status:
        # Ranked as its look read it (look_samples): the look's share, the rest named after it.
        assert looks is not None and looks.last is not None
        return f"{percent_text(looks.last.fraction)} of its design ({said})"
    if status not in ("decided", "partial"):
        return _trials_short(counts or {}, run_id)
    last = looks.last if looks is not None else None
    return (
        f"{percent_text(last.fraction)} of its design ({said})"
        if last is not None
        else f"part of its design ({said})"
    )


def _trials_short(counts: Mapping[str, int], run_id: str) -> str:
    """What a run neither decided nor partial holds of its trials where some failed or are
    still to be asked, "508 of 1,720 trials (1,212 failed; ...)"; "" where every trial has an
    answer or a refusal. Those with no outcome are :data:`PENDING`, as every listing says."""
    failed, pending = counts.get("failed", 0), counts.get(PENDING, 0)
    if not failed and not pending:
        return ""
    total = sum(counts.values())
    left = [f"{failed:,} failed"] if failed else []
    left += [f"{pending:,} {PENDING}"] if pending else []
    return (
        f"{total - failed - pending:,} of {total:,} trials ({', '.join(left)}; diptych resume "
        f"{run_id} asks {'it' if failed + pending == 1 else 'them'} again)"
    )


def decided_interval(
    number: Mapping[str, Any] | None, kind: ranking.DecidedKind = "gated"
) -> ranking.DecidedInterval | None:
    """The interval of a figure of a design its gates stopped early, from the number ``diptych
    show`` prints for it: the one a gate decided it on
    (:func:`~diptych.core.workspace.decided.decided_numbers`), or for a figure no gate read
    the one that holds after the stop, or its own named as not
    (:func:`~diptych.core.workspace.decided.stopped_numbers`); None for a figure read on its
    fixed design."""
    if not number or not number.get("interval_name"):
        return None
    if kind == "gated" and number.get("gate_verdict") == "inconclusive":
        kind = "read"
    return ranking.DecidedInterval(
        float(number["value"]), float(number["ci_low"]), float(number["ci_high"]),
        str(number["interval_name"]),
        number["floor"] if isinstance(number.get("floor"), str) and number["floor"] else None,
        kind,
    )  # fmt: skip


def stopped_intervals(
    analysis: Analysis, store: Store, run_id: str, figures: Sequence[str]
) -> dict[str, ranking.DecidedInterval]:
    """Each of ``figures`` of a run whose design its gates stopped early, with the interval
    ``diptych show`` prints for it (:meth:`~diptych.core.workspace.audits.Audits.read`): the
    gate's where a gate decided it, else the anytime-valid one of its own looks, else its
    fixed-design one named as not holding after the stop. A run bought on since the stop reads
    each figure as its looks read it at the stop, the one interval its decision used, named
    with its value on all the trials stored since beside it as a value only
    (:func:`~diptych.core.workspace.decided.bought_on_numbers`): no interval is made of those
    trials; a figure that look recorded without an interval has none, named as ``show`` names
    it ("no interval (one masculine identity only, look 1 of 10; 25.0 on all 1,680 trials
    stored since)"). Empty for any other run."""
    decided = decided_numbers(analysis, store, run_id)
    out = {f: decided_interval(decided.get(f)) for f in figures if f in decided}
    if any(f not in decided for f in figures):
        # Only a stopped design's figures need the analysis: what the stop leaves them.
        numbers = analysis.analyze(run_id).numbers
        stopped = stopped_numbers(store, run_id, numbers, decided)
        ranked = {f: numbers[f] for f in figures if f in numbers and f not in decided}
        stopped.update(bought_on_numbers(analysis, store, run_id, ranked))
        for name, number in stopped.items():
            if name not in figures:
                continue
            if number.get("bought_on") and number.get("stopped_interval") == "none":
                # Its look read it without an interval: as `show` prints it, none since.
                out[name] = ranking.DecidedInterval(
                    float(number["value"]), -math.inf, math.inf, no_interval(number),
                    kind="bought_on_none", reason=look_reason(number),
                )  # fmt: skip
                continue
            kind: ranking.DecidedKind = "stopped" if holds_after_stop(number) else "fixed"
            if kind == "stopped" and number.get("bought_on"):
                kind = "bought_on"
            out[name] = decided_interval(number, kind)
    return {f: d for f, d in out.items() if d is not None}


#: How the CLI says to choose another figure; a screen says its own key.
CHOOSE_WITH_FLAG = "name one with --figure"


class NothingToRank(UsageError):
    """No run has the figure asked for with what it takes to rank it, and why, in words that
    are true for the runs present: some still running, some finished without the labels their
    figure is made of, some labelled and stating the figure in their report though it is not
    one their probe ranks, other figures there to choose from (:meth:`said`)."""

    def __init__(
        self,
        figure: str,
        *,
        running: Sequence[str] = (),
        unlabelled: Sequence[str] = (),
        unranked: Sequence[str] = (),
        figures: Sequence[str] = (),
    ) -> None:
        self.figure = figure
        self.running = list(running)
        self.unlabelled = list(unlabelled)
        self.unranked = list(unranked)
        self.figures = list(figures)
        super().__init__(self.said(CHOOSE_WITH_FLAG))

    def said(self, choose: str, after_running: str = "") -> str:
        """The one line, ``choose`` saying how this front end picks another figure and
        ``after_running`` what it does once a running run finishes."""
        head = f"no {'finished ' if self.running else ''}run here has the figure '{self.figure}'"
        later = self.running or self.unlabelled
        parts = [head + (" to rank yet" if later else " to rank")]
        if self.running:
            parts.append(_runs(self.running, "is", "are") + " still running" + after_running)
        if self.unlabelled:
            whose = "its" if len(self.unlabelled) == 1 else "their"
            parts.append(
                _runs(self.unlabelled, "has", "have")
                + f" no labels yet: label {whose} people first"
            )
        if self.unranked:
            # A likelihood run's drawn-label STS: its report states it, but it adds the noise
            # of the draws to the expected STS the run is ranked on.
            whose = "its" if len(self.unranked) == 1 else "their"
            parts.append(
                _runs(self.unranked, "has", "have")
                + f" labels and {whose} report states it, but it is not a figure standings rank"
            )
        if self.figures:
            listed = ", ".join(f"'{f}'" for f in self.figures)
            parts.append(f"figures here: {listed} ({choose})")
        elif not self.running and not self.unlabelled and not self.unranked:
            parts.append("run a probe whose figures are ranked (pst, pst-text) first")
        return "; ".join(parts)


def _runs(ids: Sequence[str], one: str, several: str) -> str:
    """Runs named for a sentence with their verb: "pst-text-0663f62e is", "3 runs are"."""
    return f"{ids[0]} {one}" if len(ids) == 1 else f"{len(ids)} runs {several}"


def figure_choices(figures: Sequence[str]) -> list[str]:
    """The figures a front end offers to rank, from those the runs have (``figures``, first
    seen first): the default first, then each figure's name without how it was measured, then
    its full name, each kept only where it ranks another set of figures than every name before
    it ("STS single" for the STS single expected from P(he), P(she); "occupation: STS paired"
    for that aspect alone)."""
    out: list[str] = []
    seen: list[frozenset[str]] = []
    names = [DEFAULT_FIGURE, *(f.split(" (", 1)[0] for f in figures), *figures]
    for name in names:
        matched = frozenset(f for f in figures if figure_matches(f, name))
        if matched and matched not in seen and name not in out:
            out.append(name)
            seen.append(matched)
    return out


class _Seen:
    """What the runs read for a ranking held besides the figure asked for: every figure they
    have, the runs still running and the finished runs whose probe makes the figure but gave
    none (no labels yet, or labels but not that figure among those it ranks): what a front
    end says where nothing is ranked."""

    def __init__(self) -> None:
        self.figures: list[str] = []
        self.running: list[str] = []
        self.unlabelled: list[str] = []
        self.unranked: list[str] = []

    def note(self, run: Any, probe: Any, samples: Sequence[Any], figure: str) -> None:
        for s in samples:
            if s.figure not in self.figures:
                self.figures.append(s.figure)
        if any(figure_matches(s.figure, figure) for s in samples):
            return
        if run.status == "running":
            self.running.append(run.id)
        elif any(figure_matches(name, figure) for name in probe.figure_names() or []):
            # Figures to rank from its labels, but not this one: the labels are there.
            (self.unranked if samples else self.unlabelled).append(run.id)


class Standings(Namespace):
    """Standing among models (``diptych standings``)."""

    def __init__(self, kernel: Kernel, analysis: Analysis) -> None:
        super().__init__(kernel)
        self._analysis = analysis
        self._seen = _Seen()

    @property
    def choices(self) -> list[str]:
        """The figures the runs of the last ranking (:meth:`table`) can be ranked on, as
        :meth:`figures` offers them, without reading the runs again."""
        return figure_choices(self._seen.figures)

    def figures(self, run_ids: Sequence[str] | None = None) -> list[str]:
        """The figures the runs named (default: every run) can be ranked on, as a front end
        offers them (:func:`figure_choices`): the paired STS first where a run has it."""
        self.measured(run_ids, figure=DEFAULT_FIGURE)
        return figure_choices(self._seen.figures)

    def measured(
        self, run_ids: Sequence[str] | None = None, *, figure: str = DEFAULT_FIGURE
    ) -> tuple[list[ranking.Measured], dict[str, list[ranking.Reference]]]:
        """Each model's ``figure`` in the runs named (default: every run of the workspace
        whose probe gives figures to rank), and the papers' figures for each design."""
        runs = [self._kernel.get_run(r) for r in run_ids] if run_ids else self._store.list_runs()
        shown = short_names(self._store.list_runs())
        looks = looks_by_run(list_audits(self._store))
        measured: list[ranking.Measured] = []
        references: dict[str, list[ranking.Reference]] = {}
        self._seen = _Seen()
        for run in runs:
            view = RunView(self._store, run, chroma_url=self._kernel.chroma_url)
            probe = get_probe(run.probe, run.params)
            every = probe.figure_samples(view)
            self._seen.note(run, probe, every, figure)
            samples = [s for s in every if figure_matches(s.figure, figure)]
            if not samples:
                continue
            models = {m.get("model_id"): m for m in run.models}
            builds = builds_by_model(view.results.values())
            counts = self._store.status_counts(run.id)
            # A figure of a design its gates stopped at a look keeps the interval `diptych
            # show` prints for it (the one they decided on, else the one that holds after
            # the stop): one interval per figure.
            decided = (
                stopped_intervals(self._analysis, self._store, run.id, [s.figure for s in samples])
                if run.id in looks
                else {}
            )
            # Bought on since: its figure and its pairs read the trials its look read.
            samples, decided = look_samples(self._store, view, probe, samples, decided)
            for sample in samples:
                model = models.get(sample.model, {})
                measured.append(
                    ranking.Measured(
                        run=run.id,
                        created_at=run.created_at,
                        model_name=str(model.get("name", sample.model)),
                        version=str(model.get("version", "")),
                        params=dict(model.get("params") or {}),
                        builds=tuple(builds.get(sample.model, [])),
                        sample=sample,
                        shown_run=shown.get(run.id, run.id),
                        partial=share_of_design(
                            run.status,
                            looks.get(run.id),
                            self._store.requests_held(run.id),
                            counts,
                            run.id,
                        ),
                        decided=decided.get(sample.figure),
                    )
                )
                references.setdefault(
                    sample.design, references_for(run.probe, sample.figure, run.params)
                )
        return told_apart(measured), references

    def table(
        self,
        run_ids: Sequence[str] | None = None,
        *,
        figure: str = DEFAULT_FIGURE,
        against: str | None = None,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = 0,
        confidence: float = DEFAULT_CONFIDENCE,
    ) -> ranking.Standings:
        """The standings of ``figure`` over the runs named (default: every run with labels),
        one table per design. ``against`` names a run whose models are the predecessors of the
        others' (a model version against the one before it). Raises :class:`UsageError` when
        no run has the figure."""
        against_id = self._kernel.get_run(against).id if against is not None else None
        ids = list(run_ids or [])
        if against_id is not None and ids and against_id not in ids:
            ids.append(against_id)
        measured, references = self.measured(ids or None, figure=figure)
        if not measured:
            seen = self._seen
            raise NothingToRank(
                figure, running=seen.running, unlabelled=seen.unlabelled,
                unranked=seen.unranked, figures=figure_choices(seen.figures),
            )  # fmt: skip
        return ranking.standings(
            measured, against=against_id, references=references, n_boot=n_boot, seed=seed,
            confidence=confidence,
        )  # fmt: skip

"""The persons of a ``pst`` run with the label each is scored by, grouped by model, aspect and
intervention; and what could not be scored (unlabelled persons, refused images, labels outside
the STS vocabulary)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from diptych.core.labels import (
    HUMAN_MAJORITY,
    POLICY_TEXT,
    LabelPolicy,
    SubjectLabel,
    automatic_order,
    choose_label,
    gender_label,
)
from diptych.core.metrics.sts import LabelRow
from diptych.core.runview import RunView
from diptych.plugins.probes._paired_stereotype_test.scoring import sts_row
from diptych.plugins.probes.pst.params import ASPECTS

LABEL_POLICY = POLICY_TEXT["mixed"]
DEFAULT_POLICY: LabelPolicy = "mixed"


def policy_of(run: RunView) -> LabelPolicy:
    """The label policy the analysis of ``run`` was asked for (the front end's choice)."""
    return getattr(run, "label_policy", None) or DEFAULT_POLICY


NO_LABELS = (
    "no labels yet: import them with diptych annotate {run} --import FILE.csv or run an annotator"
)


class GroupKey(NamedTuple):
    model_id: str
    aspect: str
    intervention: str | None


@dataclass
class PSTGroup:
    """The persons of one model and aspect (and intervention), labelled by the policy."""

    key: GroupKey
    #: One row per labelled person (human majority or the automatic annotator's label).
    rows: list[LabelRow] = field(default_factory=list)
    #: Persons by where their label came from: HUMAN_MAJORITY or an automatic annotator's id.
    sources: Counter[str] = field(default_factory=Counter)
    #: Persons in finished images without any usable label, by setting.
    unlabelled: Counter[str] = field(default_factory=Counter)
    #: Images by (setting, outcome): done, refused, failed or pending.
    images: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: Identities named in refused images, so a reader sees whom a model declined to draw.
    refused_identities: Counter[str] = field(default_factory=Counter)
    occupation_of: dict[str, str] = field(default_factory=dict)
    power_of: dict[str, str | None] = field(default_factory=dict)
    #: Each paired image's identities as its trial planned them (image → stereotyped gender →
    #: identity), from its subjects: an image with one person labelled still names both.
    scenes: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass
class PSTLabels:
    groups: dict[GroupKey, PSTGroup]
    #: Automatic annotators in the order the policy prefers them.
    automatic: list[str]
    #: Label values outside the STS vocabulary, skipped, by value.
    unreadable: Counter[str]

    @property
    def n_labelled(self) -> int:
        return sum(len(g.rows) for g in self.groups.values())


def run_number(meta: dict[str, Any]) -> int | None:
    """The sampling run of a trial (Table 13's run number), if the trial records one."""
    run = meta.get("run")
    return int(run) if run is not None else None


def readable_labels(run: RunView) -> tuple[dict[tuple[int, str], list[SubjectLabel]], Counter[str]]:
    """Every label but the probe's own ('self'), in the STS vocabulary, by subject (trial index,
    position); and the labels outside that vocabulary, by value."""
    readable: dict[tuple[int, str], list[SubjectLabel]] = {}
    unreadable: Counter[str] = Counter()
    for lab in run.labels():
        if lab.kind == "self":
            continue
        label = gender_label(lab.label)
        if label is None:
            unreadable[lab.label] += 1
        else:
            readable.setdefault(lab.subject, []).append(replace(lab, label=label))
    return readable, unreadable


def collect_labels(run: RunView, policy: LabelPolicy | None = None) -> PSTLabels:
    """Every person of the run's finished images with its label chosen by ``policy`` (default:
    the run view's, else mixed; :data:`~diptych.core.labels.POLICY_TEXT`), grouped by model,
    aspect and intervention; counts of what could not be scored."""
    policy = policy or policy_of(run)
    readable, unreadable = readable_labels(run)
    automatic = automatic_order(lab for labs in readable.values() for lab in labs)

    groups: dict[GroupKey, PSTGroup] = {}
    for trial in run.trials:
        meta = trial.meta
        key = GroupKey(trial.model_id, meta.get("aspect", "occupation"), meta.get("intervention"))
        group = groups.setdefault(key, PSTGroup(key))
        setting = meta["setting"]
        result = run.result(trial)
        status = result.status if result is not None else "pending"
        group.images[(setting, status)] += 1
        for subject in run.subjects(trial):
            identity = subject.meta["identity"]
            if setting == "paired":
                scene = group.scenes.setdefault(str(meta["image"]), {})
                scene[str(subject.meta["stereotype"])] = str(identity)
            group.occupation_of.setdefault(identity, subject.meta.get("occupation") or identity)
            group.power_of.setdefault(identity, subject.meta.get("power"))
            if status == "refused":
                group.refused_identities[identity] += 1
            if status != "done":
                continue
            labs = readable.get((trial.idx, subject.position), [])
            chosen = _choose(labs, automatic, run_number(meta), policy)
            if chosen is None:
                group.unlabelled[setting] += 1
                continue
            row, source = chosen
            group.rows.append(row)
            group.sources[source] += 1
    order = {m: i for i, m in enumerate(run.model_ids())}
    ordered = sorted(
        groups.values(),
        key=lambda g: (
            order.get(g.key.model_id, len(order)),
            g.key.model_id,
            ASPECTS.index(g.key.aspect) if g.key.aspect in ASPECTS else len(ASPECTS),
            g.key.aspect,
            g.key.intervention or "",
        ),
    )
    return PSTLabels({g.key: g for g in ordered}, automatic, unreadable)


def _choose(
    labs: Sequence[SubjectLabel], automatic: Sequence[str], run: int | None, policy: LabelPolicy
) -> tuple[LabelRow, str] | None:
    """One person's STS row by ``policy``, and where its label came from."""
    chosen = choose_label(labs, automatic, policy)
    if chosen is None:
        return None
    label, source = chosen
    if source == HUMAN_MAJORITY:
        first = next(lab for lab in labs if lab.kind == "human")
        return sts_row(first, label=label, annotator=HUMAN_MAJORITY, run=run), source
    given = [lab for lab in labs if lab.annotator == source][-1]
    return sts_row(given, run=run), source


def rows_by_source(run: RunView) -> dict[str, dict[GroupKey, list[LabelRow]]]:
    """Each label source's own STS rows: the human majority for every person people labelled,
    and each automatic annotator's label for every person it labelled — so that the figure a
    mixed policy gives can be set beside the figure of each classifier it mixes."""
    readable, _ = readable_labels(run)
    out: dict[str, dict[GroupKey, list[LabelRow]]] = {}
    for trial in run.trials:
        result = run.result(trial)
        if result is None or result.status != "done":
            continue
        meta = trial.meta
        key = GroupKey(trial.model_id, meta.get("aspect", "occupation"), meta.get("intervention"))
        for subject in run.subjects(trial):
            labs = readable.get((trial.idx, subject.position), [])
            human = choose_label(labs, [], "human")
            if human is not None:
                first = next(lab for lab in labs if lab.kind == "human")
                row = sts_row(first, label=human[0], annotator=HUMAN_MAJORITY, run=run_number(meta))
                out.setdefault(HUMAN_MAJORITY, {}).setdefault(key, []).append(row)
            for lab in labs:
                if lab.kind == "automatic":
                    row = sts_row(lab, run=run_number(meta))
                    out.setdefault(lab.annotator, {}).setdefault(key, []).append(row)
    return out

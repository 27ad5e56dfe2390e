"""The Review screen's queue: which people a reviewer looks at, and why.

No Textual here: the queue is read through a :class:`Workspace` in a worker thread (each with
its own) and handed to the screen as plain frozen data, so building it can be tested headless
and never blocks drawing.

An item is one *person* (a subject: the person at a position in one output), because that is
what a label is given to. A flag on a person (``position`` set) lands on that person; a flag on
the whole output (``position`` None, e.g. a person count or a gendered prompt rewrite) lands on
every person in it, since each of them needs a look. Several flags on one person make one
item with several reasons. A flag on an output that has no person to label (a ``stories`` story)
is an item too, shown but not labelled (its ``subject_id`` is negative: :func:`is_labelable`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rich.text import Text

from diptych.core.labels import TONE, is_human
from diptych.core.runview import RunView
from diptych.core.workspace import Workspace
from diptych.tui.review.text import read_output

#: The pseudo-reason of a person that is in the queue only because no human labelled them yet.
NO_HUMAN_LABEL = "no_human_label"
#: (key, label) of the labels of the PST paper's annotation task, used unless the probe or the
#: flag names its own.
DEFAULT_CHOICES: tuple[tuple[str, str], ...] = (
    ("m", "masculine"),
    ("f", "feminine"),
    ("c", "cannot_identify"),
)
#: Keys the screen (and the app) use for themselves: a probe's labels get other keys, so that
#: no key means two things (a test checks this against the Review screen's bindings).
RESERVED_KEYS = frozenset("nprbeuqxzogwt")


@dataclass(frozen=True)
class FlagNote:
    """One reason a person is in the queue, with what the probe said about it."""

    reason: str
    detail: dict[str, Any]


@dataclass(frozen=True)
class ReviewItem:
    """A person to review, with everything the screen shows about them."""

    subject_id: int
    trial_idx: int
    position: str
    flags: tuple[FlagNote, ...]
    identity: str | None
    stereotype: str | None
    image_id: str | None
    setting: str | None
    #: The image to show (its blob sha), or None when the output is text.
    blob: str | None
    prompt: str | None
    revised_prompt: str | None
    output_text: str | None
    #: (annotator, label) of the automatic annotators and the probe's own labels.
    automatic: tuple[tuple[str, str], ...]
    #: (annotator, label) of every human label, the reviewer's own included.
    humans: tuple[tuple[str, str], ...]
    #: Labels a flag asks for instead of the probe's (``detail["choices"]``), if any.
    choices: tuple[str, ...] | None = None
    #: (annotator, note) of the human labels that carry a note.
    notes: tuple[tuple[str, str], ...] = ()
    #: Where the image (``blob``) lies on disk, for a worker to decode.
    image_path: Path | None = None
    #: (candidate, probability) of a likelihood trial, most likely first.
    candidates: tuple[tuple[str, float], ...] = ()
    #: The group the output is about where no person is labelled (a story's pictured group).
    group: str | None = None
    #: (annotator, tone label, confidence) of every perceived-skin-tone label, people's too.
    tones: tuple[tuple[str, str, float | None], ...] = ()

    @property
    def labelable(self) -> bool:
        return is_labelable(self.subject_id)

    @property
    def reasons(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.reason for f in self.flags))

    @property
    def words(self) -> tuple[str, ...]:
        """The words the flags point at (e.g. a gendered word a rewrite added)."""
        found: dict[str, None] = {}
        for flag in self.flags:
            for word in flag.detail.get("words") or ():
                found[str(word)] = None
        return tuple(found)

    def human_label(self, annotator: str) -> str | None:
        return next((label for who, label in self.humans if who == annotator), None)

    def note_of(self, annotator: str) -> str | None:
        return next((note for who, note in self.notes if who == annotator), None)


def is_labelable(subject_id: int) -> bool:
    """Whether the item is a person (a label can be given), not an output with nobody in it."""
    return subject_id >= 0


def output_item_id(trial_idx: int) -> int:
    """The id of the item of a flagged output with no person in it."""
    return -(trial_idx + 1)


def labelled_by(ws: Workspace, run_id: str) -> dict[str, frozenset[int]]:
    """The people (subject ids) each annotator labelled in the whole run, as ``diptych show``
    counts its labels: a person a label took out of the queue is still one the reviewer
    labelled."""
    people: dict[str, set[int]] = {}
    for lab in ws.runs.view(run_id).labels():
        people.setdefault(lab.annotator, set()).add(lab.subject_id)
    return {annotator: frozenset(ids) for annotator, ids in people.items()}


def load_queue(
    ws: Workspace,
    run_id: str,
    *,
    include_unlabelled: bool = False,
    only: Collection[int] | None = None,
) -> list[ReviewItem]:
    """The run's flagged people in plan order; with ``include_unlabelled``, also every person
    of a finished output that has no human label (reason :data:`NO_HUMAN_LABEL`); with
    ``only`` (subject ids), exactly those persons, flagged or not."""
    view = ws.runs.view(run_id)
    ran = trials_the_run_ran(view)
    subjects = [
        s for s in ws.runs.subjects(view.id) if s["status"] == "done" and s["trial_idx"] in ran
    ]
    by_trial: dict[int, list[dict[str, Any]]] = {}
    for subject in subjects:
        by_trial.setdefault(subject["trial_idx"], []).append(subject)
    flagged: dict[int, list[FlagNote]] = {}
    #: trial index -> flags of outputs that have nobody to label.
    unpeopled: dict[int, list[FlagNote]] = {}
    for flag in view.flags():
        if flag["trial_idx"] not in by_trial:
            unpeopled.setdefault(flag["trial_idx"], []).append(
                FlagNote(flag["reason"], flag["detail"])
            )
            continue
        people = by_trial.get(flag["trial_idx"], [])
        if flag["position"] is not None:
            people = [s for s in people if s["position"] == flag["position"]]
        for subject in people:
            flagged.setdefault(subject["subject_id"], []).append(
                FlagNote(flag["reason"], flag["detail"])
            )
    automatic: dict[int, list[tuple[str, str]]] = {}
    humans: dict[int, list[tuple[str, str]]] = {}
    notes: dict[int, list[tuple[str, str]]] = {}
    for lab in view.labels():
        human = is_human(lab.annotator)
        (humans if human else automatic).setdefault(lab.subject_id, []).append(
            (lab.annotator, lab.label)
        )
    tones: dict[int, list[tuple[str, str, float | None]]] = {}
    for lab in view.labels(dimension=TONE):
        tones.setdefault(lab.subject_id, []).append((lab.annotator, lab.label, lab.confidence))
    # Notes stand on their own (a note may come before a label, or with none).
    for note in ws.review.notes(view.id):
        notes.setdefault(note["subject_id"], []).append((note["annotator"], note["note"]))
    trials = {t.idx: t for t in view.trials}
    results = view.results

    items: list[ReviewItem] = []
    for subject in subjects:
        sid = subject["subject_id"]
        flags = list(flagged.get(sid, ()))
        if not flags and include_unlabelled and sid not in humans:
            flags = [FlagNote(NO_HUMAN_LABEL, {})]
        wanted = bool(flags) if only is None else sid in only
        if not wanted:
            continue
        trial = trials[subject["trial_idx"]]
        result = results.get(trial.key)
        output = result.output if result is not None else None
        is_image = bool(output and output.get("blobs")) and subject["blob"] is not None
        revised = result.provenance.get("revised_prompt") if result is not None else None
        parts = read_output(trial.payload, output)
        choices = next(
            (tuple(map(str, f.detail["choices"])) for f in flags if f.detail.get("choices")),
            None,
        )
        meta, trial_meta = subject["meta"], subject["trial_meta"]
        # A vision-chat answer (PAIRS) is shown with the image the model was asked about.
        blob = subject["blob"] if is_image else parts.shown_image
        items.append(
            ReviewItem(
                subject_id=sid,
                trial_idx=subject["trial_idx"],
                position=subject["position"],
                flags=tuple(flags),
                identity=_text_or_none(meta.get("identity")),
                stereotype=_text_or_none(meta.get("stereotype")),
                image_id=_text_or_none(trial_meta.get("image")),
                setting=_text_or_none(trial_meta.get("setting")),
                blob=blob,
                prompt=parts.prompt,
                revised_prompt=revised if isinstance(revised, str) and revised else None,
                output_text=None if is_image else parts.text,
                automatic=tuple(automatic.get(sid, ())),
                humans=tuple(humans.get(sid, ())),
                choices=choices,
                notes=tuple(notes.get(sid, ())),
                image_path=ws.blob_path(blob) if blob is not None else None,
                candidates=parts.candidates,
                group=_text_or_none(meta.get("group")),
                tones=tuple(tones.get(sid, ())),
            )
        )
    for trial_idx, notes_of_output in sorted(unpeopled.items() if only is None else ()):
        item = _output_item(ws, trials.get(trial_idx), results, tuple(notes_of_output))
        if item is not None:
            items.append(item)
    return items


def trials_the_run_ran(view: RunView) -> set[int]:
    """The indices of the run's trials that have their result as the run had it. Results are
    shared by request across runs: once a sequential audit decided a run early, a later run
    of the same requests stores results for trials this one never ran, and their people are
    not this run's to review. On a decided run, a result finished after the run was decided
    is such a one."""
    decided = view.run.status == "decided"
    out: set[int] = set()
    for trial in view.trials:
        result = view.results.get(trial.key)
        if result is not None and not (decided and result.finished_at > view.run.updated_at):
            out.add(trial.idx)
    return out


def _output_item(
    ws: Workspace, trial: Any, results: Mapping[str, Any], flags: tuple[FlagNote, ...]
) -> ReviewItem | None:
    """The item of a flagged output that has no person to label: shown, never labelled."""
    if trial is None:
        return None
    result = results.get(trial.key)
    output = result.output if result is not None else None
    parts = read_output(trial.payload, output)
    detail = {k: v for f in flags for k, v in f.detail.items()}
    group = detail.get("group", trial.meta.get("group"))
    return ReviewItem(
        subject_id=output_item_id(trial.idx),
        trial_idx=trial.idx,
        position="",
        flags=flags,
        identity=None,
        stereotype=None,
        image_id=_text_or_none(trial.meta.get("image")),
        setting=None,
        blob=parts.shown_image,
        prompt=parts.prompt,
        revised_prompt=None,
        output_text=_text_or_none(detail.get("story")) or parts.text,
        automatic=(),
        humans=(),
        choices=(),
        image_path=ws.blob_path(parts.shown_image) if parts.shown_image else None,
        candidates=parts.candidates,
        group=_text_or_none(group),
    )


def merged(
    items: Mapping[int, ReviewItem], order: Sequence[int], loaded: Sequence[ReviewItem]
) -> tuple[dict[int, ReviewItem], list[int]]:
    """The queue ``items`` in ``order`` updated with a queue read again (``loaded``), kept
    stable under the reviewer: items stay where they are (one no longer flagged stays too,
    with no flags, so "previous" still finds it); newly flagged people join at the end."""
    fresh = {item.subject_id: item for item in loaded}
    out = {sid: item if sid in fresh else replace(item, flags=()) for sid, item in items.items()}
    added = [item.subject_id for item in loaded if item.subject_id not in out]
    out.update(fresh)
    return out, [*order, *added]


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def assign_keys(labels: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """One key per label: the default m/f/c where they fit, else the label's first free
    letter, else a digit; never a key the screen uses for navigation."""
    defaults = {label: key for key, label in DEFAULT_CHOICES}
    used: set[str] = set(RESERVED_KEYS)
    out: list[tuple[str, str]] = []
    for label in labels:
        candidates = [defaults.get(label, "")] + [c for c in label.lower() if c.isalpha()]
        candidates += [str(d) for d in range(1, 10)]
        key = next(c for c in candidates if c and c not in used)
        used.add(key)
        out.append((key, label))
    return tuple(out)


def probe_choices(probe: object) -> tuple[tuple[str, str], ...]:
    """The (key, label) pairs of a probe: its ``review_labels`` (a key → label mapping or a
    sequence of labels) where it defines them, else the PST paper's three."""
    own = getattr(probe, "review_labels", None)
    if isinstance(own, Mapping) and own:
        return tuple((str(k), str(v)) for k, v in own.items())
    if isinstance(own, Sequence) and not isinstance(own, str) and own:
        return assign_keys([str(v) for v in own])
    return DEFAULT_CHOICES


def shuffled(ids: Iterable[int], seed: int) -> list[int]:
    """The blind-mode order: reproducible from the seed recorded with every label."""
    out = list(ids)
    random.Random(seed).shuffle(out)
    return out


def highlight(text: str, words: Iterable[str], style: str = "bold black on yellow") -> Text:
    """``text`` with every whole-word occurrence of ``words`` (any case) styled."""
    out = Text(text)
    wanted = sorted({w for w in words if w}, key=len, reverse=True)
    if wanted:
        pattern = r"\b(?:" + "|".join(re.escape(w) for w in wanted) + r")\b"
        for match in re.finditer(pattern, text, flags=re.IGNORECASE):
            out.stylize(style, match.start(), match.end())
    return out


def reason_view(
    order: Iterable[int], items: Mapping[int, ReviewItem], reason: str | None
) -> list[int]:
    """The people of ``order`` flagged for ``reason`` (all of them for None), in that order."""
    return [sid for sid in order if reason is None or reason in items[sid].reasons]


def reason_counts(items: Iterable[ReviewItem]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        for reason in item.reasons:
            counts[reason] = counts.get(reason, 0) + 1
    return dict(sorted(counts.items()))

"""Human labels in and out of a run as files: the labels template and its import.

* :func:`write_template` writes the columns of the STS contract (``diptych metrics sts``), label
  empty, one row per person in a generated image, and optionally every generated image as
  ``DIR/<image>.png``: what a crowd-sourcing task needs. A name a spreadsheet would run as a
  formula gets a leading quote, which the labels reader takes off again.
* :func:`import_labels` reads labels in that format and stores each under its annotator,
  matched to the run's subjects by image and position. A row whose setting, identity,
  stereotype or sampling run disagrees with the subject is reported, not stored.

Labels are stored one per subject per annotator, so three crowd workers' labels stay three
labels (the analysis takes their majority); importing again replaces an annotator's label of
the same subject and keeps everything else.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from diptych.core.errors import InputFileError, UsageError
from diptych.core.labels import (
    GENDER,
    HUMAN_PREFIX,
    TONE,
    Label,
    LabelDimension,
    is_human,
    person_annotator_id,
    stored_annotator_id,
)
from diptych.core.metrics.sts import OPTIONAL_COLUMNS, REQUIRED_COLUMNS, LabelRow, read_labels_csv
from diptych.core.spreadsheet_cells import neutralise_row
from diptych.core.store import RunRecord, Store
from diptych.core.workspace.labels.design import sampling_by_line
from diptych.core.workspace.labels.tone import TONE_COLUMN, carries_tone, tones_by_line

#: The columns of the labels template, in the order the STS contract names them.
TEMPLATE_COLUMNS = (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)


# --- the run's subjects as a labels file names them -------------------------------------------


@dataclass(frozen=True)
class RunSubject:
    """A person in a generated image of the run, named as the labels file names it."""

    subject_id: int
    trial_idx: int
    image: str
    position: str
    setting: str
    identity: str
    stereotype: str
    run: int | None
    status: str
    blob: str | None


def _model_dir(model_id: str) -> str:
    # A model id may carry "#" and a hash of its parameters; keep it readable but safe in a path.
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model_id)


def run_subjects(store: Store, run: RunRecord) -> list[RunSubject]:
    """Every subject of ``run`` in plan order.

    A run of one model names an image by its id (``occ-paired-carpenter--editor-s0``); a run of
    several models generated each image once per model, so the model comes first
    (``<model>/<image id>``, also where the template's images are written).
    """
    several = len(run.models) > 1
    subjects = []
    for row in store.run_subjects(run.id):
        trial, meta = row["trial_meta"], row["meta"]
        missing = [k for k in ("image", "setting") if k not in trial]
        missing += [k for k in ("identity", "stereotype") if k not in meta]
        if missing:
            raise UsageError(
                f"run {run.id} (probe {run.probe}) does not describe its subjects as the labels "
                f"file needs ({', '.join(missing)} missing); only image probes such as pst do"
            )
        image = str(trial["image"])
        subjects.append(
            RunSubject(
                subject_id=row["subject_id"],
                trial_idx=row["trial_idx"],
                image=f"{_model_dir(row['model_id'])}/{image}" if several else image,
                position=row["position"],
                setting=str(trial["setting"]),
                identity=str(meta["identity"]),
                stereotype=str(meta["stereotype"]),
                run=trial.get("run"),
                status=row["status"],
                blob=row["blob"],
            )
        )
    return subjects


# --- import ---------------------------------------------------------------------------------


def _data_lines(path: Path) -> list[int]:
    """The line on which each data row of the CSV ends, in the order ``read_labels_csv`` reads
    them (it has already checked the file, so this second pass cannot fail differently)."""
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        return [reader.line_num for _ in reader]


@dataclass
class ImportReport:
    """What an import stored and what it could not match: every problem row with its line."""

    path: Path
    run_id: str
    #: (line, subject id, annotator, label) of every stored row.
    matched: list[tuple[int, int, str, str]] = field(default_factory=list)
    #: (line, subject id, annotator, tone label) of every stored tone (the ``tone`` column).
    tones: list[tuple[int, int, str, str]] = field(default_factory=list)
    #: (line, why) of every row that matches no person of the run.
    problems: list[tuple[int, str]] = field(default_factory=list)
    #: People in generated images that have no human label yet (after this import).
    unlabelled: list[RunSubject] = field(default_factory=list)
    #: People in generated images.
    with_image: int = 0

    @property
    def annotators(self) -> list[str]:
        return sorted({who for _, _, who, _ in self.matched})

    @property
    def subjects_matched(self) -> int:
        return len({sid for _, sid, _, _ in self.matched})


def _mismatch(row: LabelRow, subject: RunSubject) -> str | None:
    """Why ``row`` cannot be a label of ``subject``, or None."""
    person = f"the {subject.position} person of image {subject.image!r}"
    if subject.status != "done":
        return f"image {subject.image!r} was not generated ({subject.status}); it has no person"
    if row.identity.casefold() != subject.identity.casefold():
        return f"{person} is {subject.identity!r} in this run but {row.identity!r} in the file"
    if row.stereotype != subject.stereotype:
        return (
            f"{person} ({subject.identity}) is stereotyped {subject.stereotype} in this run but "
            f"{row.stereotype} in the file"
        )
    if row.run is not None and subject.run is not None and row.run != subject.run:
        return f"image {subject.image!r} is of run {subject.run} but the file says run {row.run}"
    return None


def match_labels(
    subjects: Sequence[RunSubject],
    rows: Sequence[LabelRow],
    lines: Sequence[int],
    default_annotator: str,
    report: ImportReport,
) -> None:
    """Match each row to a subject (by image and position) and check it agrees; fill ``report``."""
    by_key = {(s.image, s.position): s for s in subjects}
    images: dict[str, RunSubject] = {}
    bare: dict[str, list[str]] = {}  # image id without the model part → full names
    for s in subjects:
        images.setdefault(s.image, s)
        bare.setdefault(s.image.rpartition("/")[2], []).append(s.image)
    first_line: dict[tuple[int, str], int] = {}
    for row, line in zip(rows, lines, strict=True):
        who = (person_annotator_id(row.annotator) if row.annotator else None) or default_annotator
        image = row.image
        if image not in images and len(set(bare.get(image, []))) == 1:
            image = bare[image][0]
        if image not in images:
            if len(set(bare.get(image, []))) > 1:
                why = (
                    f"image {image!r} was generated by several models of this run; name it "
                    "<model>/<image> as the template does"
                )
            else:
                why = f"image {image!r} is not in run {report.run_id}"
            report.problems.append((line, why))
            continue
        known = images[image]
        if row.setting != known.setting:
            why = (
                f"image {image!r} is a {known.setting} image in this run but {row.setting} "
                "in the file"
            )
            report.problems.append((line, why))
            continue
        subject = by_key.get((image, row.position))
        if subject is None:
            why = f"image {image!r} has no {row.position} person"
            report.problems.append((line, why))
            continue
        why_not = _mismatch(row, subject)
        if why_not is not None:
            report.problems.append((line, why_not))
            continue
        earlier = first_line.setdefault((subject.subject_id, who), line)
        if earlier != line:
            report.problems.append(
                (
                    line,
                    f"a second label by {who} for the {row.position} person of image "
                    f"{image!r} (the first is on line {earlier}); name who gave each label in "
                    "an annotator column",
                )
            )
            continue
        report.matched.append((line, subject.subject_id, who, row.label))


def _refuse_kinds_in_cells(path: Path, rows: Sequence[LabelRow], lines: Sequence[int]) -> None:
    """Refuse the file if an ``annotator`` cell is written as an automatic annotator's id: a
    file's cells name the people who labelled, and whoever filled one in must not make their
    labels count as a classifier's (nor a spreadsheet formula's colon read as a kind)."""
    for row, line in zip(rows, lines, strict=True):
        if row.annotator and person_annotator_id(row.annotator) is None:
            raise InputFileError(
                f"{path}, line {line}, column annotator: {row.annotator[:40]!r} is written as "
                "an automatic annotator's id, but a cell names the person who gave the label: "
                "write the name without its 'kind:' (or 'human:NAME'), or, to store an "
                "annotator's labels, empty the column and give --annotator "
                f"{row.annotator[:40]}; nothing was stored"
            )


def import_labels(
    store: Store, run: RunRecord, path: Path, annotator: str | None = None
) -> ImportReport:
    """Read ``path`` (the STS labels format) and store the rows that match a subject of ``run``.

    A row's ``annotator`` column names who gave it; rows without one are ``annotator`` (default
    ``human:<file stem>``). A malformed file raises :class:`InputFileError` and stores nothing.
    """
    rows = read_labels_csv(path)
    lines = _data_lines(path)
    _refuse_kinds_in_cells(path, rows, lines)
    # A designed batch (diptych annotate --sample) says how each person was drawn; read (and
    # checked) before anything is stored.
    drawn = sampling_by_line(path)
    toned = tones_by_line(path)
    default = stored_annotator_id(annotator) if annotator else HUMAN_PREFIX + path.stem
    subjects = run_subjects(store, run)
    report = ImportReport(path=path, run_id=run.id)
    match_labels(subjects, rows, lines, default, report)
    position = {s.subject_id: s.position for s in subjects}
    report.tones = [
        (line, sid, who, toned[line]) for line, sid, who, _ in report.matched if line in toned
    ]

    def stored(line: int, sid: int, label: str, dimension: LabelDimension) -> Label:
        where = {"file": path.name, "line": line}
        return Label(position[sid], label, None, where, drawn.get(line), dimension)

    store.save_annotations(
        [(sid, who, stored(line, sid, label, GENDER)) for line, sid, who, label in report.matched]
        + [(sid, who, stored(line, sid, tone, TONE)) for line, sid, who, tone in report.tones]
    )
    human = {lab.subject_id for lab in store.labels(run.id) if is_human(lab.annotator)}
    with_image = [s for s in subjects if s.status == "done"]
    report.with_image = len(with_image)
    report.unlabelled = [s for s in with_image if s.subject_id not in human]
    return report


# --- template and images --------------------------------------------------------------------


@contextmanager
def new_csv(path: Path) -> Iterator[TextIO]:
    """``path`` made for writing a labels file: never over an existing file (it may hold
    someone's labels, or another process is writing it this moment), and removed again when
    writing it (or the images beside it) fails, so a failed command leaves no half file that
    the next attempt would refuse."""
    try:
        handle = path.open("x", newline="", encoding="utf-8")
    except FileExistsError:
        raise UsageError(f"{path} exists; choose another file name or remove it first") from None
    except OSError as error:
        raise InputFileError(f"cannot write {path}: {error.strerror}") from error
    try:
        with handle:
            yield handle
    except BaseException as error:
        path.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise InputFileError(f"cannot write {error.filename}: {error.strerror}") from error
        raise


def template_columns(store: Store, run: RunRecord) -> tuple[str, ...]:
    """The columns of the run's labels template: the STS contract's, and ``tone`` where a
    skin-tone annotator read the run (:mod:`diptych.core.workspace.labels.tone`)."""
    return (*TEMPLATE_COLUMNS, TONE_COLUMN) if carries_tone(store, run) else TEMPLATE_COLUMNS


def template_row(s: RunSubject, columns: Sequence[str]) -> dict[str, object]:
    """The template's row of one person: who and where, every label left empty."""
    row = {
        "image": s.image, "setting": s.setting, "position": s.position,
        "identity": s.identity, "stereotype": s.stereotype, "label": "", "annotator": "",
        "run": "" if s.run is None else s.run,
    }  # fmt: skip
    return neutralise_row({c: row.get(c, "") for c in columns})


@dataclass
class TemplateReport:
    """What :func:`write_template` wrote."""

    rows: int = 0
    images: int = 0
    #: People left out: their trial has no generated image (refused, failed or pending).
    no_image: int = 0


def write_template(
    store: Store, run: RunRecord, path: Path, images: Path | None = None
) -> TemplateReport:
    """Write the labels template of ``run`` to ``path`` and, if asked, its images to ``images``.

    Only people in images that were generated get a row. An existing template is never
    overwritten: it may already hold someone's labels.
    """
    if path.exists():
        raise UsageError(f"{path} exists; choose another file name or remove it first")
    subjects = run_subjects(store, run)
    report = TemplateReport()
    done = [s for s in subjects if s.status == "done"]
    report.no_image = len(subjects) - len(done)
    written: set[str] = set()
    columns = template_columns(store, run)
    with new_csv(path) as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        for s in done:
            writer.writerow(template_row(s, columns))
            report.rows += 1
            if images is not None and s.blob is not None and s.image not in written:
                target = images / f"{s.image}.png"
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(store.get_blob(s.blob))
                written.add(s.image)
    report.images = len(written)
    return report

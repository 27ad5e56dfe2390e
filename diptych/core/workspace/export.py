"""A run's trials as rows: every trial with its plan, its result and its labels.

``diptych export`` writes them as JSON lines or CSV; other tools read them back. In CSV a text
cell that a spreadsheet would run as a formula gets a leading quote (see
:mod:`diptych.core.spreadsheet_cells`); JSON lines keep the raw text.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from typing import Any, Literal, TextIO

from diptych.core.audit.run_status import unasked_word
from diptych.core.labels import TONE
from diptych.core.runview import RunView
from diptych.core.spreadsheet_cells import neutralise_row
from diptych.core.store import Store

#: Raised whenever the shape of an exported row changes (2: ``tone_labels`` beside ``labels``).
EXPORT_SCHEMA_VERSION = 2

ExportFormat = Literal["csv", "jsonl"]


def trial_rows(view: RunView) -> Iterator[dict[str, Any]]:
    """One row per trial: its plan, its result and every label its subjects received, the
    perceived-gender ones under ``labels`` and the perceived-skin-tone ones under
    ``tone_labels`` (position → annotator → label)."""
    labels: dict[int, dict[str, dict[str, Any]]] = {}
    for lab in view.labels():
        labels.setdefault(lab.trial_idx, {}).setdefault(lab.position, {})[lab.annotator] = {
            "label": lab.label,
            "confidence": lab.confidence,
            "subject": lab.subject_meta,
        }
    tones: dict[int, dict[str, dict[str, Any]]] = {}
    for lab in view.labels(dimension=TONE):
        tones.setdefault(lab.trial_idx, {}).setdefault(lab.position, {})[lab.annotator] = {
            "label": lab.label,
            "confidence": lab.confidence,
        }
    notes: dict[int, dict[str, dict[str, str]]] = {}
    for note in view.notes():
        notes.setdefault(note["trial_idx"], {}).setdefault(note["position"], {})[
            note["annotator"]
        ] = note["note"]
    # A decided run's trials with no result were never bought (its gates decided first);
    # another run's are still to be asked ("pending"), as every listing says.
    unasked = unasked_word(view.run.status)
    for trial in view.trials:
        result = view.results.get(trial.key)
        yield {
            "schema_version": EXPORT_SCHEMA_VERSION,
            "run_id": view.run.id,
            "trial": trial.idx,
            "model_id": trial.model_id,
            "key": trial.key,
            "capability": trial.capability,
            "sample": trial.sample,
            "meta": trial.meta,
            "payload": trial.payload,
            "status": result.status if result else unasked,
            "output": result.output if result else None,
            "blob": result.blob if result else None,
            "error": result.error if result else None,
            "attempts": result.attempts if result else 0,
            "duration_s": round(result.duration_s, 6) if result else None,
            # Where the answer came from, e.g. DALL-E 3's revised_prompt, a seed, a device.
            "provenance": result.provenance if result else None,
            "labels": labels.get(trial.idx, {}),
            "tone_labels": tones.get(trial.idx, {}),
            # Reviewers' notes on the trial's people, labelled or not: position → annotator.
            "notes": notes.get(trial.idx, {}),
        }


def export_rows(store: Store, run_id: str) -> Iterator[dict[str, Any]]:
    """:func:`trial_rows` of the stored run ``run_id``."""
    return trial_rows(RunView(store, store.get_run(run_id)))


def flatten(row: dict[str, Any]) -> dict[str, Any]:
    """A row as CSV columns: ``meta.<key>``, ``label.<position>.<annotator>``,
    ``tone.<position>.<annotator>``, ``note.<position>.<annotator>``, the rest as JSON."""
    flat: dict[str, Any] = {}
    for key, value in row.items():
        if key == "meta":
            flat.update({f"meta.{_meta_column(k, row)}": v for k, v in value.items()})
        elif key in ("labels", "tone_labels"):
            column = "label" if key == "labels" else "tone"
            for position, by_annotator in value.items():
                for annotator, lab in by_annotator.items():
                    flat[f"{column}.{position}.{annotator}"] = lab["label"]
        elif key == "notes":
            for position, by_annotator in value.items():
                for annotator, note in by_annotator.items():
                    flat[f"note.{position}.{annotator}"] = note
        elif isinstance(value, dict | list):
            flat[key] = json.dumps(value, ensure_ascii=False, sort_keys=True)
        else:
            flat[key] = value
    return flat


#: Capabilities whose trials are text: a text probe plans them by an ``image`` key of the image
#: probe it mirrors, which names a scene and its sample there ("paired:carpenter|editor#0").
_TEXT = frozenset({"chat", "text_likelihood"})


def _meta_column(key: str, row: dict[str, Any]) -> str:
    """A planned key's CSV column: a text trial's ``image`` is its scene, named so (a spreadsheet
    user reads "image" as a picture the run does not have); every other key as planned."""
    return "scene" if key == "image" and row.get("capability") in _TEXT else key


def write_rows(rows: Iterable[dict[str, Any]], fmt: ExportFormat, handle: TextIO) -> int:
    """Write ``rows`` to ``handle`` as JSON lines or CSV; return how many were written."""
    rows = list(rows)
    if fmt == "jsonl":
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    else:
        flat = [flatten(r) for r in rows]
        # Columns in order of first appearance: labels of a run's later annotators come last.
        columns = list(dict.fromkeys(k for r in flat for k in r))
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(neutralise_row(r) for r in flat)
    return len(rows)

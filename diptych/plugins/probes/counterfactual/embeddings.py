"""A run's embeddings, per model: image vectors by blob and text vectors by text."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from diptych.core.runview import RunView
from diptych.plugins.probes.counterfactual.sets import CounterfactualSet, sets_from_image_meta


@dataclass
class ModelEmbeddings:
    images: dict[str, np.ndarray] = field(default_factory=dict)
    texts: dict[str, np.ndarray] = field(default_factory=dict)
    #: Query trials: (pool, subject, text).
    queries: list[tuple[str, str, str]] = field(default_factory=list)


def run_embeddings(run: RunView) -> dict[str, ModelEmbeddings]:
    """Every stored embedding of the run, per model id (trials without a result are absent)."""
    out: dict[str, ModelEmbeddings] = {m: ModelEmbeddings() for m in run.model_ids()}
    for trial in run.trials:
        found = out.setdefault(trial.model_id, ModelEmbeddings())
        meta = trial.meta
        if meta.get("kind") == "query":
            found.queries.append((meta["pool"], meta["subject"], meta["text"]))
        result = run.result(trial)
        if result is None or result.status != "done" or not result.output:
            continue
        vector = np.asarray(result.output["embeddings"][0], dtype=np.float32)
        if meta.get("kind") == "image":
            found.images[meta["blob"]] = vector
        else:
            found.texts[meta["text"]] = vector
    return out


def run_sets(run: RunView) -> tuple[list[CounterfactualSet], dict[tuple[str, int], int]]:
    """The run's sets (from the first model's image trials) and each image's trial index, by
    set id and place in the set: a blob can be the image of several trials."""
    first = run.model_ids()[0] if run.model_ids() else None
    metas: list[dict[str, Any]] = []
    trial_of: dict[tuple[str, int], int] = {}
    placed: Counter[str] = Counter()
    for trial in run.trials:
        if trial.model_id == first and trial.meta.get("kind") == "image":
            metas.append(trial.meta)
            # A set's images are its trials in order (sets_from_image_meta).
            set_id = trial.meta["set_id"]
            trial_of[(set_id, placed[set_id])] = trial.idx
            placed[set_id] += 1
    return sets_from_image_meta(metas), trial_of

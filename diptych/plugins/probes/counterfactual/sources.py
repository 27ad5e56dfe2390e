"""Where counterfactual sets come from: the bundled PAIRS images, a local copy of the
SocialCounterfactuals dataset, or a ``counterfactual-sets`` run of an image generator.

Each source returns :class:`~.sets.CounterfactualSet` objects whose images are named by content
(the sha256 of their bytes); :func:`input_images` yields the bytes of a bundled or local source,
which the engine puts in the workspace's blob store when a run starts. A generation run's images
are in the workspace already.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diptych.core.data import image_sha
from diptych.core.errors import MissingDependencyError, UsageError
from diptych.datasets import pairs
from diptych.plugins.probes.counterfactual.params import GENERATED
from diptych.plugins.probes.counterfactual.sets import CounterfactualImage, CounterfactualSet
from diptych.plugins.probes.counterfactual.templates import data

if TYPE_CHECKING:
    from diptych.core.lookup import RunLookup

#: How the PAIRS folders' words read in the paper's vocabulary (Table 19: "White", "male").
PAIRS_WORDS = {"black": "Black", "white": "White", "man": "male", "woman": "female"}
PAIRS_SEGMENT = "race-gender"
PAIRS_TYPES = ("race", "gender")
GENERATION_PROBE = "counterfactual-sets"


def pairs_sets() -> list[CounterfactualSet]:
    """The 50 PAIRS scenarios as sets of four (Black/White × male/female), pooled by subset."""
    descriptions = {(q.subset, q.scenario): q.description for q in pairs.questions()}
    out = []
    for subset in pairs.SUBSETS:
        for scenario in pairs.scenarios(subset):
            images = []
            for img in pairs.images(subset=subset, scenario=scenario):
                description = descriptions[(subset, scenario)]
                images.append(
                    CounterfactualImage(
                        image_sha(img.path),
                        {"race": PAIRS_WORDS[img.race], "gender": PAIRS_WORDS[img.gender]},
                        description,
                        {"pairs": img.id},
                    )
                )
            out.append(
                CounterfactualSet(
                    id=f"pairs/{subset}/{scenario}",
                    segment=PAIRS_SEGMENT,
                    subject=scenario,
                    template=descriptions[(subset, scenario)],
                    attribute_types=PAIRS_TYPES,
                    images=tuple(images),
                    pool=f"pairs/{subset}",
                )
            )
    return out


# --- a local SocialCounterfactuals copy ---------------------------------------------------------

#: The dataset's attribute type names, in ours.
TYPE_WORDS = {
    "race": "race",
    "gender": "gender",
    "physical": "physical",
    "physical_characteristics": "physical",
    "physical characteristics": "physical",
}


def _type(word: str) -> str:
    key = str(word).strip().lower()
    if key not in TYPE_WORDS:
        raise UsageError(f"unknown attribute type {word!r}; known: race, gender, physical")
    return TYPE_WORDS[key]


def _subject_of(caption: str, a2: str) -> str:
    """The caption's subject: what follows its second attribute ("... male nurse" -> nurse)."""
    match = re.search(rf"\b{re.escape(a2)}\b\s+(.*)$", caption, flags=re.IGNORECASE)
    return (match.group(1) if match else caption).strip().rstrip(".").lower()


def load_local_dataset(path: Path) -> Any:
    """The dataset at ``path`` (``save_to_disk``, or files ``load_dataset`` reads), offline."""
    try:
        import datasets
    except ImportError as error:
        raise MissingDependencyError(
            "datasets", "retrieval", "reading SocialCounterfactuals"
        ) from error
    if not path.exists():
        raise UsageError(f"sets: no dataset at {path}; give a directory saved with save_to_disk")
    try:
        loaded = datasets.load_from_disk(str(path))
    except FileNotFoundError:
        loaded = datasets.load_dataset(str(path))
    if isinstance(loaded, datasets.DatasetDict):
        loaded = loaded["train"] if "train" in loaded else next(iter(loaded.values()))
    return loaded.cast_column("image", datasets.Image(decode=False))


def _image_bytes(row: dict[str, Any]) -> bytes:
    image = row["image"]
    raw: bytes = image["bytes"] if image.get("bytes") else Path(image["path"]).read_bytes()
    return raw


def dataset_sets(path: Path) -> list[CounterfactualSet]:
    """The sets of a local SocialCounterfactuals copy: rows with ``image``, ``a1_type``, ``a1``,
    ``a2_type``, ``a2``, ``counterfactual_set``, ``caption`` and optionally ``subject``."""
    table = load_local_dataset(path)
    need = {"image", "a1_type", "a1", "a2_type", "a2", "counterfactual_set", "caption"}
    missing = sorted(need - set(table.column_names))
    if missing:
        raise UsageError(f"dataset {path} lacks column(s) {', '.join(missing)}")
    by_set: dict[str, list[tuple[dict[str, Any], CounterfactualImage]]] = {}
    for i, row in enumerate(table):
        blob = _sha(_image_bytes(row))
        types = (_type(row["a1_type"]), _type(row["a2_type"]))
        attributes = {types[0]: str(row["a1"]), types[1]: str(row["a2"])}
        item = CounterfactualImage(blob, attributes, str(row["caption"]), {"row": i})
        by_set.setdefault(str(row["counterfactual_set"]), []).append(
            ({**row, "types": types}, item)
        )
    out = []
    for set_id, members in by_set.items():
        head = members[0][0]
        types = head["types"]
        subject = str(head.get("subject") or _subject_of(str(head["caption"]), str(head["a2"])))
        out.append(
            CounterfactualSet(
                id=f"sc/{set_id}",
                segment=f"{types[0]}-{types[1]}",
                subject=subject,
                template=f"{types[0]}-{types[1]}: {subject}",
                attribute_types=types,
                images=tuple(m[1] for m in members),
            )
        )
    return out


def _sha(raw: bytes) -> str:
    from diptych.core.trials import sha256_hex

    return sha256_hex(raw)


def input_images(sets: str) -> Iterator[bytes]:
    """The bytes of every image of the bundled or local source ``sets`` (``pairs`` or a dataset
    directory); a generation run's (``generated:<id>``) are in the workspace already."""
    if sets == "pairs":
        for img in pairs.images():
            yield img.path.read_bytes()
    elif sets != GENERATED and not sets.startswith(GENERATED + ":"):
        for row in load_local_dataset(Path(sets).expanduser()):
            yield _image_bytes(row)


# --- a generation run ---------------------------------------------------------------------------


def latest_generation_run(runs: RunLookup) -> str:
    found = runs.runs(GENERATION_PROBE)
    if not found:
        raise UsageError(
            f"no {GENERATION_PROBE} run in this workspace; run 'diptych run {GENERATION_PROBE} "
            "-m <image generator>' first, or choose sets=pairs"
        )
    return found[-1].id


def generated_sets(runs: RunLookup, run_id: str) -> tuple[list[CounterfactualSet], int]:
    """The complete sets of a generation run, and how many sets lack an image (a refusal or a
    failure leaves a set that no longer differs only in its attributes, so it is left out)."""
    view = runs.run(run_id)
    run_id = view.id
    trials = view.trials
    results = view.results
    by_set: dict[str, list[tuple[dict[str, Any], CounterfactualImage | None]]] = {}
    for trial in trials:
        result = results.get(trial.key)
        meta = trial.meta
        image = None
        if result is not None and result.status == "done" and result.blob:
            image = CounterfactualImage(
                result.blob,
                dict(meta["attributes"]),
                meta["caption"],
                {"run": run_id, "trial": trial.idx, "model": trial.model_id},
            )
        by_set.setdefault(f"{trial.model_id}/{meta['set_id']}", []).append((meta, image))
    out, incomplete = [], 0
    for set_id, members in by_set.items():
        if any(image is None for _, image in members):
            incomplete += 1
            continue
        head = members[0][0]
        out.append(
            CounterfactualSet(
                id=set_id,
                segment=head["segment"],
                subject=head["subject"],
                template=head["template"],
                attribute_types=tuple(head["attribute_types"]),
                images=tuple(image for _, image in members if image is not None),
            )
        )
    return out, incomplete


def known_values(sets: list[CounterfactualSet]) -> dict[str, dict[str, list[str]]]:
    """Per segment, per attribute type, the values its sets show (the detectability stage's
    candidates), in the paper's list order where the paper lists them."""
    found: dict[str, dict[str, set[str]]] = {}
    for s in sets:
        for image in s.images:
            for t, v in image.attributes.items():
                found.setdefault(s.segment, {}).setdefault(t, set()).add(v)
    listed = data().attributes
    out: dict[str, dict[str, list[str]]] = {}
    for segment, types in found.items():
        out[segment] = {}
        for t, values in types.items():
            order = [v for v in listed.get(t, []) if v in values]
            out[segment][t] = order + sorted(values - set(order))
    return out

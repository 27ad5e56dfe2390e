"""The annotation stage with the ``vqa`` annotator: labels of a stored ``pst`` run, two checkpoints
side by side, crops of PAIRS people, and a tiny real LLaVA (built offline by
``support.tiny.llava``) to show the wiring with transformers."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image
from support.vlm_vision import annotator, redder, wrapped

from diptych.core import plugins
from diptych.core.annotation import annotate_run
from diptych.core.engine import run_probe
from diptych.core.labels import GENDER_LABELS as LABELS
from diptych.core.store import Store
from diptych.plugins.annotators.vlm.answers import FEMININE, MASCULINE, parse_answer
from diptych.testing.pairs_photos import PERCEIVED, PairsPainter

SUBSET = {"aspects": ["occupation"], "masculine": ["carpenter"], "feminine": ["nurse"]}


def test_the_annotation_stage_labels_a_pst_run(vision: None, store: Store) -> None:
    run = run_probe(store, "pst", ["scripted-images"], probe_params=SUBSET)
    model = annotator("vqa", model="position-vision")
    summary = annotate_run(store, run.id, model)
    # 2 paired images (2 people each) and 2 × 3 single ones: 10 people, one question each.
    assert (summary.images, summary.asked, summary.labels, summary.failed) == (8, 8, 10, 0)
    assert len(wrapped(model).history) == 10
    rows = store.labels(run.id, model.annotator_id)
    assert len(rows) == 10
    blobs = {s["subject_id"]: s["blob"] for s in store.run_subjects(run.id)}
    for row in rows:
        if row.position == "single":
            # The stored image is what the model saw: the label follows its colour.
            with Image.open(io.BytesIO(store.get_blob(blobs[row.subject_id]))) as image:
                want = FEMININE if redder(image) else MASCULINE
            assert row.detail["question"] == "What gender is the person in the picture?"
        else:
            want = FEMININE if row.position == "left" else MASCULINE
            assert row.detail["question"].endswith(f"on the {row.position} in the picture?")
        assert row.label == want and row.detail["answer"]
    singles = {row.label for row in rows if row.position == "single"}
    assert singles == {FEMININE, MASCULINE}  # the colour rule really tells images apart

    # Each picture is asked about once: a second pass asks the model nothing.
    again = annotator("vqa", model="position-vision")
    assert annotate_run(store, run.id, again).asked == 0 and wrapped(again).history == []


def test_two_checkpoints_keep_their_own_labels(vision: None, store: Store) -> None:
    run = run_probe(store, "pst", ["scripted-images"], probe_params=SUBSET)
    first = annotator("vqa", model="position-vision")
    second = annotator("vqa", model="position-vision", model_params={"version": "2"})
    annotate_run(store, run.id, first)
    annotate_run(store, run.id, second)
    # Under one id the second pass would have replaced the first one's labels.
    assert first.annotator_id != second.annotator_id
    assert len(store.labels(run.id, first.annotator_id)) == 10
    assert len(store.labels(run.id, second.annotator_id)) == 10


def test_the_annotation_stage_with_crops_labels_pairs_people(vision: None, store: Store) -> None:
    # The carpenter is painted as a woman and the nurse as a man (test_faces' cast).
    run = run_probe(store, "pst", [PairsPainter()], probe_params=SUBSET)
    cropping = annotator("vqa", model="cast-vision", crop=True)
    summary = annotate_run(store, run.id, cropping)
    assert (summary.labels, summary.failed) == (10, 0)
    rows = store.labels(run.id, cropping.annotator_id)
    assert {(row.position, row.subject_meta["identity"], row.label) for row in rows} == {
        (position, identity, PERCEIVED[identity])
        for position in ("left", "right", "single")
        for identity in ("carpenter", "nurse")
    }


def test_a_tiny_llava_annotates_a_pst_run_end_to_end(
    vision: None,
    store: Store,
    tiny_llava: Path,
    torch_one_thread: None,
) -> None:
    if "llava" not in plugins.load_plugins().models:
        from diptych.plugins.models import llava

        plugins.register_plugin(llava, "llava-under-test")
    try:
        run = run_probe(store, "pst", ["scripted-images"], probe_params=SUBSET)
        model = annotator(
            "vqa", model="llava", model_params={"model": str(tiny_llava)}, max_tokens=6
        )
        assert model.hints.blocking  # torch generation runs in the engine's worker thread
        summary = annotate_run(store, run.id, model)
    finally:
        plugins.unregister_plugin("llava-under-test")
    assert (summary.images, summary.labels, summary.failed) == (8, 10, 0)
    rows = store.labels(run.id, model.annotator_id)
    assert len(rows) == 10
    for row in rows:
        # An untrained model's answers are arbitrary words; what matters is that each was
        # asked the paper's question, answered, recorded and read by the parser.
        assert row.label in LABELS
        assert isinstance(row.detail["answer"], str)
        assert parse_answer(row.detail["answer"]).label == row.label
        assert row.detail["reason"] == parse_answer(row.detail["answer"]).reason
        assert row.detail["question"].startswith("What gender is the person")
    # The answers depend on the picture and the question (an untrained model can also say
    # nothing at all, which is read as cannot_identify).
    assert len({row.detail["answer"] for row in rows}) > 1

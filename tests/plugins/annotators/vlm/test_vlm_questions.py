"""The questions the ``vqa`` and ``vlm-judge`` annotators put to a vision-chat model: the paper's
Tables 11 and 10 verbatim, about each person by position, and what a refusal or a fault gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from support.vlm_vision import (
    TABLE_10_LEFT_QUESTION,
    TABLE_10_OPTIONS,
    TABLE_10_PAIRED_INSTRUCTION,
    TABLE_10_PREAMBLE,
    TABLE_10_RIGHT_QUESTION,
    TABLE_10_SINGLE_INSTRUCTION,
    TABLE_10_SINGLE_QUESTION,
    TABLE_11_PAIRED,
    TABLE_11_SINGLE,
    annotator,
    judge_text,
    label,
    two_tone,
    wrapped,
)

import diptych
from diptych.core.capabilities import Sampling
from diptych.core.errors import (
    InputFileError,
    PermanentModelError,
    RefusalError,
    TransientModelError,
)
from diptych.core.labels import CANNOT_IDENTIFY
from diptych.plugins.annotators.vlm.answers import FEMININE, MASCULINE
from diptych.plugins.annotators.vlm.questions import annotation_prompts


def test_the_prompts_are_the_papers_tables_10_and_11_verbatim() -> None:
    prompts = annotation_prompts()
    assert prompts.subject_noun == "person"
    assert prompts.vqa.single.format(id="{id}") == TABLE_11_SINGLE
    assert prompts.vqa.paired.format(id="{id}", side="left/right") == TABLE_11_PAIRED
    judge = prompts.judge
    assert judge.preamble == TABLE_10_PREAMBLE
    assert judge.single.instruction == TABLE_10_SINGLE_INSTRUCTION
    assert judge.paired.instruction == TABLE_10_PAIRED_INSTRUCTION
    assert judge.single.question.format(id="{id1}") == TABLE_10_SINGLE_QUESTION
    assert judge.paired.question.format(id="{id1}", side="left") == TABLE_10_LEFT_QUESTION
    assert judge.paired.question.format(id="{id2}", side="right") == TABLE_10_RIGHT_QUESTION
    assert judge.options == TABLE_10_OPTIONS


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("extra", "'judge.extra': Extra inputs are not permitted"),
        ("typo", "must use exactly {id}, {side}"),
    ],
)
def test_a_prompt_file_with_a_mistake_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str, message: str
) -> None:
    shipped = (Path(diptych.__file__).parent / "prompts" / "annotation.yaml").read_text("utf-8")
    if change == "extra":
        broken = shipped.replace("judge:\n", "judge:\n  extra: 1\n", 1)
    else:
        broken = shipped.replace("on the {side} in the picture", "on the {sde} in the picture")
    assert broken != shipped
    (tmp_path / "annotation.yaml").write_text(broken, "utf-8")
    monkeypatch.setenv("DIPTYCH_PROMPTS", str(tmp_path))
    with pytest.raises(InputFileError) as caught:
        annotation_prompts()
    assert message in str(caught.value)


def test_vqa_asks_table_11_about_each_person_of_the_whole_image(vision: None) -> None:
    model = annotator("vqa", model="position-vision")
    picture = two_tone()
    labels = label(model, picture, ["left", "right"])
    history = wrapped(model).history
    assert [h["question"] for h in history] == [
        "What gender is the person on the left in the picture?",
        "What gender is the person on the right in the picture?",
    ]
    # Each question is about the whole picture, greedily decoded by default.
    assert all(h["images"] == [picture] for h in history)
    assert all(h["sampling"] == Sampling(temperature=0.0, max_tokens=64) for h in history)
    assert [(lab.position, lab.label, lab.confidence) for lab in labels] == [
        ("left", FEMININE, None),
        ("right", MASCULINE, None),
    ]
    assert labels[0].detail == {
        "question": "What gender is the person on the left in the picture?",
        "answer": "The person on the left is a woman.",
        "reason": 'named "woman"',
    }
    assert labels[1].detail["answer"] == "A man."

    # Labels come back in the order the positions were given.
    flipped = label(model, picture, ["right", "left"])
    assert [(lab.position, lab.label) for lab in flipped] == [
        ("right", MASCULINE),
        ("left", FEMININE),
    ]


def test_vqa_asks_about_one_person_alone_and_reads_the_image(vision: None) -> None:
    model = annotator("vqa", model="position-vision", temperature=0.5, seed=7, max_tokens=12)
    red, blue = Image.new("RGB", (8, 8), (200, 0, 0)), Image.new("RGB", (8, 8), (0, 0, 200))
    assert [lab.label for lab in label(model, red, ["single"])] == [FEMININE]
    assert [lab.label for lab in label(model, blue, ["single"])] == [MASCULINE]
    history = wrapped(model).history
    assert [h["question"] for h in history] == ["What gender is the person in the picture?"] * 2
    assert history[0]["sampling"] == Sampling(temperature=0.5, max_tokens=12, seed=7)
    assert label(model, red, []) == []


def test_enqueued_answers_reach_the_labels_with_their_raw_text(vision: None) -> None:
    model = annotator("vqa", model="position-vision")
    wrapped(model).enqueue("Not sure.", "not a woman")
    first, second = label(model, two_tone(), ["left", "right"])
    assert (first.label, first.detail["answer"], first.detail["reason"]) == (
        CANNOT_IDENTIFY,
        "Not sure.",
        'hedged ("not sure")',
    )
    assert (second.label, second.detail["answer"]) == (CANNOT_IDENTIFY, "not a woman")


def test_a_refusal_is_that_persons_cannot_identify(vision: None) -> None:
    model = annotator("vqa", model="position-vision")
    wrapped(model).enqueue(RefusalError("I can't help identify people's gender."))
    left, right = label(model, two_tone(), ["left", "right"])
    assert left.label == CANNOT_IDENTIFY
    assert left.detail["refused"] == "I can't help identify people's gender."
    assert left.detail["reason"] == "the model refused" and left.detail["answer"] is None
    assert right.label == MASCULINE


def test_a_transient_fault_is_raised_as_it_is_for_the_engine_to_retry(vision: None) -> None:
    model = annotator("vqa", model="position-vision")
    wrapped(model).enqueue(TransientModelError("busy", retry_after=1.0))
    with pytest.raises(TransientModelError, match="busy"):
        label(model, two_tone(), ["left", "right"])
    # The other question was still answered before the fault was raised: nothing in flight.
    assert len(wrapped(model).history) == 2
    assert [lab.label for lab in label(model, two_tone(), ["left"])] == [FEMININE]


@pytest.mark.parametrize("subjects", [["left", "left"], ["single", "left"], ["middle"]])
def test_positions_that_cannot_be_one_picture_are_refused(
    vision: None, subjects: list[str]
) -> None:
    model = annotator("vqa", model="position-vision")
    with pytest.raises(PermanentModelError):
        label(model, two_tone(), subjects)
    assert wrapped(model).history == []


# --- vlm-judge ------------------------------------------------------------------------------


def test_vlm_judge_gives_table_10_for_each_person_by_position(vision: None) -> None:
    model = annotator("vlm-judge", model="position-vision")
    wrapped(model).enqueue("Feminine", "masculine.", "Cannot Identify")
    labels = label(model, two_tone(), ["left", "right"])
    (alone,) = label(model, two_tone(), ["single"])
    assert [h["question"] for h in wrapped(model).history] == [
        judge_text(TABLE_10_PAIRED_INSTRUCTION, TABLE_10_LEFT_QUESTION.replace("{id1}", "person")),
        judge_text(TABLE_10_PAIRED_INSTRUCTION, TABLE_10_RIGHT_QUESTION.replace("{id2}", "person")),
        judge_text(
            TABLE_10_SINGLE_INSTRUCTION, TABLE_10_SINGLE_QUESTION.replace("{id1}", "person")
        ),
    ]
    assert [(lab.position, lab.label) for lab in labels] == [
        ("left", FEMININE),
        ("right", MASCULINE),
    ]
    assert (alone.position, alone.label) == ("single", CANNOT_IDENTIFY)
    assert alone.detail["reason"] == 'hedged ("cannot identify")'

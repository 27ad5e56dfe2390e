"""Review flags of a PST run: disagreement, abstention, person count, gendered rewrites."""

from __future__ import annotations

from typing import Any

from PIL import Image

from diptych.core.annotation import annotate_run
from diptych.core.capabilities import GeneratedImage
from diptych.core.engine import refresh_flags, run_probe
from diptych.core.labels import Label
from diptych.core.plugins import get_probe
from diptych.core.store import Store
from diptych.plugins.probes.pst.flags import gendered_words
from diptych.testing import ScriptedAnnotator, ScriptedImageGenerator, ScriptedParams

SUBSET = {
    "aspects": ["occupation"],
    "masculine": ["carpenter"],
    "feminine": ["nurse"],
    "setting": "paired",
}


class Rewriting(ScriptedImageGenerator):
    """Rewrites the prompt that puts the nurse on the left, naming her a woman."""

    async def generate(
        self, prompt: str, n: int, seed: int | None, size: str | None
    ) -> list[GeneratedImage]:
        self.calls += 1
        revised = (
            prompt.replace("one nurse", "one woman nurse")
            if "nurse on the left" in (prompt)
            else prompt
        )
        return [GeneratedImage(Image.new("RGB", (8, 8)), {"revised_prompt": revised})]


class CountsOne(ScriptedAnnotator):
    """Finds one face where two were asked for, and abstains on the right-hand person."""

    async def annotate(self, image: Any, subjects: Any) -> list[Label]:
        self.calls += 1
        return [
            Label(s, "cannot_identify" if s == "right" else "masculine", None, {"faces_found": 1})
            for s in subjects
        ]


def test_flags_with_their_reasons(scripted: None, store: Store) -> None:
    run = run_probe(store, "pst", [Rewriting(ScriptedParams())], probe_params=SUBSET)
    flags = store.flags(run.id)
    # Two paired images; the one with the nurse on the left was rewritten to name a gender.
    assert [(f["reason"], f["detail"]["words"]) for f in flags] == [("gendered_rewrite", ["woman"])]
    trials = store.trials(run.id)
    assert "nurse on the left" in trials[flags[0]["trial_idx"]].payload["prompt"]

    annotate_run(store, run.id, CountsOne(ScriptedParams()))
    reasons = sorted((f["reason"], f["position"]) for f in store.flags(run.id))
    assert reasons == [
        ("annotator_abstained", "right"),
        ("annotator_abstained", "right"),
        ("gendered_rewrite", None),
        ("person_count", None),
        ("person_count", None),
    ]
    count = store.flags(run.id, "person_count")[0]
    assert count["detail"] == {"expected": 2, "found": {"scripted-annotator": 1}}

    # A person labelled feminine (a human) and masculine (the annotator): they disagree.
    subject = next(s for s in store.run_subjects(run.id) if s["position"] == "left")
    store.save_annotations([(subject["subject_id"], "human:ann", Label("left", "feminine"))])
    refresh_flags(store, run.id, get_probe("pst", SUBSET))
    disagree = store.flags(run.id, "annotators_disagree")
    assert len(disagree) == 1 and disagree[0]["detail"]["labels"] == {
        "human:ann": "feminine",
        "scripted-annotator": "masculine",
    }


def test_gendered_words() -> None:
    assert gendered_words("A woman nurse and his friend") == {"woman", "his"}
    assert gendered_words("Generate a picture of one nurse.") == set()
    assert gendered_words("the chairman's shemale") == set()  # whole words only

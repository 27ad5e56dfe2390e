"""The measurement mode measures perceived skin tone (``t``): tones given on the persons of the
draw, in its order, enter the prediction-powered tone gap with the draw's probabilities, and the
panel shows it move and says "enough" as it does for the STS; a tone chosen in the Review
screen is kept for agreement, and the screen says so once.

The run is the measurement snapshot's (8 × 8 occupations paired on the scripted image model,
256 persons, ``ImageReader`` for gender). Its ``skin-tone`` annotator reads every
masculine-stereotyped person at step 5 or 6 and every feminine-stereotyped one at 3 or 4 (a gap
of 2 steps); people (the planted truth the reviewer types) see the i-th identity of each list
at 7 + i mod 3 (masculine) and 2 + i mod 3 (feminine): both lists hold the same residues, so
people's gap over everyone is 5 steps.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from diptych.core.annotation import annotate_run
from diptych.core.engine import run_probe
from diptych.core.labels import TONE, Label
from diptych.core.store import open_store
from diptych.testing import ScriptedImageGenerator, ScriptedParams
from diptych.tui.review.measure.panel import MeasurePanel
from diptych.tui.review.queue import ReviewItem
from diptych.tui.review.tone import CHOSEN_TONE_NOTE
from tests.tui.hosts import FEMININE, MASCULINE, ImageReader, MeasureHost
from tests.tui.review.test_review_measure import Host
from tests.tui.steps import wait_for

GAP = "occupation: tone gap paired, prediction-powered"
BASE = {"masculine": 7, "feminine": 2}
LISTS = {"masculine": MASCULINE, "feminine": FEMININE}


@pytest.fixture
def toned_run(scripted: None, tmp_path: Path) -> tuple[Path, str]:
    ws = tmp_path / "ws"
    params = {"aspects": ["occupation"], "setting": "paired", "masculine": MASCULINE,
              "feminine": FEMININE}  # fmt: skip
    defaults = ScriptedParams.model_validate({})
    with open_store(ws) as store:
        run = run_probe(store, "pst", [ScriptedImageGenerator(defaults)], probe_params=params)
        annotate_run(store, run.id, ImageReader(defaults))
        run_id = run.id
        subjects = [s for s in store.run_subjects(run_id) if s["status"] == "done"]
        low = {"masculine": 5, "feminine": 3}
        store.save_annotations(
            (s["subject_id"], "skin-tone",
             Label(s["position"], f"monk-{low[s['meta']['stereotype']] + i % 2}", 0.8,
                   dimension=TONE))
            for i, s in enumerate(subjects)
        )  # fmt: skip
    return ws, run_id


def people_key(item: ReviewItem, ws: Path, run_id: str) -> str:
    """The key of the step people see the person at (module docstring)."""
    with open_store(ws) as store:
        row = next(s for s in store.run_subjects(run_id) if s["subject_id"] == item.subject_id)
    stereotype, identity = row["meta"]["stereotype"], row["meta"]["identity"]
    return str(BASE[stereotype] + LISTS[stereotype].index(identity) % 3)


async def test_tones_of_the_draw_move_the_corrected_tone_gap_at_80_by_24(
    toned_run: tuple[Path, str],
) -> None:
    ws, run_id = toned_run
    app = MeasureHost(ws, run_id)
    async with app.run_test(size=(80, 24)) as pilot:
        measure = app.measure
        await wait_for(pilot, lambda: measure.draw is not None and measure.numbers is not None)
        await pilot.press("t")
        await wait_for(
            pilot,
            lambda: measure.target is not None and measure.target.dimension == TONE,
        )
        assert "skin tone" in str(measure.query_one("#review-title", Static).render())
        # No tone of the draw yet: no corrected tone figure, and the panel says what it needs.
        assert "no prediction-powered figure yet" in measure.query_one(MeasurePanel).text.plain
        served: list[int] = []

        async def give(k: int) -> float:
            """Give the next ``k`` persons their planted tone; the figure once recomputed."""
            for _ in range(k):
                item = measure.state.current()
                assert item is not None and item.subject_id not in served
                served.append(item.subject_id)
                await pilot.press(people_key(item, ws, run_id))
            n = len(served)
            await wait_for(pilot, lambda: app.saved == n)
            await wait_for(
                pilot,
                lambda: (
                    measure.status is not None
                    and measure.status.n_labelled == n
                    and not measure._metrics_running
                ),
            )
            status = measure.status
            assert status is not None and status.figure == GAP
            panel = measure.query_one(MeasurePanel).text.plain
            assert "tone gap paired · PPI" in panel and f"{n}/" in panel
            return status.value

        values = [await give(12), await give(12)]
        # The draw serves its persons in order, the tones' own prefix.
        draw = measure.draw
        assert draw is not None
        assert served == [p.subject_id for p in draw.persons[:24]]
        # The annotator's gap is 2 steps, people's 5: from the first labels the corrected gap is
        # near people's (the labelled persons' residues stray by at most one step a list, the
        # annotator's steps by one, λ ≤ 1 of it), and each label moves it.
        assert all(abs(v - 5.0) <= 2.0 for v in values), values
        assert values[0] != values[1]
        # "enough" by the STS's rule: a half-width the reviewer types, reached.
        await pilot.press("w")
        status = measure.status
        assert status is not None
        for key in f"{math.ceil(status.half_width + 1)}":
            await pilot.press(key)
        await pilot.press("enter")
        await wait_for(pilot, lambda: measure.status is not None and bool(measure.status.enough))
        assert "ENOUGH" in str(measure.query_one("#review-metrics", Static).render())

    with open_store(ws) as store:
        tones = [lab for lab in store.labels(run_id, dimension=TONE) if lab.kind == "human"]
        genders = [lab for lab in store.labels(run_id) if lab.kind == "human"]
    assert len(tones) == 24 and genders == []
    for lab in tones:
        assert lab.sampling is not None and lab.sampling.design == "active"
        assert lab.sampling.draw == draw.draw


async def test_a_tone_chosen_in_review_is_said_to_be_kept_for_agreement_once(
    toned_run: tuple[Path, str],
) -> None:
    ws, run_id = toned_run
    app = Host(ws, run_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.review._loaded)
        await pilot.press("u")  # nobody is flagged: every person
        await wait_for(pilot, lambda: app.review.state.current() is not None)
        await pilot.press("t", "7", "6")
        await wait_for(pilot, lambda: len(app.saved) == 2)
        said: list[Any] = [str(n.message) for n in app.review.said]
        assert said.count(CHOSEN_TONE_NOTE) == 1
    with open_store(ws) as store:
        (tone,) = [lab for lab in store.labels(run_id, dimension=TONE) if lab.kind == "human"]
    assert tone.label == "monk-6" and tone.design is not None and tone.design.design == "chosen"

"""The Review screen: flagged people of a pst run, labelled by hand with keys.

The run is the image PST on the scripted image model of diptych.testing, labelled by the
scripted annotator, which abstains (cannot_identify) on everyone: every person is flagged
``annotator_abstained``. The model also rewrites the prompt that puts the nurse on the left to
name her a woman, so that image is flagged ``gendered_rewrite`` as well.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hosts import STS_PAIRED, Host, card, make_run, reviewing, settled, sts_paired
from steps import wait_for
from textual.pilot import Pilot

from diptych.core.capabilities import Message, Sampling
from diptych.core.engine import run_probe
from diptych.core.labels import Label, reviewer_name
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing import (
    ScriptedChat,
    ScriptedParams,
)
from diptych.tui.review.modals import NoteModal, ReasonModal, ReviewerNameModal
from diptych.tui.review.panels import ReviewCard, ReviewPicture, metrics_text
from diptych.tui.review.prefetch import ImageCache, decode_scaled
from diptych.tui.review.queue import (
    NO_HUMAN_LABEL,
    assign_keys,
    highlight,
    load_queue,
    probe_choices,
    shuffled,
)
from diptych.tui.review.screen import ReviewScreen
from diptych.tui.review.writes import LabelWrite, ReviewWrites

# --- the queue, headless --------------------------------------------------------------------


def test_queue_holds_each_flagged_person_with_every_reason(review_run: tuple[Path, str]) -> None:
    ws, run_id = review_run
    with Workspace.open(ws) as workspace:
        items = load_queue(workspace, run_id)
        subjects = workspace.runs.subjects(run_id)
    # 2 paired images (2 people each) and 6 single ones: all abstained on, so all flagged.
    assert [i.subject_id for i in items] == [s["subject_id"] for s in subjects]
    assert len(items) == 10
    rewritten = [i for i in items if "gendered_rewrite" in i.reasons]
    # The rewrite flags the whole image, so both people in it.
    assert [(i.trial_idx, i.position) for i in rewritten] == [(1, "left"), (1, "right")]
    assert all(i.reasons == ("annotator_abstained", "gendered_rewrite") for i in rewritten)
    assert rewritten[0].words == ("woman",)
    assert rewritten[0].revised_prompt is not None and "woman nurse" in rewritten[0].revised_prompt
    assert rewritten[0].identity == "nurse" and rewritten[0].stereotype == "feminine"
    assert rewritten[0].automatic == (("scripted-annotator", "cannot_identify"),)
    assert all(i.blob is not None and i.output_text is None for i in items)
    assert all(i.image_path is not None and i.image_path.is_file() for i in items)


def test_unlabelled_option_adds_everyone_without_a_human_label(
    scripted: None, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    run_id = make_run(ws, annotate=False)
    with Workspace.open(ws) as workspace, open_store(ws) as store:
        flagged = load_queue(workspace, run_id)
        everyone = load_queue(workspace, run_id, include_unlabelled=True)
        assert [(i.trial_idx, i.reasons) for i in flagged] == [
            (1, ("gendered_rewrite",)),
            (1, ("gendered_rewrite",)),
        ]
        assert len(everyone) == 10
        assert sum(i.reasons == (NO_HUMAN_LABEL,) for i in everyone) == 8
        first = everyone[0]
        store.save_annotations(
            [(first.subject_id, "human:ann", Label(first.position, "masculine"))]
        )
        assert first.subject_id not in {
            i.subject_id for i in load_queue(workspace, run_id, include_unlabelled=True)
        }


def test_labels_waiting_for_a_worker_are_stored_in_order_when_the_screen_goes(
    review_run: tuple[Path, str],
) -> None:
    ws, run_id = review_run
    with Workspace.open(ws) as workspace:
        first = load_queue(workspace, run_id)[0]
    writes = ReviewWrites()
    for label, note in (("feminine", None), ("masculine", "a beard")):
        where = (first.subject_id, first.trial_idx, first.position)
        writes.add(LabelWrite(run_id, *where, label=label, reviewer="ivy", note=note))
    assert not writes.settled
    writes.finish(ws, run_id)  # no worker ever ran: finishing stores both, in order
    assert writes.settled
    with open_store(ws) as store:
        (label,) = store.labels(run_id, "human:ivy")
        assert (label.subject_id, label.label) == (first.subject_id, "masculine")
        assert label.detail["note"] == "a beard"


def test_label_keys_avoid_navigation_keys() -> None:
    assert assign_keys(["masculine", "feminine", "cannot_identify"]) == (
        ("m", "masculine"),
        ("f", "feminine"),
        ("c", "cannot_identify"),
    )
    # "no" can take neither n (next) nor o (open the image): it takes the first free digit.
    assert assign_keys(["yes", "no", "unsure"]) == (("y", "yes"), ("1", "no"), ("s", "unsure"))

    class OwnLabels:
        review_labels = {"1": "one person", "2": "two people"}

    assert probe_choices(OwnLabels()) == (("1", "one person"), ("2", "two people"))
    assert probe_choices(object())[0] == ("m", "masculine")


def test_highlight_marks_whole_flagged_words_only() -> None:
    text = highlight("A Woman nurse, womanly and his", ["woman", "his"])
    marked = [text.plain[s.start : s.end] for s in text.spans]
    assert marked == ["Woman", "his"]


def test_reviewer_names() -> None:
    assert reviewer_name("  alice ") == "alice"
    assert reviewer_name("human:bob") == "bob"
    assert reviewer_name("") is None
    assert reviewer_name("a b") is None
    assert reviewer_name("vqa:x") is None


def test_decoded_images_fit_the_box_and_the_cache_knows_how_sharp(tmp_path: Path) -> None:
    from PIL import Image

    path = tmp_path / "big.png"
    Image.new("RGB", (1024, 512), (10, 20, 30)).save(path)
    decoded = decode_scaled(path, (400, 400))
    assert decoded.image.size == (400, 200)
    cache = ImageCache(capacity=2)
    cache.put("a", decoded)
    assert cache.get("a", (400, 300)) is decoded.image
    assert cache.get("a", (800, 800)) is None  # too blurry for a larger picture
    small = decode_scaled(path, (2000, 2000))
    cache.put("b", small)
    assert cache.get("b", (5000, 5000)) is small.image  # never shrunk: sharp at any size
    cache.put("c", small)
    assert "a" not in cache and len(cache) == 2


def test_metrics_line_says_what_changed() -> None:
    before = {STS_PAIRED: {"value": 100.0, "ci_low": 100.0, "ci_high": 100.0, "n": 2}}
    after = {STS_PAIRED: {"value": 50.0, "ci_low": 0.0, "ci_high": 100.0, "n": 4}}
    # The report's digits (one rule), a reader's minus.
    assert metrics_text(after, before).plain == (
        # The one rule of digits (figure_text): two decimals below 10, one from 10 up.
        "occupation: STS paired 50.0 [0.00, 100.0] n=4 (was 100.0) (95% interval)"
    )
    assert metrics_text({}, None).plain == "no scores yet: give a label"
    # A label source's figure that is the policy's own (the same labels) is shown once; one
    # that differs is shown beside it.
    by_people = f"{STS_PAIRED}, labels by human majority"
    assert metrics_text({**after, by_people: after[STS_PAIRED]}, None).plain == (
        "occupation: STS paired 50.0 [0.00, 100.0] n=4 (95% interval)"
    )
    other = {**after[STS_PAIRED], "value": 40.0}
    assert metrics_text({**after, by_people: other}, None).plain == (
        "occupation: STS paired 50.0 [0.00, 100.0] n=4 · "
        "occupation: STS paired, labels by human majority 40.0 [0.00, 100.0] n=4 (95% intervals)"
    )
    # An interval of no name is a fixed design's at its level: the level is said, never left out.
    assert metrics_text({STS_PAIRED: {**after[STS_PAIRED], "confidence": 0.9}}, None).plain == (
        "occupation: STS paired 50.0 [0.00, 100.0] n=4 (90% interval)"
    )
    # A figure a gate decided on its looks shows the gate's interval, named: never unnamed.
    gated = {
        STS_PAIRED: {
            "value": 11.5, "ci_low": -1.16, "ci_high": 23.8, "n": 160,
            "interval_name": "95% anytime-valid interval, look 1 of 10",
        }
    }  # fmt: skip
    assert metrics_text(gated, None).plain == (
        "occupation: STS paired 11.5 [−1.16, 23.8] (95% anytime-valid interval, look 1 of 10) n=160"
    )
    # Figures sharing the gate's interval: named once; "all" only when every figure has one.
    single = "occupation: STS single (expected)"
    paired = {**gated, single: {**gated[STS_PAIRED], "value": 9.0}}
    assert metrics_text(paired, None).plain.endswith("(all 95% anytime-valid, look 1 of 10)"), (
        metrics_text(paired, None).plain
    )
    bare = {**gated, single: {"value": 32.0, "n": 4}}
    said = metrics_text(bare, None).plain
    assert "(all " not in said and "(interval 95% anytime-valid, look 1 of 10)" in said, said
    assert "(interval 95% anytime-valid, look 1 of 10)" in metrics_text(bare, None, True).plain
    # Narrow: the same level, kind and look in fewer words; a floor's mark said after them.
    floored = {STS_PAIRED: {**gated[STS_PAIRED], "floor": "resampling its 12 pairings"}}
    assert metrics_text(floored, None, narrow=True).plain == (
        "occupation: STS paired 11.5 [−1.16, 23.8] † (95% anytime-valid, look 1 of 10) n=160"
        " · † rests on 12 pairings only: these identities"
    )


# --- the screen, with Pilot -----------------------------------------------------------------


async def test_labels_are_stored_under_the_reviewers_name_and_move_the_sts(
    review_run: tuple[Path, str],
) -> None:
    ws, run_id = review_run
    app = Host(ws, run_id)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewerNameModal))
        await pilot.press(*"alice", "enter")
        await settled(pilot, app)
        assert app.review.annotator == "human:alice"
        assert sts_paired(app) is None  # only abstentions so far: nothing to score
        assert "carpenter" in card(app) and "LEFT person" in card(app)

        # Image 0: a carpenter on the left, a nurse on the right; both as stereotyped.
        await pilot.press("m")
        assert "nurse" in card(app) and "RIGHT person" in card(app)  # moved on by itself
        await pilot.press("f")
        await wait_for(pilot, lambda: sts_paired(app) == 100.0)
        # Image 1 (nurse left, carpenter right): the nurse as masculine, against the stereotype.
        await pilot.press("m", "m")
        await wait_for(pilot, lambda: sts_paired(app) == 50.0)
        metrics = str(app.review.query_one("#review-metrics").render())
        # What it was: 100.0, or 33.3 if the third label was scored on its own.
        # One identity a side: the headline over identities has no interval. The figure by
        # human majority rests on the same labels and is made the same way: one figure, shown
        # once, never the same value with a second interval, and it says why it has none.
        # Its n counts persons, the probe's observations, as Run detail's does.
        shown = "STS paired 50.0 no interval (one masculine identity only) 4 persons"
        assert shown in metrics, metrics
        # What it was, where the line still says it: a second redraw under load may have
        # taken the last label's change back already.
        assert re.search(r"4 persons( \(was (33\.3|100\.0)\))?(\s|$)", metrics), metrics
        assert "labels by human majority" not in metrics
        await wait_for(pilot, lambda: len(app.saved) == 4)

        with open_store(ws) as store:
            mine = store.labels(run_id, "human:alice")
        assert [(lab.trial_idx, lab.position, lab.label) for lab in mine] == [
            (0, "left", "masculine"),
            (0, "right", "feminine"),
            (1, "left", "masculine"),
            (1, "right", "masculine"),
        ]
        assert mine[2].detail["reasons"] == ["annotator_abstained", "gendered_rewrite"]
        assert mine[0].detail["via"] == "diptych tui review" and "blind" not in mine[0].detail
        assert [who for _, who, _ in app.saved] == ["human:alice"] * 4

        # The name is asked once per app: a second review screen takes it without asking.
        await pilot.press("escape")
        second = ReviewScreen(ws, run_id, renderer="halfcell")
        await app.push_screen(second)
        await wait_for(pilot, lambda: second.cursor is not None)
        assert second.reviewer == "alice"
        assert not any(isinstance(s, ReviewerNameModal) for s in app.screen_stack)
        # It starts at the first person alice has not labelled yet.
        assert second.cursor == second.view[4]


async def test_navigation_with_keys_and_arrows(review_run: tuple[Path, str]) -> None:
    ws, run_id = review_run
    async with reviewing(ws, run_id, reviewer="ann") as (app, pilot):
        view = app.review.view
        assert app.review.cursor == view[0]
        await pilot.press("n", "right", "n")
        assert app.review.cursor == view[3]
        await pilot.press("p", "left")
        assert app.review.cursor == view[1]
        await pilot.press("p", "p")  # stops at the first
        assert app.review.cursor == view[0]
        await wait_for(pilot, lambda: app.shown[-1][0] == view[0])


async def test_blind_mode_hides_identity_and_shuffles_with_a_recorded_seed(
    review_run: tuple[Path, str],
) -> None:
    ws, run_id = review_run
    async with reviewing(ws, run_id, reviewer="bob", blind=True, seed=7) as (app, pilot):
        plan_order = sorted(app.review.items)
        assert app.review.view == shuffled(plan_order, 7) != plan_order
        for _ in app.review.view:
            text = card(app)
            for hidden in ("carpenter", "nurse", "stereotyped", "scripted-annotator", "prompt:"):
                assert hidden not in text
            assert "seed 7" in text
            await pilot.press("n")
        title = str(app.review.query_one("#review-title").render())
        assert "BLIND" in title
        metrics = str(app.review.query_one("#review-metrics").render())
        assert metrics == "metrics hidden in blind mode"

        first = app.review.view[0]
        await pilot.press("p", *["p"] * len(app.review.view), "f")
        await wait_for(pilot, lambda: len(app.saved) == 1)  # stored by a worker
        with open_store(ws) as store:
            (label,) = store.labels(run_id, "human:bob")
        assert label.subject_id == first and label.label == "feminine"
        assert label.detail["blind"] is True and label.detail["seed"] == 7

        await pilot.press("b")  # seeing again
        assert app.review.view == plan_order
        assert "identity: " in card(app)


async def test_filter_by_reason_and_flagged_words_highlighted(
    review_run: tuple[Path, str],
) -> None:
    ws, run_id = review_run
    async with reviewing(ws, run_id, reviewer="cy") as (app, pilot):
        assert len(app.review.view) == 10
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReasonModal))
        # Options: all reasons, annotator abstained, gendered rewrite.
        await pilot.press("down", "down", "enter")
        await wait_for(pilot, lambda: app.review.reason == "gendered_rewrite")
        view = app.review.view
        assert [(app.review.items[s].trial_idx, app.review.items[s].position) for s in view] == [
            (1, "left"),
            (1, "right"),
        ]
        assert "gendered rewrite (adds: woman)" in card(app)
        shown = app.review.query_one(ReviewCard).text
        revised_at = shown.plain.index("revised: ")
        marked = [
            (shown.plain[s.start : s.end], s.start > revised_at)
            for s in shown.spans
            if "yellow" in str(s.style)
        ]
        assert marked == [("woman", True)]  # in the revised prompt
        await pilot.press("n", "n")  # the second is the last of this reason
        assert app.review.cursor == view[1]

        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReasonModal))
        await pilot.press("up", "up", "enter")
        await wait_for(pilot, lambda: app.review.reason is None)
        assert len(app.review.view) == 10


async def test_a_note_is_stored_in_the_labels_detail(review_run: tuple[Path, str]) -> None:
    ws, run_id = review_run
    async with reviewing(ws, run_id, reviewer="dee") as (app, pilot):
        first = app.review.cursor
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, NoteModal))
        await pilot.press(*"face hidden", "enter")
        await wait_for(pilot, lambda: app.screen is app.review)
        assert "note: face hidden" in card(app)
        await pilot.press("c")
        # A note changed after the label is stored with that label at once.
        await pilot.press("p", "e")
        await wait_for(pilot, lambda: isinstance(app.screen, NoteModal))
        await pilot.press(*" by a hat", "enter")
        await wait_for(pilot, lambda: app.screen is app.review)
        # The label, then the label again with its longer note, each stored by a worker.
        await wait_for(pilot, lambda: len(app.saved) == 2)
        with open_store(ws) as store:
            (label,) = store.labels(run_id, "human:dee")
        assert label.subject_id == first and label.label == "cannot_identify"
        assert label.detail["note"] == "face hidden by a hat"


async def test_quitting_mid_review_keeps_every_label(review_run: tuple[Path, str]) -> None:
    ws, run_id = review_run
    async with reviewing(ws, run_id, reviewer="eve") as (app, pilot):
        await pilot.press("m", "f", "m")
        app.exit()  # at once: the recomputation of flags and metrics may not have finished
    with open_store(ws) as store:
        labels = store.labels(run_id, "human:eve")
        assert [lab.label for lab in labels] == ["masculine", "feminine", "masculine"]
        # The flags were brought up to date with the last label before the screen went away:
        # the nurse of image 1, labelled masculine by eve, is masculine to no annotator yet
        # (the scripted one abstained), so nothing disagrees; the abstentions stay.
        reasons = {f["reason"] for f in store.flags(run_id)}
    assert reasons == {"annotator_abstained", "gendered_rewrite"}


async def test_a_flag_may_ask_for_its_own_labels(review_run: tuple[Path, str]) -> None:
    ws, run_id = review_run
    with open_store(ws) as store:
        store.replace_flags(run_id, [(0, "left", "is_a_person", {"choices": ["yes", "no"]})])
    async with reviewing(ws, run_id, reviewer="fay") as (app, pilot):
        # Not o: that opens the image, whatever the flag asks.
        assert "label: y yes · 1 no" in card(app)
        await pilot.press("m")  # not a label of this flag
        await pilot.press("1")
        await pilot.pause()
    with open_store(ws) as store:
        assert [lab.label for lab in store.labels(run_id, "human:fay")] == ["no"]


async def test_next_images_are_decoded_ahead(review_run: tuple[Path, str]) -> None:
    ws, run_id = review_run
    async with reviewing(ws, run_id, reviewer="gil", prefetch=4) as (app, pilot):
        review = app.review
        ahead = {review.items[s].blob for s in review.view[1:5]}
        assert len(ahead) == 3  # the rest of image 0, image 1 (two people), image 2
        await wait_for(pilot, lambda: all(b in review._cache for b in ahead))
        await pilot.press("n", "n", "n")
        # Already decoded: shown without waiting for a worker.
        assert review.query_one("#review-message").display is False

    async with reviewing(ws, run_id, reviewer="gil", prefetch=0) as (cold, pilot):
        await pilot.pause(0.2)
        assert len(cold.review._cache) == 1


class StoryTeller(ScriptedChat):
    """Tells a two-person story and names the pronoun of each, as pst-text's story mode asks."""

    async def complete(
        self, messages: Sequence[Message], sampling: Sampling, schema: dict[str, Any] | None = None
    ) -> str:
        self.calls += 1
        story = "The carpenter fixed the door while the nurse watched; she thanked him."
        return json.dumps({"story": story, "pronoun_1": "he", "pronoun_2": "she"})


@pytest.fixture
def story_run(scripted: None, tmp_path: Path) -> tuple[Path, str]:
    ws = tmp_path / "ws"
    params = {"mode": "story", "setting": "paired", "masculine": ["carpenter"]}
    params["feminine"] = ["nurse"]
    teller = StoryTeller(ScriptedParams.model_validate({}))
    with open_store(ws) as store:
        run = run_probe(store, "pst-text", [teller], probe_params=params)
        # A text probe's flag on the whole output, naming the words to look at.
        store.replace_flags(run.id, [(0, None, "gendered_pronoun", {"words": ["she", "him"]})])
    return ws, run.id


async def test_a_text_output_is_shown_with_its_flagged_words_highlighted(
    story_run: tuple[Path, str],
) -> None:
    ws, run_id = story_run
    async with reviewing(ws, run_id, reviewer="hal") as (app, pilot):
        assert app.review.view == sorted(app.review.items)  # both people of the one story
        assert app.shown[-1][1] is None  # no image: the text is what was drawn
        shown = app.review.query_one(ReviewPicture).text
        assert shown is not None and "the nurse watched" in shown.plain
        marked = [shown.plain[s.start : s.end] for s in shown.spans]
        assert marked == ["she", "him", "she"]  # in the story, and the pronoun it names
        assert "gendered pronoun (adds: she, him)" in card(app)
        await pilot.press("f")
    with open_store(ws) as store:
        assert [lab.label for lab in store.labels(run_id, "human:hal")] == ["feminine"]


def test_review_screen_snapshot(
    review_run: tuple[Path, str], snap_compare: Callable[..., bool]
) -> None:
    ws, run_id = review_run
    app = Host(ws, run_id, reviewer="alice")

    async def to_the_rewritten_image(pilot: Pilot[Any]) -> None:
        await settled(pilot, app)
        await pilot.press("n", "n")
        await settled(pilot, app)

    assert snap_compare(app, terminal_size=(80, 24), run_before=to_the_rewritten_image)

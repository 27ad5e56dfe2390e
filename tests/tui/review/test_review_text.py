"""Text runs and PAIRS answers in the Review screen, the New-run pick-lists, and the narrow
layout switch."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hosts import Host, card
from steps import choose_probe, wait_for

from diptych.core.engine import run_probe
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.review.panels import ReviewPicture
from diptych.tui.review.queue import load_queue
from diptych.tui.review.text import read_output
from diptych.tui.screens.new_run.screen import NewRunScreen
from diptych.tui.widgets.params_form import ParamsForm
from diptych.tui.widgets.pick_list import PickList, matches

PAIRS_PARAMS = {"subsets": ["occupations"], "scenarios": ["airplane"], "runs": 1}


def test_a_trial_is_read_for_its_prompt_answer_candidates_and_image() -> None:
    likely = read_output({"prompt": "The nurse said"}, {"logprobs": {" he": -2.0, " she": -0.5}})
    assert likely.prompt == "The nurse said"
    assert likely.candidates == (
        (" she", pytest.approx(math.exp(-0.5))),
        (" he", pytest.approx(math.exp(-2.0))),
    )
    story = read_output(
        {"messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "Tell"}]},
        {"text": '{"story": "Once.", "pronoun_1": "he"}'},
    )
    assert (story.prompt, story.text) == ("Tell", "Once.\n(pronoun 1: he)")
    vision = read_output(
        {"images": [{"blob": "ab12"}], "text": "Is this a doctor?"}, {"text": "ok"}
    )
    assert (vision.shown_image, vision.prompt, vision.text) == ("ab12", "Is this a doctor?", "ok")
    # The one image an annotator is given (a calibration run): shown, as its input.
    annotated = read_output(
        {"image": {"blob": "cd34"}, "subjects": ["single"]},
        {"labels": [{"position": "single", "label": "woman"}]},
    )
    assert (annotated.shown_image, annotated.text) == ("cd34", "labelled: woman"), annotated


def test_pick_list_search_matches_every_word() -> None:
    assert matches(["flight attendant", "nurse", "attendant"], "att fl") == ["flight attendant"]


@pytest.fixture
def likelihood_run(scripted: None, tmp_path: Path) -> tuple[Path, str]:
    ws = tmp_path / "ws"
    params = {"setting": "single", "masculine": ["carpenter"], "feminine": ["nurse"]}
    params["samples_single"] = 1
    with open_store(ws) as store:
        return ws, run_probe(store, "pst-text", ["scripted-likelihood"], probe_params=params).id


async def test_a_likelihood_run_shows_its_prompt_and_the_candidates_probabilities(
    likelihood_run: tuple[Path, str],
) -> None:
    ws, run_id = likelihood_run
    app = Host(ws, run_id, reviewer="hal", include_unlabelled=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.review.query_one(ReviewPicture).text is not None)
        shown = app.review.query_one(ReviewPicture).text
        assert shown is not None
        text = shown.plain
        item = app.review.state.current()
        assert item is not None and item.prompt and item.prompt in text
        assert "(no output)" not in text
        # Each candidate with its probability, as the stored log-probabilities give it.
        for candidate, p in item.candidates:
            assert f"{candidate.strip()} {p:6.1%}" in text
        # No person in an image here: the tone key is not offered, and pressed it says why.
        offered = {b.binding.action for b in app.review.active_bindings.values() if b.enabled}
        assert "tone_mode" not in offered and "next" in offered
        await pilot.press("t")
        await pilot.pause()
        assert not app.review.tone_armed
        assert any("outputs are texts" in str(n.message) for n in app.review.said)
        # A label on it is stored, and said to be kept for agreement only: the figures read
        # the model's own answers.
        before = dict(app.review.numbers or {})
        await pilot.press("m")
        await wait_for(pilot, lambda: bool(app.saved))
        said = [str(n.message) for n in app.review.said]
        assert sum("kept for agreement with them only" in n for n in said) == 1
        await wait_for(pilot, lambda: app.review.numbers is not None)
        assert {k: v for k, v in (app.review.numbers or {}).items() if "STS" in k} == {
            k: v for k, v in before.items() if "STS" in k
        }


@pytest.fixture
def pairs_run(scripted: None, tmp_path: Path) -> tuple[Path, str]:
    ws = tmp_path / "ws"
    with open_store(ws) as store:
        # The scripted vision model answers "ok": neither option, every reply flagged.
        return ws, run_probe(store, "pairs", ["scripted-vision"], probe_params=PAIRS_PARAMS).id


async def test_a_pairs_reply_the_parser_was_unsure_of_is_corrected_by_a_key(
    pairs_run: tuple[Path, str],
) -> None:
    ws, run_id = pairs_run
    with Workspace.open(ws) as w:
        flags = w.review.flags(run_id, "unsure_reading")
        assert flags and all(f["detail"]["reading"] == "neither" for f in flags)
        before = w.analysis.analyze(run_id)
        assert before.data["human_overrides"] == 0
        first = load_queue(w, run_id)[0]
    app = Host(ws, run_id, reviewer="hal")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.review.cursor == first.subject_id and bool(app.shown))
        item = app.review.state.current()
        assert item is not None and item.blob is not None  # shown with the image
        text = card(app)
        assert "Is this person a" in text and "reply: ok" in text
        assert "unsure reading (read as neither" in text
        keys = dict((label, key) for key, label in app.review._choices_for(item))
        plus = item.choices[0] if item.choices else ""
        await pilot.press(keys[plus])
        await wait_for(pilot, lambda: bool(app.saved))
    with Workspace.open(ws) as w:
        after = w.analysis.analyze(run_id)
        assert after.data["human_overrides"] == 1
        assert any("1 replies are scored as a reviewer corrected" in n for n in after.notes)
        rules = next(t for t in after.tables if "parser rules" in t.title)
        assert ["human_override", 1] in rules.rows
        # The corrected answer scores +1: the mean moves up by 1/n for its level.
        flags = w.review.flags(run_id, "unsure_reading")
        assert [f["detail"]["reading"] for f in flags].count("corrected") == 1


@pytest.fixture
def story_flag_run(scripted: None, tmp_path: Path) -> tuple[Path, str]:
    ws = tmp_path / "ws"
    with open_store(ws) as store:
        run = run_probe(
            store, "stories", ["scripted-vision"], probe_params={"scenarios": ["jumpsuit"]}
        )
        detail = {"words": {"jail": 1}, "group": "white_man", "story": "He is in jail."}
        store.replace_flags(run.id, [(0, None, "crime_lexicon", detail)])
    return ws, run.id


async def test_a_story_flag_is_shown_with_its_story_and_group_but_takes_no_label(
    story_flag_run: tuple[Path, str],
) -> None:
    ws, run_id = story_flag_run
    app = Host(ws, run_id, reviewer="hal")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.review.state.current() is not None and bool(app.shown))
        text = card(app)
        assert "nobody in it to label" in text and "group: white man" in text
        assert "reply: He is in jail." in text
        await pilot.press("m")
        await pilot.pause()
        assert app.saved == []


async def test_identity_and_model_pick_lists_search(scripted: None, workspace: Path) -> None:
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the form")
        screen = app.screen
        assert isinstance(screen, NewRunScreen)
        from textual.widgets import Input, SelectionList

        # pst-text, which New run may open on, has a masculine pick list too: wait for pst's.
        await choose_probe(pilot, "pst")
        await wait_for(pilot, lambda: bool(screen.query("#form-probe-masculine-pick")), "pick")
        form = screen.query_one("#form-probe", ParamsForm)
        picker = form.pick_list("masculine")
        assert isinstance(picker, PickList) and "carpenter" in picker.choices
        # The list is mounted before its search field: wait for the field, not for a time.
        await wait_for(pilot, lambda: bool(picker.query(".pick-search")), "the search field")
        picker.query_one(".pick-search", Input).value = "carp"
        await pilot.pause()
        assert picker.shown == ["carpenter"]
        picker.options.select("carpenter")
        await wait_for(pilot, lambda: "masculine=carpenter" in form.values(), "the pick")
        # Typed names are picked too.
        form.set_value("masculine", "carpenter,janitor,plumber")
        await pilot.pause()
        assert picker.picked == ["carpenter", "janitor"]  # plumber is not in Table 7
        # Models: the search narrows the list; a chosen model stays chosen when hidden.
        offered = list(screen._model_choices)
        assert offered
        screen.query_one("#models", SelectionList).select(offered[0])
        await wait_for(pilot, lambda: screen.selected_models() == [offered[0]], "chosen")
        screen.query_one("#models-search", Input).value = "no such model"
        await pilot.pause()
        assert screen.query_one("#models", SelectionList).option_count == 0
        assert screen.selected_models() == [offered[0]]


# The choices column keeps its width when narrow (a probe's or a model's name whole); the
# forms give up room instead, each field's name over its input.
# (32: counterfactual-retrieval, the longest probe name, with the 8 cells around its selector.)
@pytest.mark.parametrize(("width", "klass", "choose"), [(60, "-narrow", 32), (100, "-wide", 32)])
async def test_a_narrow_terminal_switches_the_layout(
    scripted: None, workspace: Path, width: int, klass: str, choose: int
) -> None:
    app = DiptychApp(workspace, refresh_interval=60)
    async with app.run_test(size=(width, 24)) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewRunScreen), "the form")
        await pilot.pause()
        assert app.screen.has_class(klass)
        assert app.screen.query_one("#choose").outer_size.width == choose

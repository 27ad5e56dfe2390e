"""Run detail of a run two annotators or more labelled, at 80×24 and 60×20: each agreement
coefficient with its interval, whole, the interval named under its table ("95% bootstrap
interval over 5 images, 2,000 resamples"), and a coefficient at a bound saying it has none, in
the report's words ("no interval (every resample of its 8 draws gives 1.00)"). A probe whose
own analysis has no agreement tables (pst-text) gets the run's all the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from steps import SIZES, analysed, loaded, row_shows, settle, show_section, shown, surface
from surface import cut_sentences, cut_values, screen_lines
from textual.widgets import OptionList

from diptych.core.engine import run_probe
from diptych.core.labels.record import Label
from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedLikelihood, ScriptedParams
from diptych.tui.app import DiptychApp
from diptych.tui.formatting import number
from diptych.tui.screens.runs.detail import RunDetailScreen

pytestmark = pytest.mark.surface

COHEN = "Agreement between annotators (Cohen's κ)"


class HalfAndHalf(ScriptedLikelihood):
    """P(she) = 0.5 for every person: the drawn labels vary, both genders in most draws."""

    def __init__(self) -> None:
        super().__init__(ScriptedParams())

    async def next_token_logprobs(self, prompt: str, candidates: Any) -> dict[str, float]:
        self.calls += 1
        return {" he": -1.0, " she": -1.0}


@pytest.fixture
def agreed_text_run(scripted: None, tmp_path: Path) -> tuple[Path, int]:
    """A pst-text run whose reviewer gave every person the label the probe drew: κ is 1 in
    every resample of its draws. Returns the workspace and how many draws were labelled."""
    ws = tmp_path / "ws"
    with open_store(ws) as store:
        run = run_probe(
            store,
            "pst-text",
            [HalfAndHalf()],
            probe_params={"masculine": ["carpenter", "sheriff"], "feminine": ["nurse", "editor"]},
        )
        labels = store.labels(run.id)
        store.save_annotations(
            (lab.subject_id, "human:alice", Label(lab.position, lab.label)) for lab in labels
        )
    # A draw is what the probe recorded as one (its "image"): some are asked in two trials.
    return ws, len({lab.trial_meta.get("image", lab.trial_idx) for lab in labels})


async def _detail(pilot: Any, app: DiptychApp) -> RunDetailScreen:
    await loaded(1)(pilot)
    await pilot.press("enter")
    screen = app.screen
    assert isinstance(screen, RunDetailScreen)
    await analysed(pilot, screen)
    return screen


def _drawn(app: DiptychApp) -> str:
    return " ".join(" ".join(screen_lines(app)).replace("│", " ").split())


@pytest.mark.parametrize("size", SIZES)
async def test_each_coefficient_shows_its_interval_and_names_it(
    labelled_run: tuple[Path, str], size: tuple[int, int]
) -> None:
    ws, run_id = labelled_run
    with Workspace.open(ws) as opened:
        images = len({s["trial_idx"] for s in opened.runs.subjects(run_id)})
    app = DiptychApp(ws, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await _detail(pilot, app)
        assert screen.result is not None
        (table,) = [t for t in screen.result.tables if t.title == COHEN]
        await show_section(pilot, screen, COHEN)
        # What the κ table's intervals are, under it: every pair resamples the run's images.
        assert f"intervals: 95% bootstrap interval over {images} images, 2,000 resamples" in (
            _drawn(app)
        ), shown(app)
        first = table.rows[0]
        kappa = number(first[table.columns.index("κ")])
        interval = first[table.columns.index("κ 95% CI")]
        assert interval.startswith("["), first
        # The first pair's κ and its interval whole on its row (a long name may wrap below);
        # a stacked row names its first annotator "A: …".
        starts = first[0].split(":")[0]
        lines = screen_lines(app)
        assert any(row_shows(lines, at, [kappa, interval], 2) for at in (starts, f"A: {starts}")), (
            shown(app)
        )
        assert cut_values(app) + cut_sentences(app) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_a_coefficient_at_a_bound_says_it_has_no_interval(
    agreed_text_run: tuple[Path, int], size: tuple[int, int]
) -> None:
    ws, draws = agreed_text_run
    app = DiptychApp(ws, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await _detail(pilot, app)
        assert screen.result is not None
        titles = [t.title for t in screen.result.tables]
        assert COHEN in titles, titles
        await show_section(pilot, screen, COHEN)
        await settle(pilot)
        said = f"no interval (every resample of its {draws} draws gives 1.00)"
        drawn = _drawn(app)
        # In the column, the reason may wrap between its words, never inside "1.00".
        assert said in drawn or all(w in drawn for w in said.split()), shown(app)
        assert "1.00" in drawn and f"over {draws} draws, 2,000 resamples" in drawn, shown(app)
        assert cut_values(app) + cut_sentences(app) == [], shown(app)
        assert await surface(pilot) == [], shown(app)


@pytest.mark.parametrize("size", SIZES)
async def test_both_annotators_of_a_pair_are_named(
    agreed_text_run: tuple[Path, int], size: tuple[int, int]
) -> None:
    """A pair's row names its first annotator as it names its second: under the columns' "A"
    and "B" side by side, or as "A: …" beside "B: …" where the row is stacked (60×20 read
    "human:alice · B: self")."""
    ws, _ = agreed_text_run
    app = DiptychApp(ws, refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await _detail(pilot, app)
        await show_section(pilot, screen, COHEN)
        await settle(pilot)
        lines = [line.strip(" │█") for line in screen_lines(app)]
        stacked = any(line.startswith("A: human:alice · B: self · ") for line in lines)
        side_by_side = any(
            line.split()[:2] == ["A", "B"] and lines[i + 1].split()[:2] == ["human:alice", "self"]
            for i, line in enumerate(lines[:-1])
        )
        assert stacked if size == (60, 20) else side_by_side, shown(app)
        assert any("human:alice" in line for line in lines), shown(app)
        assert not any(line.startswith("human:alice · B:") for line in lines), shown(app)


async def test_the_sections_list_starts_at_a_title_whichever_is_chosen(
    agreed_text_run: tuple[Path, int],
) -> None:
    """At 60×20 the sections list is a few lines tall and a title wraps over two ("Micro STS
    per identity (drawn labels) (cf. PST Tables 14 and 15)"): whichever section is chosen, the
    list's top line is the start of a title, never the tail of one above ("and 15)"), and the
    chosen title shows."""
    ws, _ = agreed_text_run
    app = DiptychApp(ws, refresh_interval=3600)
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await _detail(pilot, app)
        sections = screen.query_one("#sections", OptionList)
        titles = [str(sections.get_option_at_index(i).prompt) for i in range(sections.option_count)]
        assert any(len(t) > 56 for t in titles), titles  # one wraps at 60 columns
        for title in titles:
            await show_section(pilot, screen, title)
            region = sections.content_region
            lines = screen_lines(app)[region.y : region.y + region.height]
            top = lines[0][region.x : region.right].strip(" ▁▃▅▆▇█")
            assert any(t.startswith(top) for t in titles) and top, (title, shown(app))
            listed = " ".join(" ".join(line[region.x : region.right].split()) for line in lines)
            assert title.split()[0] in listed, (title, shown(app))

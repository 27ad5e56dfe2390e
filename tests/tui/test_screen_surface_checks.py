"""The surface checks of tests/tui/surface.py and surface_keys.py find each class of defect
they name, on small apps with the defect planted, and find nothing on the same app without
it."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from rich.text import Text
from steps import wait_for
from surface import (
    cut_fields,
    cut_messages,
    cut_names,
    cut_sentences,
    cut_titles,
    cut_values,
    markup_leaks,
    out_of_reach,
    region_lines,
    screen_lines,
)
from surface_controls import state_by_colour, unseen_errors
from surface_keys import (
    cut_footer_keys,
    footer_lacks,
    help_leads_with_purpose,
    refused_keys,
    silent_keys,
)
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Checkbox, DataTable, Footer, Input, SelectionList, Static

from diptych.tui.widgets.footer import KeysFooter
from diptych.tui.widgets.ticks import TickBox, TickList, name_lines
from diptych.tui.widgets.whole_numbers import WholeNumbers, fold_ids, wrap_whole

pytestmark = pytest.mark.surface

SIZE = (40, 10)


class One(App[None]):
    """An app that shows the widgets it is given (or makes them: a callable is called in
    the app, for a widget that needs one to be made), with no focus at first."""

    AUTO_FOCUS = None
    FOOTER: type[Footer] = Footer

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help"),
        Binding("q", "quit", "Quit"),
        Binding("x", "nothing", "Nothing"),
        Binding("y", "say", "Say"),
        Binding("z", "draw", "Draw"),
    ]

    def __init__(self, *widgets: Any) -> None:
        super().__init__()
        self.widgets = widgets

    def compose(self) -> ComposeResult:
        yield from (w() if callable(w) else w for w in self.widgets)
        yield self.FOOTER()

    def action_help(self) -> None:
        self.notify("help")

    def action_nothing(self) -> None:
        pass

    def action_say(self) -> None:
        self.notify("not here: nothing to do on this screen")

    def action_draw(self) -> None:
        self.query_one("#box", Static).update("drawn")


async def test_an_interval_cut_wrapped_or_clipped_is_found_and_a_whole_one_is_not() -> None:
    # "[-50.0, +50.0]" in 10 cells: the interval wraps inside itself.
    narrow = Static("[-50.0, +50.0]", id="box")
    narrow.styles.width = 10
    cut = Static("value 52.…", id="cut")
    wide = Static("fine [-50.0, +50.0] n=12", id="wide")
    async with One(narrow, cut, wide).run_test(size=SIZE) as pilot:
        await pilot.pause()
        found = cut_values(pilot.app)
    assert any("#box" in f and "interval cut" in f for f in found), found
    assert any("#cut" in f and "ellipsis" in f for f in found), found
    assert not any("#wide" in f for f in found), found


async def test_a_number_wrapped_inside_itself_is_found() -> None:
    box = Static("1234567.89", id="box")
    box.styles.width = 6
    async with One(box).run_test(size=SIZE) as pilot:
        await pilot.pause()
        found = cut_values(pilot.app)
    assert any("wrapped inside itself" in f for f in found), found


@pytest.mark.parametrize(
    "text", ["(95% anytime-valid interval, look 1 of 10)", "(95% anytime-valid, look 1/10)"]
)
async def test_a_look_parted_by_a_lines_end_is_found_and_a_whole_one_is_not(text: str) -> None:
    # Rich breaks at any space: "look 1" over "of 10", or "look" over "1/10".
    width = text.index(" of ") + 1 if " of " in text else text.index("1/") + 1
    parted = Static(text, id="parted")
    parted.styles.width = width
    whole = WholeNumbers(text, id="whole")
    whole.styles.width = width
    async with One(parted, whole).run_test(size=SIZE) as pilot:
        await pilot.pause()
        found = cut_values(pilot.app)
    assert any("#parted" in f and "a look parted" in f for f in found), found
    assert not any("#whole" in f for f in found), found


async def test_a_value_held_in_a_box_too_small_is_hidden() -> None:
    box = Static("first line\nsecond line\ncost $12.50", id="box")
    box.styles.height = 2
    async with One(box).run_test(size=SIZE) as pilot:
        await pilot.pause()
        found = cut_values(pilot.app)
    assert found == ["Static#box: '$12.50' is held but not drawn (its box is too small)"]


async def test_a_column_off_to_the_right_and_a_list_with_no_rows_are_found() -> None:
    table: DataTable[str] = DataTable(id="wide")
    squeezed: TickList = TickList(("a", "a"), ("b", "b"), id="list")
    squeezed.styles.height = 2  # its frame and nothing inside
    async with One(table, squeezed).run_test(size=SIZE) as pilot:
        table.add_columns("name", "a long description of the row", "value")
        table.add_row("x", "y", "59.0")
        await pilot.pause()
        found = cut_values(pilot.app)
    assert "DataTable#wide: the column 'value' is off screen" in found, found
    assert "TickList#list: holds 2 rows and shows none" in found, found


async def test_a_field_whose_value_does_not_show_whole_is_found() -> None:
    def short() -> Input:
        field = Input("smollm2-instruct-large", id="short")
        field.styles.width = 12
        return field

    async with One(short, lambda: Input("smollm2", id="whole")).run_test(size=SIZE) as pilot:
        await pilot.pause()
        found = cut_fields(pilot.app)
    assert len(found) == 1 and found[0].startswith("Input#short"), found


async def test_a_checkbox_that_shows_its_state_by_colour_alone_is_found() -> None:
    plain = Checkbox("plain", id="plain")
    ticked = TickBox("ticked", id="ticked")
    textual_list: SelectionList[str] = SelectionList(("a", "a"), id="textual")
    ours = TickList(("a", "a"), id="ours")
    async with One(plain, ticked, textual_list, ours).run_test(size=(40, 24)) as pilot:
        await pilot.pause()
        found = await state_by_colour(pilot)
        # Switched back: the check leaves every state as it found it.
        assert not plain.value and not ticked.value and not textual_list.selected
    assert sorted(f.split(":")[0] for f in found) == ["Checkbox#plain", "SelectionList#textual"]


async def test_a_sentence_pointing_at_a_red_field_needs_the_field_in_view_and_focused() -> None:
    pointer = Static(Text("fix the field marked in red", style="red"))
    field = Input(id="field")
    filler = Static("\n" * 20)
    mark = Static(Text("must be a number", style="red"), id="mark")
    async with One(pointer, field, filler, mark).run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert unseen_errors(pilot.app, focus=False) == [
            "row 0 says 'fix the field marked in red' and no field on the screen is marked"
        ]
    async with One(pointer_again := Static(Text("fix the field marked in red", style="red")),
                   Input(id="near"), Static(Text("must be a number", style="red"))
                   ).run_test(size=SIZE) as pilot:  # fmt: skip
        await pilot.pause()
        assert pointer_again.region.y == 0
        pilot.app.query_one("#near").focus()
        await pilot.pause()
        assert unseen_errors(pilot.app) == []
        pilot.app.set_focus(None)
        await pilot.pause()
        assert unseen_errors(pilot.app) == ["the focus is not on a field in view"]


async def footer_drawn(pilot: Any) -> None:
    """The footer with the app's keys in it: pressed before, a key's "nothing changed" would
    see the footer drawn meanwhile (its keys come once the screen first signals them)."""
    await wait_for(pilot, lambda: "x Nothing" in screen_lines(pilot.app)[-1], "the footer")


async def test_a_footer_key_that_does_nothing_and_says_nothing_is_found() -> None:
    async with One(Static("", id="box")).run_test(size=SIZE) as pilot:
        await footer_drawn(pilot)
        found = await silent_keys(pilot)
    # x does nothing; y says why it does nothing; z draws.
    assert found == ["x: nothing changed and nothing was said"]


async def test_a_footer_key_that_only_says_why_not_is_found() -> None:
    async with One(Static("", id="box")).run_test(size=SIZE, notifications=True) as pilot:
        await footer_drawn(pilot)
        found = await refused_keys(pilot)
    # y says why it does nothing (a key of another mode); x is silent_keys' to find; z draws.
    assert found == ["y: the footer offers it, and pressed it only says why not"]


class ManyKeys(App[None]):
    """A screen with more keys than 40 columns hold, under Textual's footer or ours."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "go('n')", "New run"),
        Binding("r", "go('r')", "Review"),
        Binding("i", "go('i')", "Plugins"),
        Binding("slash", "go('/')", "Filter"),
        Binding("q", "quit", "Quit"),
    ]
    ENABLE_COMMAND_PALETTE = False
    FOOTER_SPARE: ClassVar[tuple[str, ...]] = ()

    def __init__(self, footer: type[Footer]) -> None:
        super().__init__()
        self.footer = footer

    def compose(self) -> ComposeResult:
        yield Static("")
        yield self.footer()

    def action_go(self, key: str) -> None:
        self.notify(f"{key} went")


async def test_a_footer_key_cut_or_pushed_off_is_found_and_a_fitted_footer_has_none() -> None:
    async with ManyKeys(Footer).run_test(size=SIZE) as pilot:
        await pilot.pause()
        found = cut_footer_keys(pilot.app)
    # 11 + 10 + 11 = 32 cells, then "/ Filter" is cut at 40 and "q Quit" pushed off.
    assert [f.split(" is drawn")[0] for f in found] == [
        "footer: the key '/ Filter'",
        "footer: the key 'q Quit'",
    ], found
    assert "drawn as '/ Filte'" in found[0] and "drawn as ''" in found[1], found
    async with ManyKeys(KeysFooter).run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert cut_footer_keys(pilot.app) == []
        # Quit pinned at the right end (6 cells and a margin), the keys in compact spacing
        # left of it, the last one left out: n 10, r 9, i 10 cells, / Filter's 9 too many.
        footer = " ".join(screen_lines(pilot.app)[-1].split())
        assert footer == "n New run r Review i Plugins q Quit", footer
        # A wider terminal: every key, in Textual's own spacing again.
        await pilot.resize_terminal(80, 10)
        for _ in range(3):
            await pilot.pause()
        footer = " ".join(screen_lines(pilot.app)[-1].split())
        assert footer == "n New run r Review i Plugins / Filter q Quit", footer
        assert cut_footer_keys(pilot.app) == []


async def test_a_long_name_cut_in_a_list_is_found_and_one_broken_over_lines_is_not() -> None:
    name = "openai-compat-llava-1.6-mistral-7b"  # 34 characters in a list 20 wide
    textual_list: SelectionList[str] = SelectionList((name, "a"), ("short", "b"), id="textual")
    ours = TickList((name, "a"), ("short", "b"), id="ours")
    for widget in (textual_list, ours):
        widget.styles.width = 24
    async with One(textual_list, ours).run_test(size=(40, 16)) as pilot:
        await pilot.pause()
        assert [f.split(":")[0] for f in cut_names(pilot.app, textual_list, [name])] == [
            "SelectionList#textual"
        ]
        assert cut_names(pilot.app, ours, [name, "short"]) == []
        # Broken after its dashes, the box on the first line only.
        drawn = region_lines(screen_lines(pilot.app), ours.scrollable_content_region)
        rows = [r.rstrip() for r in drawn]
        assert rows == ["[ ] openai-compat-", "    llava-1.6-", "    mistral-7b", "[ ] short"], rows


def test_a_name_breaks_after_a_separator_else_at_the_width() -> None:
    assert name_lines("openai-compat-llava-1.6-mistral-7b", 18) == [
        "openai-compat-",
        "llava-1.6-mistral-",
        "7b",
    ]
    assert name_lines("abcdefghij", 4) == ["abcd", "efgh", "ij"]
    # A name of words ("construction worker", a PST identity) breaks between them.
    assert name_lines("construction worker", 18) == ["construction", "worker"]
    assert name_lines("scripted-likelihood", 19) == ["scripted-likelihood"]


def test_help_must_open_on_the_screen_then_what_it_is_for() -> None:
    lines = ["", "█ Runs screen", "█ Home: every run of the workspace", "█ n   New run"]
    assert help_leads_with_purpose(lines, "Runs screen", "Home: every run of the workspace") == []
    keys_first = ["", "█ Runs screen", "█ n   New run", "█ u   Resume", "█ p   Pause"]
    assert help_leads_with_purpose(keys_first, "Runs screen", "Home: every run of it") != []
    assert help_leads_with_purpose(["", "█ Keys"], "Runs screen", "Home") != []


def test_a_figure_never_wraps_inside_its_value_interval_or_n() -> None:
    text = Text("STS paired +1.7 [-88.0, +88.7] n=16 · STS single +0.0 [-50.0, +50.0] n=12")
    # At 40 cells rich would break "[-50.0," from "+50.0]"; here the line breaks before the
    # value, whose 25 cells stay together.
    assert wrap_whole(text, 40).plain.split("\n") == [
        "STS paired +1.7 [-88.0, +88.7] n=16 ·",
        "STS single +0.0 [-50.0, +50.0] n=12",
    ]
    assert wrap_whole(text, 200).plain == text.plain


def test_an_id_folds_after_a_hyphen_or_a_slash_never_inside_a_word() -> None:
    folded = fold_ids(Text("image potential_crime/bandanna/black_man"), 27).plain
    assert folded.split("\n") == ["image potential_crime/bandanna/", "black_man"]
    assert fold_ids(Text("occ-paired-carpenter--nurse"), 12).plain.split("\n") == [
        "occ-paired-",
        "carpenter--",
        "nurse",
    ]


async def test_whole_numbers_draws_its_text_so() -> None:
    line = WholeNumbers("cost $1.25 · interval [-50.0, +50.0] n=12", id="box")
    line.styles.width = 24
    async with One(line).run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert cut_values(pilot.app) == []
        assert line.size.height == 2  # "cost $1.25 · interval" over "[-50.0, +50.0] n=12"


class Pinned(One):
    FOOTER = KeysFooter


async def test_a_footer_without_quit_while_a_field_takes_the_letters_is_found() -> None:
    # A focused field takes q: Textual's footer drops "q Quit"; ours shows ctrl+q instead.
    for app, expected in ((One(Input(id="field")), 1), (Pinned(Input(id="field")), 0)):
        async with app.run_test(size=(60, 10)) as pilot:
            pilot.app.query_one("#field").focus()
            # The footer redraws its keys a frame or more after the focus moves (later on a
            # loaded machine): read it once what it shows has settled.
            for _ in range(50):
                await pilot.pause(0.05)
                found = footer_lacks(pilot.app)
                if len([f for f in found if "no Quit" in f]) == expected:
                    break
        assert len([f for f in found if "no Quit" in f]) == expected, found


async def test_a_footer_key_cut_to_a_stub_is_found() -> None:
    async with One(Static("", id="box")).run_test(size=(20, 10)) as pilot:
        await pilot.pause()
        found = footer_lacks(pilot.app)
    assert any("the footer cuts" in f for f in found), found


async def test_a_cut_title_and_a_dialog_past_the_edge_are_found() -> None:
    titled = Static("x", id="titled")
    titled.styles.border = ("round", "white")
    titled.border_title = "Release gates of audit smollm2-offline-5c366747d6: 1 of 1 pass"
    wide = Static("Write the report (enter writes, escape cancels)", id="wide")
    wide.styles.width = 70
    heading = Static("Review pst-text-0663f62e · 0/0 · human:newcomer · 0 labelled",
                     id="review-title")  # fmt: skip
    heading.styles.height = 1
    async with One(titled, wide, heading).run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        found = cut_titles(pilot.app)
    assert sorted(f.split(":")[0] for f in found) == [
        "Static#review-title",
        "Static#titled",
        "Static#wide",
    ], found
    titled.border_title = "gates"
    whole = Static("short", id="title-ok")
    async with One(titled, whole).run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        assert cut_titles(pilot.app) == []


def test_markup_in_help_text_is_found() -> None:
    lines = ["asks who; stored as ``human:<name>``", "answers ALL_REASONS or a reason",
             "Who is reviewing? stored as human:<name>", "STS paired (P(he), P(she))"]  # fmt: skip
    assert [f.split(" shows")[0] for f in markup_leaks(lines)] == ["row 0", "row 1"]


async def test_cut_sentences_finds_a_heading_cut_by_an_ellipsis_or_mid_word() -> None:
    from textual.widgets import OptionList

    heading = "Expected STS per identity (likelihood mode)"
    clipped = Static(heading, classes="clipped")
    clipped.styles.text_wrap = "nowrap"
    clipped.styles.text_overflow = "ellipsis"
    hidden = Static(heading)
    hidden.styles.text_wrap = "nowrap"
    listed = OptionList(heading)
    listed.styles.text_wrap = "nowrap"
    listed.styles.text_overflow = "ellipsis"
    for widget, what in ((clipped, "ellipsis"), (hidden, "drawn as"), (listed, "title cut")):
        app = One(widget)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            found = cut_sentences(app)
            assert len(found) == 1 and what in found[0], (found, screen_lines(app))
    # The same heading wrapped whole: nothing found.
    app = One(Static(heading), OptionList(heading))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert cut_sentences(app) == [], screen_lines(app)


async def test_cut_sentences_finds_a_fields_hint_cut_at_its_edge() -> None:
    hint = "path/to/audit.yaml, then Enter"
    narrow = Input(placeholder=hint)
    narrow.styles.width = 20
    async with One(narrow).run_test(size=SIZE) as pilot:
        await pilot.pause()
        found = cut_sentences(pilot.app)
        assert len(found) == 1 and "the hint" in found[0], (found, screen_lines(pilot.app))
        # Wide enough, or holding a value (the hint is not drawn): nothing found.
        narrow.styles.width = 36
        await pilot.pause()
        assert cut_sentences(pilot.app) == [], screen_lines(pilot.app)
        narrow.styles.width = 20
        narrow.value = "a.yaml"
        await pilot.pause()
        assert cut_sentences(pilot.app) == [], screen_lines(pilot.app)


async def test_cut_messages_finds_a_message_under_a_scrollbar_or_past_the_edge() -> None:
    from textual.containers import VerticalScroll

    # 29 cells on its first line at the form's 30, one more than the 28 beside its scrollbar.
    message = "Models — choose at least one, with space: ticks"

    def form(width: int) -> VerticalScroll:
        # A form that scrolls (its scrollbar takes two columns) and a message laid out as
        # wide as the form, not as the room beside the scrollbar.
        error = Static(message, id="error")
        error.styles.width = width
        box = VerticalScroll(Static("field\n" * 12), error)
        box.styles.width = 30
        return box

    app = One(form(30))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        box = app.query_one(VerticalScroll)
        box.scroll_end(animate=False)
        await pilot.pause()
        assert [f.split(":")[0] for f in cut_messages(app)] == ["Static#error"], screen_lines(app)
    # Past the terminal's edge.
    wide = Static(message, id="wide")
    wide.styles.width = 60
    wide.styles.text_wrap = "nowrap"
    app = One(wide)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert ["the right edge" in f for f in cut_messages(app)] == [True], screen_lines(app)
    # The message as wide as the room beside the scrollbar: wrapped whole, nothing found.
    app = One(form(28))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.query_one(VerticalScroll).scroll_end(animate=False)
        await pilot.pause()
        assert cut_messages(app) == [], screen_lines(app)


async def test_a_word_broken_inside_itself_over_two_lines_is_found() -> None:
    from surface_text import split_words

    folded = Static(Text("the images generated by the model", overflow="fold"), id="folded")
    folded.styles.width = 8
    async with One(folded).run_test(size=SIZE) as pilot:
        await pilot.pause()
        found = split_words(pilot.app)
        # Wide enough for its longest word, the text wraps between words.
        folded.styles.width = 12
        await pilot.pause()
        whole = split_words(pilot.app)
    assert any("'generated' broken" in f for f in found), found
    assert whole == []


@pytest.mark.parametrize("scrolls", [False, True])
async def test_a_line_laid_out_below_a_pane_that_does_not_scroll_is_found(scrolls: bool) -> None:
    # Six lines in a pane of four: the last two lie under it, reached only where it scrolls.
    lines = [Static(f"line {k}", id=f"line{k}") for k in range(6)]
    pane = (VerticalScroll if scrolls else Vertical)(*lines, id="pane")
    pane.styles.height = 4
    async with One(pane).run_test(size=SIZE) as pilot:
        await pilot.pause()
        found = out_of_reach(pilot.app)
    if scrolls:
        assert found == [], found
    else:
        assert [f.split(" at ")[0] for f in found] == ["Static#line4", "Static#line5"], found

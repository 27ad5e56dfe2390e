"""Review's title gives the reviewer's place in the queue with the count's thousands
separators ("1/1,720"), and the every-screen check flags a count of 1,000 or more drawn
without them, a place in a list among them, ids and years aside."""

from __future__ import annotations

import pytest
from surface_text import bare_counts
from textual.app import App, ComposeResult
from textual.widgets import Static

from diptych.tui.review.panels import title_text


def test_the_title_separates_the_queues_length() -> None:
    # A queue of 1,720 people (the example audit's run), the first of them shown.
    title = title_text(
        "pst-text-18101709",
        list(range(1720)),
        0,
        labelled=0,
        include_unlabelled=False,
        reason=None,
        annotator="human:ana",
        blind=False,
    )
    assert title == "Review pst-text-18101709 · 1/1,720 · reviewer ana · 0 labelled · all reasons"
    # The last of them: both sides of the slash counted.
    last = title_text("r", list(range(1720)), 1719, labelled=0, include_unlabelled=False,
                      reason=None, annotator=None, blind=False)  # fmt: skip
    assert last.startswith("Review r · 1,720/1,720 · ")
    # A reviewer who has labelled more than a thousand people reads the count separated too.
    busy = title_text("r", list(range(1720)), 0, labelled=1234, include_unlabelled=False,
                      reason=None, annotator="human:ana", blind=False)  # fmt: skip
    assert "reviewer ana · 1,234 labelled ·" in busy


class Line(App[None]):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Static(self.text)


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("Review pst-text-18101709 · 1/1720 · reviewer ana", ["1/1720"]),
        ("Review pst-text-18101709 · 1/1,720 · reviewer ana", []),
        ("6,560 trials planned, 656 stored, 5904 not bought", ["5904"]),
        ("run 0663f62e, seed 1234, created 2026-11-29, runs/2024/a", []),
    ],
)
async def test_the_check_flags_a_bare_count(text: str, flagged: list[str]) -> None:
    app = Line(text)
    async with app.run_test(size=(80, 3)) as pilot:
        await pilot.pause()
        found = bare_counts(app)
        assert len(found) == len(flagged), found
        assert all(f in p for f, p in zip(flagged, found, strict=True)), found


def test_the_title_always_says_which_reasons_are_shown() -> None:
    """At every width the title names the filter in force ("all reasons" or the reason
    chosen): where the line is too short for it, the title wraps between its phrases, the
    filter whole on the next row, rather than leave it unsaid."""

    def title(width: int | None, reason: str | None = None) -> str:
        return title_text("pst-text-18101709", list(range(164)), 0, labelled=0,
                          include_unlabelled=True, reason=reason, annotator="human:newcomer",
                          blind=False, width=width)  # fmt: skip

    full = "Review pst-text-18101709 · 1/164 · reviewer newcomer · 0 labelled · +unlabelled"
    assert title(None) == f"{full} · all reasons"
    for width in [20, 58, 60, 66, 68, len(full) + 13, len(full) + 14, 120]:
        phrases = title(width).replace("\n", " · ").split(" · ")
        assert phrases[-1].startswith("all reasons"), (width, title(width))
        named = title(width, "no_human_label").replace("\n", " · ").split(" · ")
        assert named[-1].startswith("no human label"), (width, title(width, "no_human_label"))

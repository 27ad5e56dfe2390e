"""The paper checks find each block of the page where it prints (:mod:`tests.support.surfaces.
placing`), on words planted as ``pdftotext -bbox-layout`` reads them: a table's cells out of
order, and the same row's text again in an appendix."""

from __future__ import annotations

from typing import Any

from tests.support.surfaces.placing import place
from tests.support.surfaces.printed_words import Word


def _line(text: str, page: int, top: float, left: float = 40.0) -> list[Word]:
    """The words of ``text`` side by side on one line."""
    words = []
    for n, t in enumerate(text.split()):
        x = left + 60 * n
        words.append(Word(t, page, x, top, x + 50, top + 10))
    return words


def _element(kind: str, text: str) -> dict[str, Any]:
    return {"kind": kind, "text": text}


ROW = "STS paired −0.55 [−2.58, 1.48] 1,600 prompts in 400 unordered scenes"
ELEMENTS = [
    _element("heading", "Figures with their intervals"),
    _element("row", "figure value 95% interval n"),
    _element("row", ROW),
    _element("row", "STS single −11.1 [−23.9, 2.05] 40 prompts"),
    _element("row", "gap paired − single 18.3 [−0.61, 35.8] 1,720 answers"),
    _element("heading", "Appendix B: Full tables"),
    _element("row", "figure value 95% interval n"),
    _element("row", ROW),
]


def _printed() -> list[Word]:
    """Page 1: the table as pdftotext reads it, the header's last cell (“n”, a narrow column)
    after the first row's words, the second row's label after its numbers; page 2: the
    appendix, holding the first row's text again."""
    header = _line("figure value 95% interval n", 0, 60)
    first = _line(ROW, 0, 80)
    single = _line("STS single −11.1 [−23.9, 2.05] 40 prompts", 0, 100)
    return [
        *_line("Figures with their intervals", 0, 40),
        *header[:4],
        *first[:7],
        header[4],
        *first[7:],
        *single[2:],
        *single[:2],
        *_line("gap paired − single 18.3 [−0.61, 35.8] 1,720 answers", 0, 120),
        *_line("Appendix B: Full tables", 1, 40),
        *_line("figure value 95% interval n", 1, 60),
        *_line(ROW, 1, 80),
    ]


def test_a_row_is_found_in_its_table_not_where_its_text_stands_again() -> None:
    words = _printed()
    placed = {id(p.element): p for p in place(words, ELEMENTS)}
    where = [
        (words[placed[id(e)].first].text, placed[id(e)].page) if id(e) in placed else None
        for e in ELEMENTS
    ]
    assert where == [
        ("Figures", 0),
        ("figure", 0),
        ("STS", 0),
        ("STS", 0),
        ("gap", 0),
        ("Appendix", 1),
        ("figure", 1),
        ("STS", 1),
    ]
    # Each row at its own words: the first row's label, not the second's.
    firsts = [placed[id(e)].first for e in ELEMENTS]
    assert len(set(firsts)) == len(firsts)
    assert words[firsts[3] + 1].text == "single"


def test_a_glossary_term_is_found_where_it_starts_a_line() -> None:
    """“STS”, a term of the glossary, ends the line of the term before it (“expected STS”, in
    its text's last line): it is found on its own line."""
    words = [
        *_line("Glossary", 0, 20),
        *_line("expected STS", 0, 40),
        *_line("The STS a model would score on average.", 0, 55, left=52),
        *_line("STS", 0, 75),
        *_line("Stereotype Test Score.", 0, 90, left=52),
    ]
    elements = [
        _element("heading", "Glossary"),
        _element("heading", "expected STS"),
        _element("heading", "STS"),
    ]
    placed = place(words, elements)
    assert [(p.first, p.page) for p in placed] == [(0, 0), (1, 0), (11, 0)]


def test_a_paragraph_split_over_two_pages_is_found_whatever_its_lines() -> None:
    """A run's line of two lines, one at a page's foot and one at the next page's top, is split;
    so is a table's caption of three lines, two at a page's foot and one on the next page, a
    paragraph of the text of three lines likewise, and a caption of four, two and two; not a
    paragraph of the text of four, two and two."""
    from tests.support.surfaces.flow import Placed
    from tests.support.surfaces.paper import _paragraph_problems
    from tests.support.surfaces.printed_words import Printed

    run = "Run pst-text-1 · status decided at look 1 of 4, bought on since: 55 of 156 requests"
    two = _line(run, 0, 780) + _line("101 not bought", 1, 46)
    split = Placed(_element("para", run), 0, len(two) - 1, 0, 1, "Run pst-text-1")
    assert _paragraph_problems(Printed(two, [842, 842]), split) == [
        "paragraph split over pages 1 and 2 (1 on page 1, 1 on page 2): “Run pst-text-1”"
    ]
    note = "STS = mean Stereo × 100 (+100: every label matches the stereotype)."
    three = _line(note, 0, 760) + _line(note, 0, 774) + _line("of 4.", 1, 46)
    caption = Placed(
        {**_element("para", note), "caption": True}, 0, len(three) - 1, 0, 1, "STS = mean Stereo"
    )
    assert _paragraph_problems(Printed(three, [842, 842]), caption) == [
        "paragraph split over pages 1 and 2 (2 on page 1, 1 on page 2): “STS = mean Stereo”"
    ]
    # A paragraph of the text of three lines, two at a page's foot and one on the next page,
    # is split: a line alone at a page's top is a fragment the reader turns a page for.
    short = Placed(_element("para", note), 0, len(three) - 1, 0, 1, "STS = mean Stereo")
    assert _paragraph_problems(Printed(three, [842, 842]), short) == [
        "paragraph split over pages 1 and 2 (2 on page 1, 1 on page 2): “STS = mean Stereo”"
    ]
    # A paragraph of the text broken between its lines, two on each page, is not split.
    four = three + _line("of 4.", 1, 60)
    body = Placed(_element("para", note), 0, len(four) - 1, 0, 1, "STS = mean Stereo")
    assert _paragraph_problems(Printed(four, [842, 842]), body) == []
    held = Placed({**body.element, "caption": True}, 0, len(four) - 1, 0, 1, "STS = mean Stereo")
    assert len(_paragraph_problems(Printed(four, [842, 842]), held)) == 1

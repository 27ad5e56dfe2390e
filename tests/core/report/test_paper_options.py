"""An option named in a report's prose (``--until-decided``) never prints broken at one of its
hyphens, and copying it gives its ASCII hyphens (:mod:`tests.support.surfaces.flags`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from diptych.core.report.render import code_spans
from diptych.core.report.whole_ids import keep_ids_whole
from tests.support.surfaces.flags import broken_option_problems
from tests.support.surfaces.planted import planted_page
from tests.support.surfaces.printed_words import Word, read_pdf

pytestmark = pytest.mark.surface

#: A line 150 px wide of 16 px monospace (9.6 px a character): "aaaa --until-" (13 characters)
#: fits, "aaaa --until-decided" (20) does not, so a line may only break inside the option.
_NARROW = "<p style='width:150px;font:16px/20px monospace'>{}</p><p>end</p>"
_SENTENCE = "aaaa `--until-decided` bbbb"


def _printed(tmp_path: Path, body: str) -> list[Word]:
    from diptych.core.report.pdf import print_pdf

    html = planted_page(tmp_path, body)
    return read_pdf(print_pdf(html, tmp_path / "page.pdf")).words


def _report_css() -> str:
    from importlib.resources import files

    css = files("diptych.core.report") / "templates" / "report.css"
    return f"<style>{css.read_text(encoding='utf-8')}</style>"


def test_an_option_broken_at_its_hyphen_is_found(tmp_path: Path) -> None:
    """Planted: plain text breaks after a hyphen, as Chromium does with any word."""
    words = _printed(tmp_path, _NARROW.format("aaaa --until-decided bbbb"))
    (found,) = broken_option_problems(words)
    assert "“--until-” / “decided”" in found
    # The same words on one line: nothing found.
    wide = tmp_path / "wide"
    wide.mkdir()
    assert broken_option_problems(_printed(wide, "<p>aaaa --until-decided bbbb</p>")) == []


def _as_written(sentence: str) -> str:
    """A sentence as the report's page holds it: its code spans, its ids and options kept."""
    return keep_ids_whole(str(code_spans(sentence)), [])


@pytest.mark.parametrize("sentence", [_SENTENCE, _SENTENCE.replace("`", "")])
def test_an_option_in_a_sentence_prints_whole(tmp_path: Path, sentence: str) -> None:
    """A sentence as the report writes it (an option in code, or in plain words), with the
    report's style, on the same narrow line: the option moves whole to the next line."""
    words = _printed(tmp_path, _report_css() + _NARROW.format(_as_written(sentence)))
    assert broken_option_problems(words) == []
    lines = [w.text for w in words if w.text.startswith("--")]
    assert lines == ["--until-decided"], [w.text for w in words]


def test_copying_an_option_gives_ascii_hyphens(tmp_path: Path, browser: Any) -> None:
    html = planted_page(tmp_path, _report_css() + f"<p>{_as_written(_SENTENCE)}</p>")
    page = browser.new_page()
    try:
        page.goto(html.resolve().as_uri(), wait_until="load")
        copied = page.evaluate(
            """() => { const r = document.createRange();
                       r.selectNodeContents(document.querySelector('code'));
                       const s = getSelection(); s.removeAllRanges(); s.addRange(r);
                       return s.toString(); }"""
        )
    finally:
        page.close()
    assert copied == "--until-decided"

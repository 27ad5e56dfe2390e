"""A printed command breaks only between its words: each option's name is kept whole."""

from __future__ import annotations

import html
import re

from diptych.core.report.render import command_html


def test_each_option_is_kept_whole_and_the_text_is_unchanged() -> None:
    command = (
        "diptych --store ../.diptych audit run ../examples/audits/smollm2-offline.yaml "
        "--until-decided --batches 10 -p masculine=a<b --out reproduced"
    )
    html = str(command_html(command))
    assert re.findall(r'<span class="option">(.*?)</span>', html) == [
        "--store", "--until-decided", "--batches", "-p", "--out"
    ]  # fmt: skip
    # A hyphen inside a path or a value is not an option; text is escaped, and nothing else
    # changes: the command copied from the page is the command.
    assert "smollm2-offline.yaml" in html and "a&lt;b" in html
    text = re.sub(r"<[^>]+>", "", html).replace("&lt;", "<")
    assert text == command


def test_a_path_breaks_only_after_its_slashes_never_at_a_hyphen_in_a_file_name() -> None:
    command = (
        "diptych audit run /home/a-reader/examples/audits/smollm2-offline.yaml --until-decided"
    )
    html = str(command_html(command))
    kept = re.findall(r'<span class="nowrap">(.*?)</span>', html)
    assert kept == ["diptych", "audit", "run", "/", "home/", "a-reader/", "examples/", "audits/",
                    "smollm2-offline.yaml"]  # fmt: skip
    # A break is offered only after a slash; a word's hyphen is inside one kept piece.
    assert html.count("<wbr>") == 5
    assert re.sub(r"<[^>]+>", "", html) == command


def test_a_list_breaks_only_after_its_commas_never_inside_an_item() -> None:
    command = (
        "diptych run pst-text -p masculine=carpenter,farmer,construction-worker "
        "--gate 'STS paired (expected from P(he), P(she)) below 95'"
    )
    shown = str(command_html(command))
    kept = [html.unescape(k) for k in re.findall(r'<span class="nowrap">(.*?)</span>', shown)]
    assert kept[3:6] == ["masculine=carpenter,", "farmer,", "construction-worker"]
    assert "P(he)," in kept
    assert html.unescape(re.sub(r"<[^>]+>", "", shown)) == command

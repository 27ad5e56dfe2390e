"""A printed command breaks only between its words: each option's name is kept whole."""

from __future__ import annotations

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

"""A run id (or a probe's name) on paper as one token: printed whole on one line, never broken
at a hyphen (or anywhere) with its parts on two lines or two pages, where a reader copying it
from the page gets half of it (:mod:`.paper` runs this on every PDF the surface tests write).

The ids are the report's own (its runs' ids in ``report.json``, and every ``code.run-id`` of the
page); their splits are found in the PDF's words read with ``pdftotext -bbox-layout``: a word
ending with the id's first characters and, among the words after it, one on another line (or
page) starting with the rest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from diptych.core.report.whole_ids import kept_audit_names, kept_model_ids, kept_probe_names
from tests.support.surfaces.whole_intervals import breakable_intervals, intervals_broken_on_paper

#: The page's run ids as printed (a table's, a note's, a heading's).
RUN_IDS = """() => [...new Set([...document.querySelectorAll('.run-id')]
  .map(e => (e.textContent || '').trim()).filter(Boolean))]"""
#: The page's links as printed (Appendix C's frameworks): each may break only after a ``/``.
LINKS = """() => [...new Set([...document.querySelectorAll('.url')]
  .map(e => (e.textContent || '').trim()).filter(Boolean))]"""
#: The page's dates (``2026-11-29``) as printed in its text: each printed on one line.
DATES = r"""() => [...new Set(document.body.innerText.match(/(?<![\w-])\d{4}-\d{2}-\d{2}(?![\w-])/g)
  || [])]"""
#: The words of the page's commands that could break (a path, a file's name, a list), and each
#: piece of a path between its ``/`` and of a list between its ``,``: a command may break between
#: its words and after a ``/`` or a ``,``, nowhere else (never as ``smollm2-`` / ``offline.yaml``
#: nor ``carpen`` / ``ter``).
COMMAND_WORDS = r"""() => [...new Set([...document.querySelectorAll('pre code')]
  .flatMap(e => (e.textContent || '').split(/\s+/)).flatMap(w => [w, ...w.split(/[\/,]/)])
  .filter(w => w.length > 3 && /[-._=]/.test(w)))]"""
#: How many words after an id's first part its rest is looked for: a table cell's second line
#: is read right after its first, or after the rest of the row's first line.
WINDOW = 12
#: An id's first part at least this long is looked for ("pst-", not "p").
LEAST_PART = 3


class Word(Protocol):
    text: str
    page: int
    y0: float
    y1: float


def report_ids(report_dir: Path, page_ids: list[str]) -> list[str]:
    """The report's run ids, its probes' names and its models' ids (those kept whole):
    ``report.json``'s and the page's (``page_ids``, :data:`RUN_IDS`)."""
    ids = set(page_ids)
    data = report_dir / "report.json"
    if data.is_file():
        written: dict[str, Any] = json.loads(data.read_text(encoding="utf-8"))
        scope = written.get("scope")
        ids.update(kept_audit_names(scope if isinstance(scope, dict) else {}))
        for run in [written, *(written.get("runs") or [])]:
            if isinstance(run, dict) and isinstance(run.get("run"), str):
                ids.add(run["run"])
            if isinstance(run, dict) and isinstance(run.get("probe"), str):
                ids.update(kept_probe_names([run["probe"]]))
            for model in run.get("models") or [] if isinstance(run, dict) else []:
                if isinstance(model, dict) and isinstance(model.get("model_id"), str):
                    ids.update(kept_model_ids([model["model_id"]]))
    return sorted(i for i in ids if len(i) > LEAST_PART)


def whole_word_problems(page: Any, report_dir: Path, words: list[Word]) -> list[str]:
    """Each run id, probe's name, model's or audit's id, link, date, command's word and interval
    of the page open in ``page`` (the report in ``report_dir``) split where it may not be, among
    the PDF's ``words``, and each interval the page lets a line break inside
    (:mod:`.whole_intervals`)."""
    ids = report_ids(report_dir, page.evaluate(RUN_IDS))
    problems = split_id_problems(words, ids)
    problems += split_id_problems(words, page.evaluate(LINKS), breaks="/")
    problems += split_id_problems(words, page.evaluate(DATES), kind="date")
    commands = page.evaluate(COMMAND_WORDS)
    problems += split_id_problems(words, commands, breaks="/,", kind="command's word")
    return problems + breakable_intervals(page) + intervals_broken_on_paper(words)


def split_id_problems(
    words: list[Word], ids: list[str], breaks: str = "", kind: str = ""
) -> list[str]:
    """Each id printed over two lines or two pages, with where its parts print; a link
    (``breaks="/"``) may break after one of ``breaks``, nowhere else. ``kind`` names what
    is split (a run id, or a link where there are ``breaks``)."""
    problems = []
    for n, word in enumerate(words):
        for run_id in ids:
            if run_id in word.text:
                continue
            split = _split(words, n, run_id, breaks, kind)
            if split is not None:
                problems.append(split)
    return problems


def _split(words: list[Word], n: int, run_id: str, breaks: str, kind: str) -> str | None:
    """Where ``run_id`` prints as word ``n``'s end and a later word's start on another line,
    cut elsewhere than after one of ``breaks``."""
    word = words[n]
    for cut in range(LEAST_PART, len(run_id)):
        allowed = run_id[cut - 1] in breaks and run_id[cut] not in breaks
        if allowed or not word.text.endswith(run_id[:cut]):
            continue
        rest = run_id[cut:]
        for later in words[n + 1 : n + 1 + WINDOW]:
            # A link's rest may itself run over more lines: its next line starts the rest.
            went_on = bool(breaks) and len(later.text) >= LEAST_PART and rest.startswith(later.text)
            if (later.text.startswith(rest) or went_on) and _other_line(word, later):
                where = (
                    f"on pages {word.page + 1} and {later.page + 1}"
                    if later.page != word.page
                    else f"over two lines of page {word.page + 1}"
                )
                kind = kind or ("link" if breaks else "run id")
                return f"{kind} “{run_id}” split {where}: “{run_id[:cut]}” / “{rest}”"
    return None


def _other_line(one: Word, two: Word) -> bool:
    """Whether ``two`` prints on another line (or page) than ``one``: below its middle."""
    return two.page != one.page or two.y0 > (one.y0 + one.y1) / 2

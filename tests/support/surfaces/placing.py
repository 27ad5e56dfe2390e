"""Where each block of the page laid out for print prints in the PDF's words (:mod:`.paper`).

pdftotext reads a page in its own order: a table's cells may come column by column (a row's
numbers before its label, a header's last cell after the first row), and a row's text may stand
again in an appendix or a list further on. So the blocks are placed in two passes, in document
order. The headings (and the contents, which names them all) first, each at the start of a line,
searched forward from the one before it: they cut the words into sections. Then every other
block inside its own section, searched forward from the block before it and, failing that, from
the section's start, never at a word another block was found at: a row whose words print out of
order is found in its table, not at the first place its words stand anywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from tests.support.surfaces.flow import Placed

#: A text of more words is found by its first :data:`ANCHOR` words (and its last few).
LONG = 12
ANCHOR = 3


class Boxed(Protocol):
    """A word as pdftotext prints it (:class:`.printed_words.Word`)."""

    text: str
    page: int
    x0: float
    y0: float
    x1: float
    y1: float


def tokens_of(text: str) -> list[str]:
    return [t for t in text.split() if t]


def same(word: str, token: str) -> bool:
    # A word split at a line's end (or joined to its punctuation) is matched by containment,
    # both sides long enough that "a" is never found inside "Provenance".
    return word == token or (min(len(word), len(token)) > 3 and (token in word or word in token))


def match(
    words: Sequence[Boxed],
    tokens: list[str],
    start: int,
    window: int = 10,
    stop: int | None = None,
    ok: Callable[[int], bool] | None = None,
) -> list[int] | None:
    """The indices of the words ``tokens`` print as, in order, the first at or after ``start``
    and at most at ``stop`` (and one ``ok`` accepts): a token may print split or joined at a
    line's end, so each is matched by containment, each within ``window`` words of the one
    before it."""
    if not tokens:
        return None
    end = len(words) - 1 if stop is None else min(stop, len(words) - 1)
    for i in range(max(start, 0), end + 1):
        if not same(words[i].text, tokens[0]) or (ok is not None and not ok(i)):
            continue
        found = [i]
        for token in tokens[1:]:
            k = _next(words, token, found[-1], window)
            if k is None:
                break
            found.append(k)
        else:
            return found
    return None


def _next(words: Sequence[Boxed], token: str, after: int, window: int) -> int | None:
    """The first word within ``window`` words after ``after`` that prints ``token``."""
    for k in range(after + 1, min(len(words), after + window)):
        if same(words[k].text, token):
            return k
    return None


def find(
    words: Sequence[Boxed], tokens: list[str], start: int, window: int = 10
) -> tuple[int, int] | None:
    """Where ``tokens`` print, in order, from ``start``: the index of the first and the last."""
    found = match(words, tokens, start, window)
    return (found[0], found[-1]) if found else None


def starts_line(words: Sequence[Boxed], i: int) -> bool:
    """Whether no word of its page prints left of word ``i`` on its line."""
    w = words[i]
    middle = (w.y0 + w.y1) / 2
    for k in range(i - 1, -1, -1):
        other = words[k]
        if other.page != w.page:
            break
        if other.y0 < middle < other.y1 and other.x1 <= w.x0 + 0.5:
            return False
    for k in range(i + 1, len(words)):
        other = words[k]
        if other.page != w.page:
            break
        if other.y0 < middle < other.y1 and other.x1 <= w.x0 + 0.5:
            return False
    return True


def _span(words: Sequence[Boxed], tokens: list[str], found: list[int]) -> tuple[int, int]:
    """The first and last word of a text found by its anchor: a long text's last few words
    end it where they print within about its length (twice it, its words interleaved with
    another's): further on they are another block's (a table's header repeated on the next
    page)."""
    first, last = found[0], found[-1]
    if len(tokens) > LONG:
        tail = find(words, tokens[-6:], last + 1)
        if tail is not None and tail[1] - first <= 2 * len(tokens) + 10:
            last = tail[1]
    return first, last


def _search(
    words: Sequence[Boxed],
    element: dict[str, Any],
    starts: tuple[int, int],
    stop: int,
    used: set[int],
) -> list[int] | None:
    """Where a block other than a heading prints, starting at a word no other block was found
    at: by all its words (a long text by its first few), else by its first few (a short text
    whose cells print out of order), else, for a row, by its first two (its label); each from
    each of ``starts`` in turn (the word after the block before it, the section's first), up
    to ``stop``."""
    tokens = tokens_of(element["text"])
    tries = [tokens if len(tokens) <= LONG else tokens[:ANCHOR]]
    if ANCHOR < len(tokens) <= LONG:
        tries.append(tokens[:ANCHOR])
    if element["kind"] == "row" and len(tokens) > 2:
        tries.append(tokens[:2])
    for anchor in tries:
        for start in starts:
            found = match(words, anchor, start, 10, stop, lambda i: i not in used)
            if found is not None:
                return found
    return None


def _anchors(element: dict[str, Any]) -> bool:
    return element["kind"] == "heading" or bool(element.get("contents"))


def place(words: Sequence[Boxed], elements: list[dict[str, Any]]) -> list[Placed]:
    """Each element where its words print (those not found are left out), in document order."""
    at: dict[int, tuple[int, int]] = {}
    cursor = 0
    for n, element in enumerate(elements):
        if not _anchors(element):
            continue
        tokens = tokens_of(element["text"])
        anchor = tokens if len(tokens) <= LONG else tokens[:ANCHOR]
        found = match(words, anchor, cursor, 2, ok=lambda i: starts_line(words, i))
        if found is not None:
            at[n] = _span(words, tokens, found)
            cursor = at[n][1] + 1
    # No other block starts at a heading's words, nor inside the contents.
    used = {i for first, last in at.values() for i in range(first, last + 1)}
    section = cursor = 0
    for n, element in enumerate(elements):
        if n in at:
            section = cursor = at[n][1] + 1
            continue
        if _anchors(element):
            continue
        # The section ends at the next heading found (a block may end past its first word).
        stop = next((at[m][0] for m in sorted(at) if m > n), len(words) - 1)
        found = _search(words, element, (cursor, section), stop, used)
        if found is None:
            continue
        used.update(found)
        at[n] = _span(words, tokens_of(element["text"]), found)
        cursor = at[n][1] + 1
    placed = []
    for n, element in enumerate(elements):
        if n not in at:
            continue
        first, last = at[n]
        what = " ".join(tokens_of(element["text"])[:8])
        placed.append(Placed(element, first, last, words[first].page, words[last].page, what))
    return placed

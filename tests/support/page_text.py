"""A report's HTML read as its reader reads it: the text, not the markup around it.

The page wraps a run id, a date, an option's name and an interval in a span that keeps it on
one line (:mod:`diptych.core.report.whole_ids`): "11.6, 95% interval
``<span class="nowrap">``4.79 to 18.2``</span>``". A test that looks for a sentence or a figure
with its interval reads :func:`page_text`, where that span leaves its text in place; one that
reads what an element holds (a figure's line) reads :func:`class_texts`."""

from __future__ import annotations

from html.parser import HTMLParser

#: Elements read as part of the line they stand in: their tags leave nothing between the words
#: around them. Any other tag (a cell's, a paragraph's, a line break) stands for a space.
INLINE = {"a", "abbr", "b", "code", "em", "i", "small", "span", "strong", "sub", "sup", "wbr"}
#: Elements whose content is no text of the page.
_SKIPPED = {"script", "style", "head"}
#: Elements that have no end tag.
_VOID = {"br", "img", "meta", "link", "input", "hr", "col", "wbr", "source", "area"}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        #: Each open element's tag, and the index in ``parts`` where the element of a class
        #: asked for began (None for others).
        self.open: list[tuple[str, int | None]] = []
        self.wanted = ""
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self.skip += 1
        if tag not in INLINE:
            self.parts.append(" ")
        if tag in _VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        self.open.append((tag, len(self.parts) if self.wanted in classes else None))

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self.skip -= 1
        if tag not in INLINE:
            self.parts.append(" ")
        for n in range(len(self.open) - 1, -1, -1):
            if self.open[n][0] == tag:
                for _, start in reversed(self.open[n:]):
                    if start is not None:
                        self.found.append(" ".join("".join(self.parts[start:]).split()))
                del self.open[n:]
                break

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def page_text(html: str) -> str:
    """The text of ``html`` as a reader reads it: the tags of the spans, links and code that
    stand within a line gone (their text in place), any other tag a space, entities read
    ("&#39;" as "'"), the head, scripts and styles left out."""
    reader = _Text()
    reader.feed(html)
    reader.close()
    return "".join(reader.parts)


def class_texts(html: str, name: str) -> list[str]:
    """The text of each element of class ``name`` in ``html``, as :func:`page_text` reads it
    (its spaces collapsed), in the order the elements end."""
    reader = _Text()
    reader.wanted = name
    reader.feed(html)
    reader.close()
    return reader.found

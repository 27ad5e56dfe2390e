"""A table a page prints with nothing in it."""

from __future__ import annotations

import re

#: A Markdown table's header and rule: the rows follow at once.
_MD_TABLE_HEAD = re.compile(r"^\|.*\|\n\|(?:\s*:?-+:?\s*\|)+\n(?!\|)", re.MULTILINE)
_HTML_TABLE = re.compile(r"<table\b.*?</table>", re.DOTALL)


def empty_table_problems(page: str, markdown: bool = False) -> list[str]:
    """Each table printed with a header and no row: a page says where a table has nothing to
    hold in a sentence, never with an empty table under its heading."""
    if markdown:
        heads = [m.group(0).splitlines()[0] for m in _MD_TABLE_HEAD.finditer(page)]
    else:
        heads = [t[:120] for t in _HTML_TABLE.findall(page) if "<th" in t and "<td" not in t]
    return [f"a table with a header and no row: {head}" for head in heads]

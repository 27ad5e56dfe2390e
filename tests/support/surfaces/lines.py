"""Printed rows read as lines: where a terminal or a widget wrapped a line between words, the
reader reads on; where the text itself broke the line, the reader stops. A count and its noun
("2 runs") are judged on the line a reader reads, not across a break ("failed 0" over "run …")."""

from __future__ import annotations

from rich.cells import cell_len


def read_lines(rows: list[str], width: int | None = None) -> list[str]:
    """``rows`` as a reader reads them: a row the next row's first word would not have fitted
    on was wrapped there (a console of ``width`` columns, a widget's box, wraps between words)
    and reads on into the next; any other row ends where its text broke the line. With no
    ``width`` (a console writing to no terminal wraps nothing), every row is a line."""
    lines: list[str] = []
    before = ""
    for row in rows:
        words = row.split()
        wrapped = (
            width is not None
            and bool(lines and before.strip() and words)
            and cell_len(before.rstrip()) + 1 + cell_len(words[0]) > width
        )
        if wrapped:
            lines[-1] = f"{lines[-1].rstrip()} {row.strip()}"
        else:
            lines.append(row)
        before = row
    return lines

"""How values are written on screen: short, absolute (never "3 minutes ago") and stable.

Numbers go through the report's formatter (:mod:`diptych.core.report.formatting`), so that a
figure reads the same digits in the terminal app, the CLI, the report and its JSON."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any

from diptych.core.report.formatting import (
    FLOOR_MARK,
    bounds,
    counted,
    dollars,
    figure_text,
    floor_pairings,
    percent_text,
)
from diptych.core.report.quick_look import QUICK_LOOK, QUICK_LOOK_MARK, quick_look


def narrow_floor_note(numbers: Mapping[str, Mapping[str, Any]]) -> str:
    """What the mark beside an interval at its floor means, in a line of a narrow pane
    (Review's figures, after them on their last line; Run detail's, under its table): the
    pairings it resampled, counted where one count holds for every marked figure, and whom it
    speaks for. `diptych show` and the report say it at length."""
    counts = {floor_pairings(n) for n in numbers.values() if n.get("floor")}
    (count,) = counts if len(counts) == 1 else (None,)
    pairings = counted(count, "pairing") if count is not None else "their pairings"
    return f"{FLOOR_MARK} rests on {pairings} only: these identities"


def timestamp(seconds: float) -> str:
    """Local date and time to the minute; absolute, so a screen does not change by itself."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def number(value: Any) -> str:
    """A figure: one decimal from 10 up, two below (:func:`figure_text`)."""
    return figure_text(value)


def interval(low: Any, high: Any) -> str:
    return bounds(low, high)


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, with an ellipsis when cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def wrap_path(text: str, width: int) -> str:
    """``text`` (a sentence ending in a path) broken into lines of at most ``width`` cells,
    only after a space or a path separator: the terminal would cut a path mid-name, and a
    reader copying it would not know where. A piece longer than a line is cut at the width."""
    pieces = re.findall(r"[^ /]*[ /]|[^ /]+$", text)
    lines, line = [], ""
    for piece in pieces:
        if line and len(line) + len(piece.rstrip(" ")) > width:
            lines.append(line.rstrip(" "))
            line = ""
        while len(piece) > width > 0:
            lines.append(piece[:width])
            piece = piece[width:]
        line += piece
    lines.append(line.rstrip(" "))
    return "\n".join(lines)


def percent(part: int, whole: int) -> str:
    """``part`` of ``whole`` by the one rule of digits ("21.7%", as the CLI's standings say it);
    a share not yet whole never rounds up to "100.0%"."""
    if whole <= 0:
        return "—"
    text = percent_text(part / whole)
    return "99.9%" if part < whole and text == percent_text(1.0) else text


__all__ = ["clip", "dollars", "interval", "number", "percent", "timestamp", "wrap_path"]


def path_in_width(path: str, width: int) -> str:
    """``path`` in ``width`` cells: whole when it fits, else its last folders after "…/"."""
    if len(path) <= width or "/" not in path.strip("/"):
        return path
    parts = path.split("/")
    kept = parts[-1]
    for part in reversed(parts[:-1]):
        if len(f"…/{part}/{kept}") > width:
            break
        kept = f"{part}/{kept}"
    return f"…/{kept}"


#: A gate's interval as it is named at length ("95% anytime-valid interval, look 1 of 10").
DECIDED_NAME = re.compile(
    r"(\d[\d.]*%) (\S+) interval"
    r"(?:, (look [\d,]+ of [\d,]+|the whole design read at look [\d,]+))?"
)


#: A fixed-design interval named as not holding after a design's early stop ("fixed-design;
#: does not hold after the stop at look 1 of 10"), or many so named ("…; do not hold …").
STOPPED_NAME = re.compile(
    r"fixed-design; do(?:es)? not hold after the stop at look ([\d,]+) of ([\d,]+)"
)


def intervals_line(name: str) -> str:
    """The line under a table naming its intervals ("intervals: 95% anytime-valid interval,
    look 1 of 10"); one named as not holding after a design's early stop says so of them all,
    its verb agreeing ("intervals: fixed-design; do not hold after the stop at look 1 of
    10")."""
    return "intervals: " + STOPPED_VERB.sub("; do not hold", name)


#: How an interval's name says it does not hold after a stop, its verb singular or plural.
STOPPED_VERB = re.compile(r"; do(?:es)? not hold\b")


def short_name(name: str) -> str:
    """A gate's interval named in the room of a narrow pane: "95% anytime-valid, look 1 of
    10" (the same level, kind and look, the look in the words every other line uses, which
    the wrapping widgets never part); a fixed-design one on a design stopped early
    "fixed-design, not after stop at look 1 of 10"; the value a run bought on since its look
    has on all its trials after it ("…, look 1 of 10; 11.5 on all 1,424 trials, 656 at look 1
    and 768 stored since")."""
    head, _, since = name.partition("; ")
    if since and DECIDED_NAME.fullmatch(head):
        # Bought on since the look: the value on the trials since stays beside, said whole.
        return f"{short_name(head)}; {since}"
    stopped = STOPPED_NAME.fullmatch(name)
    if stopped is not None:
        return f"fixed-design, not after stop at look {stopped[1]} of {stopped[2]}"
    named = DECIDED_NAME.fullmatch(name)
    if named is None:
        return name
    # The look in the words of :func:`~diptych.core.audit.sequential.look_text`, whole.
    level, kind, look = named.groups()
    return f"{level} {kind}" + (f", {look}" if look else "")


def quick_look_said(numbers: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """What the quick look's mark means, once for each reason the marked figures give (a run's
    figures share its lists, so mostly one line): ``diptych show``'s words after the figure,
    under Run detail's table and Review's figures alike."""
    said = [
        quick_look(num)
        for num in numbers.values()
        if isinstance(num, Mapping) and not num.get("interval_name")
    ]
    return [f"{QUICK_LOOK_MARK} a {QUICK_LOOK}: {why}." for why in dict.fromkeys(said) if why]

"""How the report prints a value, and how it embeds an image in a self-contained page."""

from __future__ import annotations

import base64
import math
import re
from typing import Any

#: Magic bytes of the image formats a page can show inline, and their media types.
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
    (b"RIFF", "image/webp"),
)


def fmt(value: Any) -> str:
    """A value as the report prints it: floats to two decimals, infinities as ``inf``."""
    if isinstance(value, bool) or value is None:
        return "—" if value is None else str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if math.isnan(value):
            return "—"
        return f"{value:.2f}"
    return str(value)


def image_type(data: bytes) -> str | None:
    """The media type of an image's bytes, or None when they are not an image a browser shows."""
    for magic, mime in _IMAGE_MAGIC:
        if data.startswith(magic):
            return mime
    return None


def data_uri(data: bytes, mime: str = "image/png") -> str:
    """The bytes as a ``data:`` URI, so the HTML report needs no file beside it."""
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def figure_text(value: Any) -> str:
    """A figure as the report prints it in every place — findings, gates, the tables of
    figures, charts, actions — so that one figure reads the same digits wherever it stands:
    one decimal from 10 up, two below; ``—`` for none, ``inf`` / ``-inf`` for infinities."""
    if isinstance(value, str) and value in ("inf", "-inf"):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "—" if value is None else str(value)
    number = float(value)
    if not math.isfinite(number):
        return "—" if math.isnan(number) else ("inf" if number > 0 else "-inf")
    return f"{number:,.1f}" if abs(number) >= 10 else f"{number:.2f}"


def interval(number: dict[str, Any]) -> str:
    """``[low, high]`` of a headline figure, or an em dash when it has none. An interval
    narrower than the printed digits (a figure at its bound on a hundred thousand images) has
    its ends rounded outward, so that it never prints as a point."""
    low, high = number.get("ci_low"), number.get("ci_high")
    if low is None or high is None:
        return "—"
    ends = figure_text(low), figure_text(high)
    if ends[0] == ends[1] and _finite_pair(low, high) and float(high) > float(low):
        ends = outward(float(low), float(high))
    return f"[{ends[0]}, {ends[1]}]"


def _finite_pair(low: Any, high: Any) -> bool:
    return all(isinstance(x, int | float) and math.isfinite(x) for x in (low, high))


def outward(low: float, high: float) -> tuple[str, str]:
    """The two ends printed to the digits :func:`figure_text` uses, low rounded down and high
    up: a printed interval of positive width that holds the computed one."""
    places = 1 if min(abs(low), abs(high)) >= 10 else 2
    scale = 10**places
    down, up = math.floor(low * scale) / scale, math.ceil(high * scale) / scale
    if down == up:  # both already on the grid: one step apart at least
        up += 1 / scale
    return f"{down:,.{places}f}", f"{up:,.{places}f}"


def plural(noun: str, count: int = 2) -> str:
    """``noun`` as ``count`` of it reads: "1 identity", "2 identities", "3 image pairs"."""
    if count == 1 or not noun:
        return noun
    if re.search(r"[^aeiou]y$", noun):
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def counted(count: int, noun: str) -> str:
    return f"{count:,} {plural(noun, count)}"


def sample_size(number: dict[str, Any], observation: str = "observation") -> str:
    """What a figure was computed over, named: "1,600 prompts in 400 unordered scenes",
    "16 persons", "2 image pairs". ``observation`` is what one of the probe's observations is
    (:attr:`diptych.core.probe.Probe.observation`); a figure may name its own in ``n_of``."""
    if number.get("n_pairs") is not None:
        unit = str(number.get("unit") or "")
        return f"{number['n_pairs']:,} {unit} pairs".replace("  ", " ")
    n = number.get("n")
    if not isinstance(n, int) or isinstance(n, bool):
        return ""
    noun = str(number.get("n_of") or observation)
    text = counted(n, noun)
    clusters, scenes = number.get("clusters"), number.get("scenes_only")
    within = next(iter(scenes.get("units") or {}), "") if isinstance(scenes, dict) else ""
    if isinstance(clusters, int) and within and clusters != n:
        # pst-text's prompts come in scenes (both orders, every sample): the scenes count too.
        text += f" in {counted(clusters, within)}"
    return text

"""How the report prints a value, and how it embeds an image in a self-contained page."""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Collection, Mapping
from typing import Any

from diptych.core.cost import cost_text
from diptych.core.digits import INFINITE as _INFINITE

# The rule of digits, re-exported: the report and every front end print by this module.
from diptych.core.digits import figure_text as figure_text
from diptych.core.digits import level_text as level_text
from diptych.core.digits import minus as minus
from diptych.core.digits import p_text as p_text
from diptych.core.digits import percent_text as percent_text
from diptych.core.digits import signed_text as signed_text

# The words of a count, re-exported: one home, read by the resampled units too.
from diptych.core.resampled_units import counted as counted
from diptych.core.resampled_units import list_rank
from diptych.core.resampled_units import plural as plural

#: Magic bytes of the image formats a page can show inline, and their media types.
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
    (b"RIFF", "image/webp"),
)


def fmt(value: Any) -> str:
    """Any value as every surface prints it (report, CLI, terminal app): a number as a figure
    (:func:`figure_text`; a whole number with its thousands separators, "1,600"), text as it
    is."""
    if isinstance(value, bool) or value is None:
        return "—" if value is None else str(value)
    if isinstance(value, int | float) or (isinstance(value, str) and value in _INFINITE):
        return figure_text(value)
    return str(value)


#: Table columns that hold p- or q-values.
_P_COLUMNS = re.compile(r"^(p|q|p-value|q-value|p \(.*\)|.* p)$", re.IGNORECASE)


def cell_text(cell: Any, column: Any = "") -> str:
    """A table cell as every surface prints it: :func:`fmt`, and a p- or q-value column's
    floats to three decimals (:func:`p_text`)."""
    if isinstance(cell, float) and _P_COLUMNS.match(str(column).strip()):
        return p_text(cell)
    return fmt(cell)


def image_type(data: bytes) -> str | None:
    """The media type of an image's bytes, or None when they are not an image a browser shows."""
    for magic, mime in _IMAGE_MAGIC:
        if data.startswith(magic):
            return mime
    return None


def data_uri(data: bytes, mime: str = "image/png") -> str:
    """The bytes as a ``data:`` URI, so the HTML report needs no file beside it."""
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def _finite(value: Any) -> bool:
    if isinstance(value, str):
        return value not in _INFINITE
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def interval(number: dict[str, Any]) -> str:
    """``[low, high]`` of a headline figure, or an em dash when it has none: a bound that is
    missing or infinite means no interval was made (a design too small to support one). An
    interval narrower than the printed digits (a figure at its bound on a hundred thousand
    images) has its ends rounded outward, so that it never prints as a point."""
    low, high = number.get("ci_low"), number.get("ci_high")
    if not (_finite(low) and _finite(high)):
        return "—"
    ends = figure_text(low), figure_text(high)
    if ends[0] == ends[1] and isinstance(low, int | float) and isinstance(high, int | float):
        if high > low:
            ends = outward(float(low), float(high))
    named = number.get("interval_name")
    # A gate's interval says which it is: a page never shows a figure with an unnamed second.
    return f"[{ends[0]}, {ends[1]}]" + (f" ({named})" if named else "")


def why_no_interval(reason: Any) -> str:
    """Why a figure has no interval, as every page says it: "one prompt only: no interval" is
    "one prompt only"; empty where no reason was given."""
    text = str(reason or "").strip().rstrip(".")
    for tail in (": no interval", " (no interval)", "; no interval"):
        text = text.removesuffix(tail)
    return text


def no_interval(number: Mapping[str, Any]) -> str:
    """A figure's missing interval with its reason, as the report says it ("no interval (one
    masculine identity only)"); empty where the figure has an interval or no reason is known."""
    if interval(dict(number)) != "—":
        return ""
    why = why_no_interval(number.get("reason"))
    return f"no interval ({why})" if why else ""


#: The mark of an interval that fell to its floor (a crossed design's, over its pairings only),
#: beside the interval in a terminal's table; :func:`floor_notes` says what it means below.
FLOOR_MARK = "†"


def marked_interval(number: dict[str, Any]) -> str:
    """:func:`interval`, marked ``†`` right after its bounds where it fell to its floor:
    "[51.0, 65.4] † (95% anytime-valid interval, look 1 of 10)"; a figure with none says why
    where its number knows (:func:`no_interval`), else an em dash."""
    text = interval(number)
    if text == "—":
        return no_interval(number) or text
    if not number.get("floor") or not text.startswith("["):
        return text
    end = text.index("]") + 1
    return f"{text[:end]} {FLOOR_MARK}{text[end:]}"


def floor_notes(numbers: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """What the mark means, once a figure, in the words of report.json and the Findings:
    "† STS paired (…): resampling its 122 pairings of …, so it speaks for these identities …"."""
    return [
        f"{FLOOR_MARK} {name}: {number['floor']}"
        for name, number in numbers.items()
        if isinstance(number.get("floor"), str) and number["floor"]
    ]


#: What the mark means where a terminal's pane has a few lines to say it (the TUI's Run detail
#: and Review): the figure's own sentence is in `diptych show`, the report and report.json.
FLOOR_NOTE = (
    f"{FLOOR_MARK} the interval fell to its floor: it rests on the pairings of identities seen "
    "and speaks for these identities only (`diptych show` and the report say more)"
)


def floor_note(numbers: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """:data:`FLOOR_NOTE` once where any figure's interval fell to its floor, else nothing."""
    floored = any(isinstance(n.get("floor"), str) and n["floor"] for n in numbers.values())
    return [FLOOR_NOTE] if floored else []


def decided_name(confidence: float, kind: str, look: str = "") -> str:
    """The name of the interval a gate decided on: "95% anytime-valid interval, look 1 of 10"
    (``kind``: ``anytime-valid`` or ``fixed``; ``look``: where an anytime-valid one stopped)."""
    return f"{level_text(confidence)} {kind} interval" + (f", {look}" if look else "")


def outward(low: float, high: float) -> tuple[str, str]:
    """The two ends printed to the digits :func:`figure_text` uses, low rounded down and high
    up: a printed interval of positive width that holds the computed one."""
    places = 1 if min(abs(low), abs(high)) >= 10 else 2
    scale = 10**places
    down, up = math.floor(low * scale) / scale, math.ceil(high * scale) / scale
    if down == up:  # both already on the grid: one step apart at least
        up += 1 / scale
    return minus(f"{down:,.{places}f}"), minus(f"{up:,.{places}f}")


def bounds(low: Any, high: Any) -> str:
    """``[low, high]`` from its two bounds (see :func:`interval`)."""
    return interval({"ci_low": low, "ci_high": high})


def dollars(value: float | None) -> str:
    """Money: dollars and cents, or what a :class:`~diptych.core.cost.Cost` leaves unpriced
    (:func:`~diptych.core.cost.cost_text`, the one wording of a cost)."""
    return cost_text(value)


def tally(counts: Mapping[str, int], *, leave_out: Collection[str] = ()) -> str:
    """Trials by outcome, those with none left out: "1,476 done, 8 failed"."""
    return ", ".join(f"{n:,} {what}" for what, n in counts.items() if n and what not in leave_out)


def sample_size(number: dict[str, Any], observation: str = "observation") -> str:
    """What a figure was computed over, named: "1,600 prompts in 400 unordered scenes",
    "16 persons", "2 image pairs". ``observation`` is what one of the probe's observations is
    (:attr:`diptych.core.probe.Probe.observation`); a figure may name its own in ``n_of``."""
    text = observations(number, observation)
    n = number.get("n")
    if number.get("n_pairs") is not None or not text:
        return text
    clusters, scenes = number.get("clusters"), number.get("scenes_only")
    within = next(iter(scenes.get("units") or {}), "") if isinstance(scenes, dict) else ""
    if isinstance(clusters, int) and within and clusters != n:
        # pst-text's prompts come in scenes (both orders, every sample): the scenes count too.
        text += f" in {counted(clusters, within)}"
    draws = (number.get("units") or {}).get("draw")
    if isinstance(draws, int) and draws != n:
        # A drawn-label figure counts answers (one a person) but resamples draws (both people
        # of a scene drawn once): the count beside it in "what each interval resamples".
        text += f" in {counted(draws, 'draw')}"
    return text


#: The columns of a table of headline figures in a terminal (``diptych show``, Run detail):
#: what ``n`` counts and what the interval resamples, each with its noun.
HEADLINE_COLUMNS = ("figure", "value", "95% interval", "n", "resamples")


def observations(number: Mapping[str, Any], observation: str = "observation") -> str:
    """What the figure's ``n`` counts, with its noun: "1,600 prompts", "16 answers", "2 image
    pairs" — the start of :func:`sample_size`, short enough for a table's cell; "" without one."""
    if number.get("n_pairs") is not None:
        unit = str(number.get("unit") or "")
        return f"{number['n_pairs']:,} {unit} pairs".replace("  ", " ")
    n = number.get("n")
    if not isinstance(n, int) or isinstance(n, bool):
        return ""
    return counted(n, str(number.get("n_of") or observation))


#: How :func:`~diptych.core.metrics.uncertainty.resampling.floor_words`
#: begins: the pairings an interval at its floor resampled.
_FLOOR_PAIRINGS = re.compile(r"^resampling its ([\d,]+) pairings\b")


def floor_pairings(number: Mapping[str, Any]) -> int | None:
    """How many pairings an interval at its floor resampled (its floor's sentence says them);
    None for any other figure."""
    floor = number.get("floor")
    if isinstance(floor, str) and (found := _FLOOR_PAIRINGS.match(floor)):
        return int(found.group(1).replace(",", ""))
    return None


def resampled_count(number: Mapping[str, Any]) -> str:
    """What the figure's interval resamples, counted for a table's cell: "20 + 20 identities"
    (two lists of one noun, masculine first), "6 partners × 3 templates", "800 draws", "4
    pairings" where it fell to its floor (the lists it names are not what it rests on then);
    "—" for a figure without an interval or counts. :func:`sample_size`'s count is of
    observations, often many more than the units the interval resamples."""
    if interval(dict(number)) == "—":
        return "—"
    pairings = floor_pairings(number)
    if pairings is not None:
        return counted(pairings, "pairing")
    units = number.get("units")
    if not isinstance(units, Mapping) or not units:
        return "—"
    counts = {str(k): v for k, v in sorted(units.items(), key=lambda u: list_rank(str(u[0])))}
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in counts.values()):
        return "—"
    nouns = {name.rsplit(" ", 1)[-1] for name in counts}
    if len(counts) > 1 and len(nouns) == 1:
        (noun,) = nouns
        return (
            f"{' + '.join(f'{v:,}' for v in counts.values())} {plural(noun, max(counts.values()))}"
        )
    return " × ".join(counted(v, name) for name, v in counts.items())


#: Why a run asks fewer requests than it has trials, as every surface that prints both says it.
SHARED_REQUESTS = "trials that ask the same prompt, seed and model share one request"


def plan_counts(planned: int, cached: int, to_run: int, *, sep: str = ", ") -> str:
    """A plan in one line: "1,720 trials planned, 236 already stored, 1,412 requests to run".
    What is left is counted in requests, not trials: trials that ask the same thing (the same
    prompt, seed and model) share one request, so the three need not add up."""
    return sep.join(
        (f"{counted(planned, 'trial')} planned", f"{cached:,} already stored",
         f"{counted(to_run, 'request')} to run")
    )  # fmt: skip

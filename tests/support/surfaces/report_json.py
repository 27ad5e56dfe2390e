"""What report.json says where a reader or a dashboard quotes it (headlines' sentences and
intervals, findings, alt texts), read as the page is: no infinite bound or machine word for a
value that is not a number printed in any of its text, and a gated figure's interval named as
the page names it."""

from __future__ import annotations

import math
import re
from typing import Any

#: The JSON's fields that are prose or printed values, read as the page is.
_DISPLAY_KEYS = {"sentence", "text", "alt", "heading", "interval", "sample", "placebo_band"}


#: An infinite bound of an interval as text prints one: "[−∞, 4.2]", "−∞ to ∞", "from −∞";
#: not a value a note defines ("∞ when no other group uses the word", "t is ±∞"), nor a
#: word's count and log-odds in a story table ("**jail** (3, ∞)"): intervals are bracketed.
_INFINITE_BOUND = re.compile(
    r"\[\s*[-−+]?∞|[-−+]?∞\s*\]|[-−+]?∞\s+to\b|\bto\s+[-−+]?∞|\bfrom\s+[-−+]?∞"
)


def infinity_problems(text: str) -> list[str]:
    """An infinite bound printed ("from −∞ to ∞"): a figure with no interval says so and why
    ("no interval (one masculine identity only)"), as the page does."""
    out = []
    for m in _INFINITE_BOUND.finditer(text):
        around = " ".join(text[max(0, m.start() - 40) : m.end() + 40].split())
        out.append(f"{m.group(0).strip()!r} for “no interval (why)” in “{around}”")
    return out


#: A machine's word for a value that is not a number, inside text.
_NOT_A_NUMBER = re.compile(r"(?<![\w-])[-−+]?(inf|infinity|nan)(?![\w-])", re.IGNORECASE)
#: A raw number as the JSON contract spells a value it cannot hold ("inf", "-inf", "nan"): a
#: field of data, not text.
_RAW_NUMBER = re.compile(r"[-+]?(inf|infinity|nan)", re.IGNORECASE)


#: Fields that hold encoded data, never words: a figure's replicates (base64 of compressed
#: numbers, whose letters between "/" and "+" spell anything, "nan" or "identitys" included).
_ENCODED_KEYS = frozenset({"replicates"})


def json_strings(data: Any, where: str = "") -> list[tuple[str, str]]:
    """Every string of report.json (the whole of it, however deep), with where it is
    ("headlines[0].interval"); a raw number spelled as a string ("inf") is data, left out, and
    so is an encoded field (:data:`_ENCODED_KEYS`)."""
    if isinstance(data, dict):
        return [
            t
            for k, v in data.items()
            if k not in _ENCODED_KEYS
            for t in json_strings(v, f"{where}.{k}".lstrip("."))
        ]
    if isinstance(data, list):
        return [t for i, v in enumerate(data) for t in json_strings(v, f"{where}[{i}]")]
    if isinstance(data, str) and not _RAW_NUMBER.fullmatch(data.strip()):
        return [(where, data)]
    return []


def unreadable_number_problems(data: Any) -> list[str]:
    """Every string of report.json that prints an infinite bound ("−∞ to ∞") or a machine's
    word for a value that is not a number ("inf", "nan") where the page says "no interval
    (why)": a dashboard quoting any of its fields quotes what the page says."""
    out = []
    for where, text in json_strings(data):
        out += [f"{where}: {p}" for p in infinity_problems(text)]
        if re.split(r"[.\[]", where.split(".")[-1])[0] in _DISPLAY_KEYS:
            continue  # its words are read with the page's (text.word_problems)
        for m in _NOT_A_NUMBER.finditer(text):
            around = " ".join(text[max(0, m.start() - 40) : m.end() + 40].split())
            out.append(f"{where}: {m.group(0)!r} printed in “{around}”")
    return out


#: A figure's recipe fields a reader computes with: a number or null (``bound_df`` null: not
#: shrunk), never a word such as "inf" that a JSON reader must parse.
_RECIPE_KEYS = {"bound_df", "bound_n", "n_boot"}
#: Not a number is null in the JSON contract, never the word.
_NAN = re.compile(r"[-+]?nan", re.IGNORECASE)


def raw_word_problems(data: Any, where: str = "") -> list[str]:
    """A recipe field of report.json (or ``audit list --json``) spelled as a word ("inf")
    where a number or null belongs, and any value spelled "nan" (null in the contract)."""
    if isinstance(data, dict):
        out = []
        for k, v in data.items():
            at = f"{where}.{k}".lstrip(".")
            if k in _RECIPE_KEYS and isinstance(v, str):
                out.append(f"{at}: {v!r} where a number or null belongs")
            out += raw_word_problems(v, at)
        return out
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in raw_word_problems(v, f"{where}[{i}]")]
    if isinstance(data, str) and _NAN.fullmatch(data.strip()):
        return [f"{where}: {data!r} where null belongs"]
    return []


def non_finite_problems(data: Any, where: str = "") -> list[str]:
    """Every value of report.json that is not a finite number where one belongs, however deep:
    an infinity or NaN spelled as a string ("-inf", "inf", "nan") or as a bare token. A figure
    with no interval has null bounds and se, its ``reason`` and display fields saying why
    ("no interval (one masculine identity only)"); encoded data (:data:`_ENCODED_KEYS`) is
    not read."""
    if isinstance(data, dict):
        return [
            p
            for k, v in data.items()
            if k not in _ENCODED_KEYS
            for p in non_finite_problems(v, f"{where}.{k}".lstrip("."))
        ]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in non_finite_problems(v, f"{where}[{i}]")]
    if isinstance(data, str) and _RAW_NUMBER.fullmatch(data.strip()):
        return [f"{where}: {data!r} where null belongs"]
    if isinstance(data, float) and not math.isfinite(data):
        return [f"{where}: {data!r} where null belongs"]
    return []


def unnamed_headline_intervals(data: dict[str, Any]) -> list[str]:
    """A headline of report.json whose figure a gate read, printed with an interval not named
    as the gate's (anytime-valid or fixed), as every page names it."""
    gated = {
        (str(g.get("run") or ""), str(g.get("figure")))
        for g in ((data.get("gates") or {}).get("gates") or [])
    }
    out = []
    for h in data.get("headlines") or []:
        if (str(h.get("run")), str(h.get("name"))) not in gated:
            continue
        for key in ("interval", "sentence"):
            said = str(h.get(key) or "")
            if re.search(r"\[|\binterval from\b", said) and not re.search(
                r"anytime-valid|fixed", said
            ):
                out.append(
                    f"headline {h.get('name')}: its {key} has the gate's figure's interval unnamed"
                )
    return out


def anytime_intervals_off_their_look(data: dict[str, Any]) -> list[str]:
    """A headline of report.json printed with a gate's anytime-valid interval beside a value
    that is not the one the gate read at its look (all the trials of a run bought on since):
    a value paired with the interval of another n."""
    read = {
        (str(g.get("run") or ""), str(g.get("figure"))): str(g.get("value"))
        for g in ((data.get("gates") or {}).get("gates") or [])
        if g.get("kind") == "anytime-valid"
    }
    out = []
    for h in data.get("headlines") or []:
        value = read.get((str(h.get("run")), str(h.get("name"))))
        if "anytime-valid" in str(h.get("interval") or "") and value not in (None, h.get("value")):
            out.append(
                f"headline {h.get('name')}: {h.get('value')} printed with the anytime-valid "
                f"interval its gate read at its look, where the gate read {value}"
            )
    return out


def json_display_texts(data: Any, key: str = "") -> list[str]:
    if isinstance(data, dict):
        return [t for k, v in data.items() for t in json_display_texts(v, k)]
    if isinstance(data, list):
        return [t for v in data for t in json_display_texts(v, key)]
    return [data] if isinstance(data, str) and key in _DISPLAY_KEYS else []


#: A plural made by appending "s" to a noun in consonant + y ("identitys", "categorys"): the
#: words of a count are ``plural``'s ("identities").
_Y_PLURAL = re.compile(r"\b[a-z]*[b-df-hj-np-tv-xz]ys\b", re.IGNORECASE)


def misspelled_plural_problems(data: Any) -> list[str]:
    """Every string of report.json with a plural spelled by appending "s" to a consonant + y."""
    return [
        f"{where}: {m.group(0)!r} for its plural in “{text}”"
        for where, text in json_strings(data)
        for m in _Y_PLURAL.finditer(text)
    ]

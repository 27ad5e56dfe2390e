"""What report.json says where a reader or a dashboard quotes it (headlines' sentences and
intervals, findings, alt texts), read as the page is: no infinite bound printed, and a gated
figure's interval named as the page names it."""

from __future__ import annotations

import re
from typing import Any

#: The JSON's fields that are prose or printed values, read as the page is.
_DISPLAY_KEYS = {"sentence", "text", "alt", "heading", "interval", "sample", "placebo_band"}


def infinity_problems(text: str) -> list[str]:
    """An infinite bound printed ("from −∞ to ∞"): a figure with no interval says so and why
    ("no interval (one masculine identity only)"), as the page does."""
    out = []
    for m in re.finditer(r"[-−+]?∞", text):
        around = " ".join(text[max(0, m.start() - 40) : m.end() + 40].split())
        out.append(f"{m.group(0)!r} for “no interval (why)” in “{around}”")
    return out


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


def json_display_texts(data: Any, key: str = "") -> list[str]:
    if isinstance(data, dict):
        return [t for k, v in data.items() for t in json_display_texts(v, k)]
    if isinstance(data, list):
        return [t for v in data for t in json_display_texts(v, key)]
    return [data] if isinstance(data, str) and key in _DISPLAY_KEYS else []

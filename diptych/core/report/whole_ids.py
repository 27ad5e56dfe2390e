"""A run id kept whole on the page: every run id in the HTML report's text is marked
``<span class="run-id">``, which neither a screen nor paper breaks (report.css), so that a
reader copying ``pst-text-9e0e2f56`` from a table, a sentence or a printed command never gets
``pst-text-`` alone. Text inside the head, a chart's SVG, a script or a style is left as it is:
a span is not markup there. A date and an interval in the text are kept on one line as well."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePath
from typing import Any

import markupsafe

#: A tag, or a comment, between two pieces of the page's text.
_TAG = re.compile(r"(<!--.*?-->|<[^>]*>)", re.DOTALL)
#: Elements whose text is not HTML flow: a span inside them would show or break them.
_LEFT = ("head", "svg", "script", "style", "title", "textarea")
_NAME = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)")


#: A date as the report prints one, a hyphen between its year, month and day.
_DATE = r"\d{4}-\d{2}-\d{2}"
#: A bound as the report prints one (:func:`~diptych.core.digits.figure_text`): a sign (a
#: minus), thousands commas, decimals, a percent; an infinite bound.
_BOUND = r"[+\-−]?(?:\$?\d[\d,]*(?:\.\d+)?%?|∞)"
#: An interval as the report prints one: "−1.04 to 24.2" in a sentence, "[−1.04, 24.2]" in a
#: table; not the end of a time ("23:57 to 2026-12-01") nor of a longer number.
_INTERVAL = rf"(?<![\w.,:\-−]){_BOUND} to {_BOUND}(?![\w:\-]|[.,]\d)|\[{_BOUND}, {_BOUND}\]"


def keep_ids_whole(html: str, ids: Iterable[str]) -> str:
    """``html`` with each of ``ids`` in its text (not in a tag or an attribute) in a span of
    class ``run-id``, a longer id first, where one id is the start of another; each date
    (``2026-11-29``) in a span of class ``nowrap``: "retrieved 2026-" / "11-29" is no date; and
    each option's name (``--until-decided``), in prose or code, in a span of class ``option``:
    a reader typing "--until-" / "decided" from a page types another command. The text copied
    is unchanged, its hyphens ASCII. Each interval ("−1.04 to 24.2", "[−1.04, 24.2]") is kept
    in a span of class ``nowrap`` too: "−1.04 to" at a line's end is a bound without its
    interval, on a phone's narrow column as on paper."""
    names = sorted({i for i in ids if i}, key=len, reverse=True)
    either = f"(?P<id>{'|'.join(re.escape(n) for n in names)})|" if names else ""
    found = re.compile(
        rf"(?<![\w-])(?:{either}(?P<date>{_DATE})(?![\w-])|(?P<option>--[A-Za-z][\w-]*))(?![\w])"
        rf"|(?P<interval>{_INTERVAL})"
    )
    out: list[str] = []
    inside: list[str] = []
    for piece in _TAG.split(html):
        tag = _NAME.match(piece) if piece.startswith("<") else None
        if tag is not None:
            closing, name = tag.group(1) == "/", tag.group(2).lower()
            if name in _LEFT and not piece.endswith("/>"):
                if closing and name in inside:
                    del inside[len(inside) - 1 - inside[::-1].index(name)]
                elif not closing:
                    inside.append(name)
            out.append(piece)
        elif piece.startswith("<") or inside:
            out.append(piece)
        elif out and out[-1] in _KEPT and re.fullmatch(_INTERVAL, piece):
            # An interval its cell or its line already keeps whole: the span's whole text.
            out.append(piece)
        else:
            out.append(found.sub(_kept, piece))
    return "".join(out)


#: The spans a page keeps an interval's text on one line in (report.css): a table cell's, a
#: figure's line under its name.
_KEPT = ('<span class="nowrap">', '<span class="figure-line">')


def _kept(match: re.Match[str]) -> str:
    kind = (
        "nowrap"
        if match.group("date") or match.group("interval")
        else "option"
        if match.group("option")
        else "run-id"
    )
    return f'<span class="{kind}">{match.group(0)}</span>'


def kept_probe_names(names: Iterable[str]) -> list[str]:
    """The probe names a page keeps whole as it keeps run ids: those that could break (at a
    hyphen; ``pairs`` cannot, and is a word too: "2 image pairs"). In a table a probe's name
    stands under its run id, which starts with it, so it never widens a column."""
    return sorted({n for n in names if "-" in n})


def kept_model_ids(ids: Iterable[str]) -> list[str]:
    """The model ids a page keeps whole (``scripted-likelihood``, ``dall-e-3``); a hub id
    (``org/name``) may break after its ``/`` instead (:func:`version_words`)."""
    return sorted({i for i in ids if "-" in i and "/" not in i})


def kept_audit_names(scope: dict[str, Any]) -> list[str]:
    """An audit's record id (``smollm2-offline-5c366747d6``), name and file's name
    (``smollm2-offline.yaml``) from a report's scope, kept whole as a run id is: those that
    could break (at a hyphen)."""
    file = str(scope.get("file") or "")
    names = [scope.get("audit_id"), scope.get("audit")]
    names.append(None if file.startswith("(") else PurePath(file).name)
    return sorted({n for n in names if isinstance(n, str) and "-" in n})


#: Where a model's version or a link may break: after a build's ``+``, a pin's ``==``, a
#: path's ``/`` (not between a link's two) or the ``:`` between a file's name and its hash
#: (``shape_predictor_5_face_landmarks.dat:`` / ``3f2a9c1d7e12+``: whole, the two made the
#: Scope table wider than the printed page), never at a hyphen inside a name
#: (``SmolLM2-135M-Instruct``, ``eur-lex``).
_VERSION_BREAKS = re.compile(r"(?<=\+)|(?<===)|(?<=/)(?!/)|(?<=:)(?=[0-9a-f]{6,}\b)")


def version_words(version: Any) -> Any:
    """A model's version (or a link) as the page prints it: its pieces between ``+``, ``==``
    and ``/`` each kept on one line, a break allowed only after those separators; a value that
    is not text is left as it is."""
    if not isinstance(version, str) or not version:
        return version
    pieces = [p for p in _VERSION_BREAKS.split(version) if p]
    kept = [markupsafe.Markup('<span class="nowrap">%s</span>') % p for p in pieces]
    return markupsafe.Markup("<wbr>").join(kept)


__all__ = [
    "keep_ids_whole",
    "kept_audit_names",
    "kept_model_ids",
    "kept_probe_names",
    "version_words",
]

"""What a report states against what its records give: the figures of ``report.json`` and the
numbers printed in ``report.md`` and ``report.html``, each compared with the same report made
again from the workspace.

A *figure* is one entry of a run's or a comparison's numbers (its value, interval, p-value, n
and every other number it carries), one headline, one finding of the verdict and one release
gate. Numbers of ``report.json`` agree when they are within what two computations of the same
figure can differ by on any CPU (a sum's last bits: relative 1e-9); printed numbers agree when
their digits are the same, since the reader sees those digits. Dates and times are left out of
the printed numbers (``started`` is written in the local time zone, which another auditor's
machine need not share), and so are the lines of commands (they name the workspace by a path
from wherever the report is read).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

#: Relative difference two computations of one figure may show on any CPU (summation order).
REL_TOL = 1e-9
ABS_TOL = 1e-12

#: Dates and times (left out of printed numbers), numbers as a reader sees them, and the
#: lines of commands (left out: they name the workspace by a path from where the report is).
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?")
_NUMBER = re.compile(r"[−-]?\d[\d,]*(?:\.\d+)?(?:e[−+-]?\d+)?%?")
_COMMAND = re.compile(r"--store|\bdiptych (?:run|report|audit|resume)\b")


@dataclass(frozen=True)
class Figure:
    """One figure as the report states it and as the records give it."""

    name: str
    stated: Any
    derived: Any

    @property
    def agrees(self) -> bool:
        return same(self.stated, self.derived)

    def difference(self) -> str:
        path = first_path_differing(self.stated, self.derived)
        where = f" ({path})" if path else ""
        stated, derived = _short(_at(self.stated, path)), _short(_at(self.derived, path))
        return f"{self.name}{where}: the report states {stated}, the records give {derived}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def same(a: Any, b: Any) -> bool:
    return first_path_differing(a, b) is None


def first_path_differing(a: Any, b: Any, path: str = "") -> str | None:
    """The first place (``key/index/...``) where ``a`` and ``b`` differ; None when they agree
    (numbers within :data:`REL_TOL`)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return None if a is b else path
    if isinstance(a, int | float) and isinstance(b, int | float):
        if math.isnan(a) or math.isnan(b):
            return None if math.isnan(a) and math.isnan(b) else path
        return None if math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL) else path
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}/{key}".lstrip("/")
            found = first_path_differing(a[key], b[key], f"{path}/{key}")
            if found is not None:
                return found.lstrip("/")
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return path.lstrip("/") or "length"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_path_differing(x, y, f"{path}/{i}")
            if found is not None:
                return found.lstrip("/")
        return None
    return None if a == b else path.lstrip("/")


def _at(value: Any, path: str | None) -> Any:
    for part in (path or "").split("/"):
        if not part:
            continue
        if isinstance(value, dict):
            value = value.get(part, value.get(int(part)) if part.isdigit() else None)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return value
    return value


def figures(stated: dict[str, Any], derived: dict[str, Any]) -> list[Figure]:
    """Every figure of ``report.json`` (``stated``) beside the same figure made again
    (``derived``), in the order the report gives them."""
    out: list[Figure] = []
    for kind, parts, label in (
        ("run", stated.get("runs") or [], "run"),
        ("comparison", stated.get("comparisons") or [], "comparison"),
    ):
        again = {_part_id(p, kind): p for p in derived.get(f"{kind}s") or []}
        for part in parts:
            pid = _part_id(part, kind)
            other = again.get(pid, {})
            numbers = (part.get("result") or {}).get("numbers") or {}
            other_numbers = (other.get("result") or {}).get("numbers") or {}
            for name in {**numbers, **other_numbers}:
                out.append(
                    Figure(f"{label} {pid}: {name}", numbers.get(name), other_numbers.get(name))
                )
    for key, name_of in (("headlines", "name"), ("findings", "name")):
        mine = stated.get(key) if key != "findings" else (stated.get("verdict") or {}).get(key)
        theirs = derived.get(key) if key != "findings" else (derived.get("verdict") or {}).get(key)
        mine, theirs = list(mine or []), list(theirs or [])
        for i in range(max(len(mine), len(theirs))):
            a = mine[i] if i < len(mine) else None
            b = theirs[i] if i < len(theirs) else None
            entry = a or b or {}
            title = f"{entry.get('run', '')}: {entry.get(name_of, '')}".strip(": ")
            out.append(Figure(f"{key[:-1]} {title}", a, b))
    gates_a = (stated.get("gates") or {}).get("gates") or []
    gates_b = (derived.get("gates") or {}).get("gates") or []
    for i in range(max(len(gates_a), len(gates_b))):
        a = gates_a[i] if i < len(gates_a) else None
        b = gates_b[i] if i < len(gates_b) else None
        entry = a or b or {}
        gate = entry.get("label") or entry.get("name") or entry.get("figure") or str(i + 1)
        out.append(Figure(f"gate {gate}", a, b))
    return out


def _part_id(part: dict[str, Any], kind: str) -> str:
    if kind == "run":
        return str(part.get("run", ""))
    return f"{part.get('baseline', '')}-vs-{part.get('intervention', '')}"


def printed_numbers(text: str) -> Iterator[tuple[int, str]]:
    """Every number a reader sees in ``text``, with its line (1-based): dates, times and the
    lines of commands left out."""
    for n, line in enumerate(text.splitlines(), 1):
        if _COMMAND.search(line):
            continue
        for match in _NUMBER.finditer(_DATE.sub(" ", line)):
            yield n, match.group()


class _Text(HTMLParser):
    """An HTML page's text as a browser shows it, line for line (scripts and styles left out;
    images, embedded as data, are attributes and never text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def first_printed_difference(name: str, stated: str, derived: str) -> tuple[int, str | None]:
    """How many numbers ``stated`` prints, and the first that differs from the same text made
    again (in words, with its line), or None."""
    a, b = list(printed_numbers(stated)), list(printed_numbers(derived))
    for (line, x), (_, y) in zip(a, b, strict=False):
        if x != y:
            return len(a), f"{name} line {line} prints {x} where the records give {y}"
    if len(a) != len(b):
        shorter = min(len(a), len(b))
        line = (a[shorter] if len(a) > shorter else a[-1] if a else (0, ""))[0]
        return len(a), (
            f"{name} prints {len(a):,} numbers where the records give {len(b):,} (from line {line})"
        )
    return len(a), None

"""The licences of the bundled data a report's runs drew on, for its "Data licenses"."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from diptych.core.data import bundled_data_named


def data_licenses(runs: Sequence[Any]) -> list[str]:
    """The licenses of bundled data the runs used, each once: the images' and prompts', and
    those of the data files a table's or chart's note names (the %F BLS column's table).
    ``runs`` are :class:`~diptych.core.report.audit.RunPart` (not imported: that module
    imports this one)."""
    out: list[str] = []
    for part in runs:
        for text in [*part.prompts.values(), *part.result.notes]:
            if "CC BY" in text and text not in out:
                out.append(text)
        out.extend(i.attribution for i in part.examples if i.attribution)
        charts = [c for c in part.result.data.get("charts") or [] if isinstance(c, dict)]
        notes = [t.note for t in part.result.tables] + [str(c.get("note")) for c in charts]
        out.extend(licence for note in notes for licence in bundled_data_named(note))
    return list(dict.fromkeys(out))

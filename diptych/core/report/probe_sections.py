"""The sections a probe adds to a run's chapter of the audit report, asked of every plugin
through the ``report_sections`` hook (their types are in :mod:`diptych.core.report.sections`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from diptych.core.plugins import plugin_manager
from diptych.core.probe import Probe, ProbeResult
from diptych.core.report.sections import Section

if TYPE_CHECKING:
    from diptych.core.runview import RunView


def probe_sections(probe: Probe, run: RunView, result: ProbeResult) -> list[Section]:
    """Every section the loaded plugins contribute for this run, in plugin order."""
    found: list[Section] = []
    for contributed in plugin_manager().hook.report_sections(probe=probe, run=run, result=result):
        for section in contributed or ():
            if not isinstance(section, Section):
                raise TypeError(
                    f"report_sections returned {section!r} for probe {probe.name}, not a Section"
                )
            found.append(section)
    return found

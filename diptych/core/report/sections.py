"""What a probe adds to the audit report: its own sections, through the ``report_sections`` hook.

A built-in probe and a third-party one take the same road: a plugin implements
:func:`diptych.core.plugins.hookspecs.report_sections` and returns :class:`Section` objects for
the runs of its own probe; the report
(:func:`diptych.core.report.probe_sections.probe_sections`) asks every plugin and places each
section under the run's methods or results. This module holds the types alone, so that the
hook's specification can name them without importing the plugin host.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from diptych.core.probe import Figure, Table

__all__ = ["ExampleImage", "Section"]


@dataclass
class ExampleImage:
    """One image shown as an example: what it is, what a reviewer decided, and whose it is."""

    title: str
    data: bytes = field(repr=False)
    mime: str = "image/png"
    caption: str = ""
    #: Whose image it is and its license, printed under it (e.g. the PAIRS attribution).
    attribution: str = ""


@dataclass
class Section:
    """A part of a run's chapter in the report, contributed by the probe's plugin.

    ``text`` is plain prose, paragraphs separated by a blank line (escaped in HTML, kept as it
    is in Markdown). ``place`` says whether it belongs with the run's methods or its results.
    """

    title: str
    text: str = ""
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    images: list[ExampleImage] = field(default_factory=list)
    place: Literal["methods", "results"] = "results"

    @property
    def paragraphs(self) -> list[str]:
        return [p.strip() for p in self.text.split("\n\n") if p.strip()]

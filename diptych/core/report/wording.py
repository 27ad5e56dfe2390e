"""What a report calls what it is of: an audit's report speaks of "this audit", a report of one
run of "this run", a report of several runs of "these runs". Every sentence that names the
report's subject takes it from here, so that a run's report never speaks of an audit."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

#: Probes whose figures are an annotator's accuracies against human labels, not a model's bias.
MEASURES_AN_ANNOTATOR = ("calibration",)


def annotator_only(probes: Iterable[str]) -> bool:
    """Whether runs of these probes measure annotators alone (and at least one run is there):
    their report speaks of accuracy, and has no bias to rank or mitigate."""
    probes = list(probes)
    return bool(probes) and all(p in MEASURES_AN_ANNOTATOR for p in probes)


@dataclass(frozen=True)
class ReportWords:
    #: The report is an audit's (an audit file's, or ``diptych run --gate``'s).
    audit: bool
    runs: int
    #: Every run measures an annotator's accuracy (a calibration): no bias section has anything
    #: to say.
    accuracy: bool = False
    #: Every run's trials are text (a chat or a likelihood model's): none makes an image, so
    #: the report has no example images to show and leaves their section out.
    text_only: bool = False

    @property
    def kind(self) -> str:
        """The report's kind on its first line: "Audit report", "Run report", "Report"."""
        return "Audit report" if self.audit else "Run report" if self.runs == 1 else "Report"

    @property
    def subject(self) -> str:
        """ "this audit", "this run" or "these runs"."""
        return "this audit" if self.audit else "this run" if self.runs == 1 else "these runs"

    @property
    def owner(self) -> str:
        """ "the audit", "the run" or "the runs" (as in "Plugins the run used")."""
        return "the " + self.subject.split()[1]

    def none_has(self, what: str, *, alone: str) -> str:
        """A sentence saying no run of the report has ``what``: "No run of this audit has
        annotators' labels.", "This run has no annotators' labels." (``alone``: the phrase
        after "This run" in a one-run report), "None of these runs has annotators' labels."."""
        if self.audit:
            return f"No run of this audit {what}."
        if self.runs == 1:
            return f"This run {alone}."
        return f"None of these runs {what}."

    @property
    def no_figure(self) -> str:
        return self.none_has("has a bias figure yet", alone="has no bias figure yet")

    @property
    def no_images(self) -> str:
        return self.none_has("shows images", alone="shows no images")

    @property
    def no_review(self) -> str:
        return self.none_has(
            "has annotators' labels or review notes",
            alone="has no annotators' labels or review notes",
        )

    @property
    def no_comparison(self) -> str:
        """What "Mitigations compared" says where it has nothing to show: what would fill it."""
        return (
            "No mitigation was compared: that takes a baseline run and a later run of the same "
            "probe with an intervention, reported together with "
            "`diptych report BASELINE INTERVENTION`."
        )

    @property
    def built_from(self) -> str:
        return f"Built only from what {self.subject} measured."

    #: What "Mitigations measured" says where it lists none: the section it would come from
    #: says why, and this does not say it again.
    no_mitigation = "Nothing to list: see “Mitigations compared”."

    @property
    def plugins_heading(self) -> str:
        return f"Plugins {self.owner} used"

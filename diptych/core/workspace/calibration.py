"""An annotator's calibration: its error profile from a finished ``calibration`` run, kept."""

from __future__ import annotations

from diptych.core.errors import DiptychError, UsageError
from diptych.core.probe import Probe
from diptych.core.runview import RunView
from diptych.core.store import Store
from diptych.core.workspace.records import CalibrationOutcome


def calibration_outcome(
    store: Store, view: RunView, probe: Probe, annotator: str, version: str
) -> CalibrationOutcome:
    """Compute the profile of the calibration run ``view`` with its probe, store it in ``store``
    under ``annotator`` (the id its labels are stored under) and ``version``, and return it all.

    A run with images not yet labelled has no profile yet: its coverage would be wrong."""
    counts = view.status_counts()
    if counts["pending"]:
        raise DiptychError(
            f"run {view.id} stopped with {counts['pending']} images not yet labelled; "
            "run the same command again to finish it (nothing is asked twice)"
        )
    profile_of = getattr(probe, "profile", None)
    if not callable(profile_of):
        raise UsageError(f"the installed probe '{probe.name}' computes no annotator profile")
    profile = profile_of(view) | {"annotator": annotator, "annotator_version": version}
    saved = store.save_calibration(annotator, version, profile)
    return CalibrationOutcome(
        annotator=annotator,
        annotator_version=version,
        run=view.run,
        counts=counts,
        profile=profile,
        saved=saved,
        result=probe.analyze(view),
    )

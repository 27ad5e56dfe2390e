"""The read-only port a plugin reads the workspace through: :class:`RunLookup`.

A probe never holds the store. Where it builds on what the workspace already holds — ``pst``
re-tests the most biased occupations of an earlier run, ``counterfactual-retrieval`` takes its
sets from the latest ``counterfactual-sets`` run — its :meth:`~diptych.core.probe.Probe.bind`
receives a :class:`RunLookup` and reads there: a run's view by id (its record and parameters,
trials, results, subjects and their labels by source), the runs of a probe, and an annotator's
calibration records. Scoring reads one run through its :class:`~diptych.core.runview.RunView`,
and ``RunView.lookup`` is the same port for any other run the score needs.

Nothing here writes. The images a probe brings along (PAIRS photos, a local dataset) are not put
through the port: the probe yields their bytes from
:meth:`~diptych.core.probe.Probe.input_blobs` and the engine stores them when a run starts.

The records the port hands back are defined by the store and re-exported here, so that a plugin
imports them from this module and never from ``diptych.core.store``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from diptych.core.store.records import CalibrationRecord, ResultRecord, RunRecord, TrialRow

if TYPE_CHECKING:
    from diptych.core.runview import RunView

__all__ = ["CalibrationRecord", "ResultRecord", "RunLookup", "RunRecord", "TrialRow"]


@runtime_checkable
class RunLookup(Protocol):
    """What a plugin may read of the workspace it works in; it writes nothing.

    The host hands one to :meth:`Probe.bind <diptych.core.probe.Probe.bind>` and keeps one on
    every :class:`~diptych.core.runview.RunView` (``run.lookup``). A test may hand a probe any
    object with these three methods.
    """

    def run(self, run_id: str) -> RunView:
        """The read-only view of run ``run_id`` (a unique prefix of it will do): its record
        (``view.run``: probe, ``params``, models, status), trials, results, subjects, labels by
        annotator (``view.labels("nsfw")``), review flags and the blobs its results name.

        :raises diptych.core.errors.RunNotFoundError: no run, or several, go by that id.
        """
        ...

    def runs(self, probe: str | None = None) -> list[RunRecord]:
        """The workspace's runs (of probe ``probe`` alone, if named), oldest first."""
        ...

    def latest_calibration(self, annotator: str) -> CalibrationRecord | None:
        """The most recent error profile of ``annotator`` stored by ``diptych calibrate``
        (``record.profile``), or None when it was never calibrated here."""
        ...

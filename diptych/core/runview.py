"""Read-only views of the workspace: everything a probe reads to score a run or flag it for review.

:class:`RunView` is one run. It is handed to ``Probe.analyze``, ``Probe.review_flags``,
``Probe.compare`` and the report, so that a probe reads the run's trials, results, subjects,
labels, flags, the blobs they name and the annotators' calibrations through one object and never
opens the store itself. :class:`StoreLookup` is the workspace's
:class:`~diptych.core.lookup.RunLookup` — any run by id, the runs of a probe, calibrations —
which ``Probe.bind`` receives and ``RunView.lookup`` carries.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from diptych.core.labels import GENDER, LabelDimension, LabelPolicy, SubjectLabel
from diptych.core.store import CalibrationRecord, ResultRecord, RunRecord, Store, TrialRow
from diptych.core.trials import Subject

#: How a stored error begins when the service refused the request as sent (see the engine).
_LASTING = "PermanentModelError: "


@dataclass
class RunView:
    """One run, read-only: built by the core (``RunView(store, run)``), read by a probe."""

    #: The core's handle on the workspace; a probe reads through the methods below.
    _store: Store
    run: RunRecord
    #: How a probe that scores people by annotators' labels takes them (diptych.core.labels); None
    #: leaves it to the probe (its default is "mixed").
    label_policy: LabelPolicy | None = None
    #: The PAIRS subset an annotator's calibration must have been made on for a probe to correct
    #: scores with it: None asks for a calibration over every subset (the whole of PAIRS); a
    #: subset name accepts one made on that subset alone.
    calibration_subset: str | None = None
    #: The chromadb server holding the workspace's collections (None: the embedded one under
    #: the workspace), so that a probe storing vectors keeps them where the workspace does.
    chroma_url: str | None = None
    #: Whether the probe builds its figures (charts): False where only the numbers and tables
    #: are read (the terminal app's figures, recomputed after every label), which are the
    #: same either way; building the charts is a good part of an analysis' time.
    figures: bool = True

    @property
    def id(self) -> str:
        return self.run.id

    @cached_property
    def trials(self) -> list[TrialRow]:
        return self._store.trials(self.run.id)

    @cached_property
    def results(self) -> dict[str, ResultRecord]:
        return self._store.run_results(self.run.id)

    def result(self, trial: TrialRow) -> ResultRecord | None:
        return self.results.get(trial.key)

    @cached_property
    def subjects_by_trial(self) -> dict[int, list[Subject]]:
        """Each trial's subjects (by trial index) in the order the probe planned them."""
        return {
            idx: [Subject(position, meta) for position, meta in subjects]
            for idx, subjects in self._store.subjects_by_trial(self.run.id).items()
        }

    def subjects(self, trial: TrialRow) -> list[Subject]:
        return self.subjects_by_trial.get(trial.idx, [])

    def labels(
        self, annotator: str | None = None, dimension: LabelDimension | None = GENDER
    ) -> list[SubjectLabel]:
        """Every stored label of the run's subjects of ``dimension`` (perceived gender unless
        said; None: every dimension), of one annotator if named."""
        return self._store.labels(self.run.id, annotator, dimension)

    def flags(self, reason: str | None = None) -> list[dict[str, Any]]:
        """The run's stored review flags (of one reason, if named)."""
        return self._store.flags(self.run.id, reason)

    def notes(self) -> list[dict[str, Any]]:
        """Reviewers' notes on the run's people (``trial_idx``, ``position``, ``annotator``,
        ``note``), labelled or not."""
        return self._store.notes(self.run.id)

    def latest_calibration(self, annotator: str) -> CalibrationRecord | None:
        """The most recent error profile of ``annotator`` (``diptych calibrate``), if any."""
        return self._store.latest_calibration(annotator)

    def blob(self, sha: str) -> bytes:
        """The bytes of a blob a result names (a generated image, a long text)."""
        return self._store.get_blob(sha)

    def status_counts(self) -> dict[str, int]:
        return self._store.status_counts(self.run.id)

    def model_ids(self) -> list[str]:
        return [m["model_id"] for m in self.run.models]

    def lasting_failure(self, model_id: str) -> str | None:
        """What the trials of ``model_id`` failed with when every one failed for a reason the
        service gives again to the same request (a model name it does not serve, a wrong
        base_url, a rejected key): the most common message. None while any trial answered, was
        refused, is still to run or failed for a passing reason, which a resume may get past."""
        errors = []
        for trial in self.trials:
            if trial.model_id != model_id:
                continue
            result = self.results.get(trial.key)
            if result is None or result.status != "failed" or result.error is None:
                return None
            if not result.error.startswith(_LASTING):
                return None
            errors.append(result.error.removeprefix(_LASTING))
        return Counter(errors).most_common(1)[0][0] if errors else None

    def nothing_yet(self, model_id: str, what: str) -> str:
        """A probe's note for a model with no ``what`` (answers, labelled subjects) to score:
        what to do, which is to run or resume the probe unless every trial failed for good,
        when a resume would only fail the same way."""
        failure = self.lasting_failure(model_id)
        if failure is None:
            return f"no {what} yet; run or resume the probe"
        return (
            f"no {what}: every trial failed ({failure}); change the model or its base_url (or "
            "key) and run again, since a resume sends the same requests and fails the same way "
            "until then"
        )

    def subject_rows(self) -> list[dict[str, Any]]:
        """Every subject of the run in plan order, with its trial and the trial's outcome: each
        row holds ``subject_id`` (what a label's ``subject_id`` names), ``trial_idx``,
        ``position``, ``meta``, ``model_id``, ``trial_meta``, ``status`` (``pending`` while the
        trial has no result) and ``blob`` (the result's blob, e.g. the generated image)."""
        return self._store.run_subjects(self.run.id)

    @property
    def lookup(self) -> StoreLookup:
        """The workspace this run is in, read-only (a :class:`~diptych.core.lookup.RunLookup`):
        for a score that needs another run, such as the generation run of a retrieval run."""
        return StoreLookup(self._store, chroma_url=self.chroma_url)

    @property
    def collections_path(self) -> str | None:
        """Where a probe keeps vector collections of this workspace
        (:func:`diptych.core.vectors.open_collection`); None when the workspace is open
        read-only, so that the vectors stay in memory."""
        return None if self._store.read_only else str(self._store.path)


class StoreLookup:
    """The :class:`~diptych.core.lookup.RunLookup` of one open workspace: what the engine hands
    ``Probe.bind`` and every :class:`RunView` carries. It reads the store and never writes."""

    def __init__(self, store: Store, *, chroma_url: str | None = None) -> None:
        self._store = store
        self._chroma_url = chroma_url

    def run(self, run_id: str) -> RunView:
        return RunView(self._store, self._store.get_run(run_id), chroma_url=self._chroma_url)

    def runs(self, probe: str | None = None) -> list[RunRecord]:
        return [r for r in self._store.list_runs() if probe is None or r.probe == probe]

    def latest_calibration(self, annotator: str) -> CalibrationRecord | None:
        return self._store.latest_calibration(annotator)

"""A read-only view of one run, handed to ``Probe.analyze`` and the report."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from diptych.core.store import LabelRow, ResultRecord, RunRecord, Store, TrialRow


@dataclass
class RunView:
    store: Store
    run: RunRecord

    @property
    def id(self) -> str:
        return self.run.id

    @cached_property
    def trials(self) -> list[TrialRow]:
        return self.store.trials(self.run.id)

    @cached_property
    def results(self) -> dict[str, ResultRecord]:
        return self.store.run_results(self.run.id)

    def result(self, trial: TrialRow) -> ResultRecord | None:
        return self.results.get(trial.key)

    def labels(self, annotator: str | None = None) -> list[LabelRow]:
        return self.store.labels(self.run.id, annotator)

    def status_counts(self) -> dict[str, int]:
        return self.store.status_counts(self.run.id)

    def model_ids(self) -> list[str]:
        return [m["model_id"] for m in self.run.models]

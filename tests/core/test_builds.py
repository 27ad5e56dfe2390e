"""A run says when its results came from more than one backend build, and a resume on
another build warns first (or, asked for the same build, refuses)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from diptych.core.builds import builds_by_model, check_build, mixed_builds_note
from diptych.core.engine import RetryPolicy, RunOptions, run_probe
from diptych.core.engine.reporting import NullReporter
from diptych.core.errors import MixedBuildError
from diptych.core.store import Store
from diptych.testing import ScriptedLikelihood, ScriptedParams


@dataclass
class Stored:
    model_id: str
    started_at: float
    provenance: dict[str, Any] = field(default_factory=dict)


def test_builds_are_listed_per_model_in_the_order_first_used() -> None:
    results = [
        Stored("m@1", 3.0, {"build": "b2"}),
        Stored("m@1", 1.0, {"build": "b1"}),
        Stored("m@1", 2.0, {"build": "b1"}),
        Stored("m@1", 0.5, {}),  # stored before builds were recorded
        Stored("other@1", 1.0, {}),
    ]
    assert builds_by_model(results) == {"m@1": ["b1", "b2"]}
    assert mixed_builds_note({"m@1": ["b1"]}) is None
    note = mixed_builds_note({"m@1": ["b1", "b2"], "n@1": ["b3"]})
    assert note is not None and note.startswith("Mixed builds (m@1: 2 builds)")


def test_a_build_check_passes_warns_or_refuses() -> None:
    assert check_build("m@1", "b1", ["b1"], same_build=True) is None
    assert check_build("m@1", None, ["b1"], same_build=True) is None  # no build named
    assert check_build("m@1", "b2", [], same_build=True) is None  # nothing stored to mix
    warning = check_build("m@1", "b2", ["b1"], same_build=False)
    assert warning == (
        "m@1 was run on another build (b1) than this one (b2): its new results will come "
        "from a second build (--same-build refuses)."
    )
    with pytest.raises(MixedBuildError, match="drop --same-build"):
        check_build("m@1", "b2", ["b1"], same_build=True)


class Built(ScriptedLikelihood):
    """A scripted model whose answers a named backend build computes."""

    def __init__(self, build: str, **params: Any) -> None:
        super().__init__(ScriptedParams(**params))
        self._build = build

    def build(self) -> str:
        return self._build


class Warnings(NullReporter):
    def __init__(self) -> None:
        self.warnings: list[str] = []

    def warn(self, text: str) -> None:
        self.warnings.append(text)


def half_failed_run(store: Store) -> str:
    """A run of 10 trials on build b1 whose every second call failed (to be retried)."""
    model = Built("b1", transient_every=2)
    options = RunOptions(retry=RetryPolicy(max_attempts=1, base_delay=0, max_delay=0))
    run = run_probe(store, "scripted", [model], probe_params={"n": 10}, options=options)
    assert store.status_counts(run.id) == {"done": 5, "refused": 0, "failed": 5, "pending": 0}
    return run.id


def test_a_resume_on_another_build_warns_once_then_mixes(scripted: None, store: Store) -> None:
    run_id = half_failed_run(store)
    reporter = Warnings()
    other = Built("b2")
    run = run_probe(store, "scripted", [other], probe_params={"n": 10}, reporter=reporter)
    assert run.id == run_id and other.calls == 5
    (model_id,) = builds_by_model(store.run_results(run_id).values())
    assert reporter.warnings == [
        f"{model_id} was run on another build (b1) than this one (b2): its new results will "
        "come from a second build (--same-build refuses)."
    ]
    assert builds_by_model(store.run_results(run_id).values()) == {model_id: ["b1", "b2"]}


def test_same_build_refuses_before_anything_is_asked(scripted: None, store: Store) -> None:
    run_id = half_failed_run(store)
    other = Built("b2")
    with pytest.raises(MixedBuildError):
        run_probe(
            store,
            "scripted",
            [other],
            probe_params={"n": 10},
            options=RunOptions(same_build=True),
        )
    assert other.calls == 0
    assert store.status_counts(run_id)["failed"] == 5
    # On the build its results came from, the same resume goes ahead without a word.
    reporter = Warnings()
    same = Built("b1")
    run_probe(
        store,
        "scripted",
        [same],
        probe_params={"n": 10},
        options=RunOptions(same_build=True),
        reporter=reporter,
    )
    assert same.calls == 5 and reporter.warnings == []

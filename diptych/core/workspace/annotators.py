"""``Workspace.annotators``: label a run's people with an annotator plugin, calibrate an
annotator on PAIRS, and measure how far a run's annotators agree."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from diptych.core.annotation import AnnotationSummary, annotate_run_async, annotator_id
from diptych.core.capabilities import Model
from diptych.core.engine import Reporter, RunOptions
from diptych.core.errors import UsageError
from diptych.core.labels import TONE
from diptych.core.plugins import get_model, get_probe, load_plugins
from diptych.core.runview import RunView
from diptych.core.workspace.base import Kernel, Namespace, Params, plugin_params
from diptych.core.workspace.calibration import calibration_outcome
from diptych.core.workspace.records import CalibrationOutcome
from diptych.core.workspace.runs import Runs

if TYPE_CHECKING:
    from diptych.core.metrics.agreement import AnnotatorAgreement


class Annotators(Namespace):
    """Annotators: an annotation pass stores labels (and refreshes the review flags); a
    calibration is a run of its own; agreement compares the labels a run has."""

    def __init__(self, kernel: Kernel, runs: Runs) -> None:
        super().__init__(kernel)
        self._runs = runs

    def get(self, name: str, *, params: Params | None = None, model: str | None = None) -> Model:
        """The annotator plugin ``name`` with ``params``; ``model`` names the vision-language
        model a VLM annotator asks."""
        registry = load_plugins()
        if name not in registry.annotators:
            known = ", ".join(sorted(registry.annotators)) or "none"
            raise UsageError(f"no annotator named '{name}' (installed: {known})")
        given = plugin_params(params)
        if model is not None:
            if "model" not in registry.annotators[name].Params.model_fields:
                raise UsageError(
                    f"annotator '{name}' asks no vision-language model, so --model does "
                    "not apply; drop it"
                )
            given = (
                {**given, "model": model} if isinstance(given, dict) else [*given, f"model={model}"]
            )
        return get_model(name, given)

    async def annotate(
        self,
        run_id: str,
        annotator: str | Model,
        *,
        params: Params | None = None,
        model: str | None = None,
        options: RunOptions | None = None,
        reporter: Reporter | None = None,
    ) -> AnnotationSummary:
        """Label every person in the run's generated images with ``annotator`` (a name or an
        instance). Each image is asked once per annotator, across runs; a stopped pass
        resumes. The run's review flags are refreshed after."""
        self._kernel.writing("store labels")
        instance = (
            self.get(annotator, params=params, model=model)
            if isinstance(annotator, str)
            else annotator
        )
        return await annotate_run_async(
            self._store,
            self._kernel.get_run(run_id).id,
            instance,
            options=options,
            reporter=reporter,
        )

    def annotate_sync(
        self,
        run_id: str,
        annotator: str | Model,
        *,
        params: Params | None = None,
        model: str | None = None,
        options: RunOptions | None = None,
        reporter: Reporter | None = None,
    ) -> AnnotationSummary:
        """:meth:`annotate` on an event loop of its own."""
        return asyncio.run(
            self.annotate(
                run_id, annotator, params=params, model=model, options=options, reporter=reporter
            )
        )

    async def calibrate(
        self,
        annotator: str,
        *,
        params: Params | None = None,
        model: str | None = None,
        subset: str | None = None,
        options: RunOptions | None = None,
        reporter: Reporter | None = None,
    ) -> CalibrationOutcome:
        """Measure an annotator's coverage, accuracy, sensitivity and specificity on the PAIRS
        images of known gender (the ``calibration`` probe, cached and resumable like any run),
        and keep the profile under the annotator's label id for later pst reports.

        Raises :class:`DiptychError` when the run stopped with images not yet labelled (run it
        again to finish: nothing is asked twice)."""
        self._kernel.writing("calibrate an annotator")
        instance = self.get(annotator, params=params, model=model)
        name, version = annotator_id(instance), instance.version
        probe = get_probe("calibration", {"subset": subset})
        record = await self._runs.run(probe, [instance], options=options, reporter=reporter)
        return calibration_outcome(self._store, RunView(self._store, record), probe, name, version)

    def calibrate_sync(
        self,
        annotator: str,
        *,
        params: Params | None = None,
        model: str | None = None,
        subset: str | None = None,
        options: RunOptions | None = None,
        reporter: Reporter | None = None,
    ) -> CalibrationOutcome:
        """:meth:`calibrate` on an event loop of its own."""
        return asyncio.run(
            self.calibrate(
                annotator,
                params=params,
                model=model,
                subset=subset,
                options=options,
                reporter=reporter,
            )
        )

    def agreement(
        self, run_id: str, *, n_boot: int | None = None, seed: int | None = None
    ) -> AnnotatorAgreement:
        """How far the run's annotators agree: Cohen's κ per pair, Fleiss' κ among the people
        (PST Table 1's measure), Krippendorff's α over all, and each automatic annotator
        against the human majority (PST Table 12), with bootstrap intervals over the probe's
        trials (images, draws); and, when two annotators or more gave perceived skin tones,
        weighted κ per pair and Krippendorff's α (ordinal) of the tones (``tone``). The
        resamples and seed are every page's (``AGREEMENT_N_BOOT``, ``AGREEMENT_SEED``) unless
        given.

        Raises :class:`UsageError` when the run has no labels yet."""
        # numpy comes with the agreement metrics: imported when asked for, not with the core.
        from diptych.core.metrics.agreement import (
            AGREEMENT_N_BOOT,
            AGREEMENT_SEED,
            run_agreement,
        )

        view = self._kernel.view(run_id)
        if not view.labels() and not view.labels(dimension=TONE):
            raise UsageError(
                f"run {view.id} has no labels yet: import them with 'diptych annotate "
                f"{view.id} --import FILE.csv' or run an annotator ('--annotator NAME')"
            )
        return run_agreement(
            view,
            unit=_trial_unit(view.run.probe),
            n_boot=AGREEMENT_N_BOOT if n_boot is None else n_boot,
            seed=AGREEMENT_SEED if seed is None else seed,
        )


def _trial_unit(probe: str) -> str:
    """What one trial of ``probe`` is (an image, a draw), which agreement intervals resample;
    "trial" where the probe is no longer installed."""
    from diptych.core.errors import UnknownPluginError
    from diptych.core.plugins import probe_class

    try:
        return probe_class(probe).trial_unit
    except UnknownPluginError:
        return "trial"

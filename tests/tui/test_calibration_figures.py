"""A calibration run's figures in the terminal app: each share with its 95% Jeffreys interval
over images, as the command and the report print it (the run's analysis, one source)."""

from __future__ import annotations

from pathlib import Path

from diptych.core.runview import RunView
from diptych.core.store import open_store
from diptych.plugins.probes.calibration.probe import Calibration
from diptych.tui.screens.runs.detail import numbers_rows


def test_a_calibrations_coverage_shows_its_jeffreys_interval(
    calibration_run: tuple[Path, str],
) -> None:
    """The scripted annotator gives no gender to any of the 40 images: coverage 0 of 40, whose
    Jeffreys interval runs from 0 to the 97.5% quantile of Beta(1/2, 40 + 1/2); no accuracy."""
    from scipy.stats import beta

    ws, run_id = calibration_run
    with open_store(ws) as store:
        result = Calibration().analyze(RunView(store, store.get_run(run_id)))
    rows = {name: cells for name, cells in numbers_rows(result, False, Calibration.observation)}
    high = float(beta.ppf(0.975, 0.5, 40.5))
    # Its n counts images; a count's interval records no units it resampled.
    cells = ["coverage", "0.00", f"[0.00, {high:.2f}]", "40 images", "—"]
    assert rows["coverage"] == cells
    assert "accuracy" not in rows

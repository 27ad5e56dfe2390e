"""`diptych agreement RUN` and the run's report give one and the same interval for each
agreement coefficient: both read one computation, with one number of resamples and one seed.
That interval is the one an independent bootstrap gives: sklearn's κ of the persons of images
drawn with replacement, each coefficient from its own stream of the seed."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from support.pst_runs import Image, Person, store_pst_run

from diptych.cli.main import main
from diptych.core.digits import figure_text
from diptych.core.store import open_store

M, F, C = "masculine", "feminine", "cannot_identify"

#: Per image: what annotator a and annotator b call its left and right person.
LABELS = [
    ((M, F), (M, F)),
    ((F, M), (M, F)),
    ((M, F), (F, F)),
    ((F, M), (F, M)),
    ((M, M), (M, F)),
    ((F, F), (F, F)),
    ((M, F), (M, C)),
    ((F, M), (M, M)),
    ((M, F), (M, F)),
    ((F, F), (F, M)),
]


def _images() -> list[Image]:
    return [
        Image(
            f"paired:carpenter|editor#{k}",
            "paired",
            [
                Person("left", "carpenter", M, {"human:a": a[0], "human:b": b[0]}),
                Person("right", "editor", F, {"human:a": a[1], "human:b": b[1]}),
            ],
        )
        for k, (a, b) in enumerate(LABELS)
    ]


def _independent_interval(n_boot: int, seed: int) -> tuple[float, float]:
    """The 95% percentile interval of Cohen's κ over images resampled whole: the resample
    indices drawn as every agreement figure draws its own (numpy's generator seeded with the
    seed and the CRC-32 of the figure's name), κ by sklearn."""
    rng = np.random.default_rng([seed, zlib.crc32(b"cohen/human:a/human:b")])
    draws = rng.integers(0, len(LABELS), size=(n_boot, len(LABELS)))
    kappas = []
    for row in draws:
        rater_a = [label for i in row for label in LABELS[i][0]]
        rater_b = [label for i in row for label in LABELS[i][1]]
        kappas.append(cohen_kappa_score(rater_a, rater_b))
    low, high = np.percentile(np.array(kappas), [2.5, 97.5])
    return float(low), float(high)


def _cli(ws: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    with pytest.raises(SystemExit) as done:
        main(["--store", str(ws), *args])
    assert done.value.code in (0, None)
    return capsys.readouterr().out


def test_the_command_and_the_report_print_one_interval_the_bootstrap_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    with open_store(ws) as store:
        store_pst_run(store, "pst-two", _images())
    data = json.loads(_cli(ws, capsys, "agreement", "pst-two", "--json"))
    (pair,) = data["cohen_kappa"]
    low, high = _independent_interval(2000, 0)
    assert (pair["ci_low"], pair["ci_high"]) == pytest.approx((low, high))
    assert 0 < high - low < 2 and data["bootstrap"]["n_boot"] == 2000
    cli_interval = f"[{figure_text(pair['ci_low'])}, {figure_text(pair['ci_high'])}]"
    # 500 resamples of the same stream would print [−0.10, 0.63]: the count matters here.
    assert cli_interval == "[−0.06, 0.69]"

    out = tmp_path / "report"
    monkeypatch.chdir(tmp_path)
    _cli(ws, capsys, "report", "pst-two", "--out", str(out), "--format", "json")
    report = json.loads((out / "report.json").read_text())
    (run,) = report["runs"]
    tables = run["review"]["agreement"] + run["result"]["tables"]
    cohen = [t for t in tables if t["title"] == "Agreement between annotators (Cohen's κ)"]
    # The review's table and the probe's own: both the command's interval.
    assert len(cohen) == 2
    for table in cohen:
        (row,) = table["rows"]
        assert row[table["columns"].index("κ 95% CI")] == cli_interval
        assert "2,000 resamples" in table["note"]

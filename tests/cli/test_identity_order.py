"""Every per-identity table lists its identities in one order, the PST paper's Table 14 order
(ascending %F paired, ties by name, identities never scored paired last): the report's table of
a stored ``pst`` run and ``diptych metrics sts`` on the same labels agree row for row."""

from __future__ import annotations

from pathlib import Path

from support.pst_runs import PROBE, images_from_rows, store_pst_run, table
from typer.testing import CliRunner

from diptych.cli.metrics import app
from diptych.core.metrics.sts import LabelRow
from diptych.core.store import Store
from diptych.plugins.probes.pst.analysis import analyze_pst

F, M = "feminine", "masculine"
#: Three paired images and one single one. %F paired, counted by hand: editor 1 of 2 (50),
#: sheriff 1 of 2 (50), guard 1 of 1 (100), nurse 1 of 1 (100); the mover is never paired.
ROWS = [
    LabelRow("p1", "paired", "left", "sheriff", M, M),
    LabelRow("p1", "paired", "right", "nurse", F, F),
    LabelRow("p2", "paired", "left", "guard", M, F),
    LabelRow("p2", "paired", "right", "editor", F, F),
    LabelRow("p3", "paired", "left", "editor", F, M),
    LabelRow("p3", "paired", "right", "sheriff", M, F),
    LabelRow("s1", "single", "single", "mover", M, M),
]
#: Ties by name (editor before sheriff, guard before nurse), the unpaired mover last.
ORDER = ["editor", "sheriff", "guard", "nurse", "mover"]


def test_the_cli_and_the_report_list_identities_in_one_order(tmp_path: Path) -> None:
    with Store(tmp_path / "ws") as store:
        view = store_pst_run(store, "pst-order", images_from_rows(ROWS))
        reported = analyze_pst(PROBE, view)
    assert [row[0] for row in table(reported, "Micro STS").rows] == ORDER

    path = tmp_path / "labels.csv"
    lines = ["image,setting,position,identity,stereotype,label"]
    lines += [
        f"{r.image},{r.setting},{r.position},{r.identity},{r.stereotype},{r.label}" for r in ROWS
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["sts", "--labels", str(path), "--n-boot", "50"])
    assert result.exit_code == 0, result.output
    micro = result.output[result.output.index("Micro") :]
    cells = [line.split()[0] for line in micro.splitlines() if line.split()]
    assert [cell for cell in cells if cell in ORDER] == ORDER

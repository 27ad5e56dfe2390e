"""The CLI: listing, reading runs back, and one-line errors that lose nothing."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from diptych.cli.main import main
from diptych.core.migrations import SCHEMA_VERSION
from diptych.core.report.formatting import figure_text
from diptych.core.store import open_store

SCRIPT = Path(__file__).with_name("scripted_cli.py")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120
    )


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


@pytest.fixture
def finished_run(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, str]:
    ws = tmp_path / "ws"
    code, out, _ = call(
        capsys,
        "--store",
        str(ws),
        "run",
        "pst-text",
        "-m",
        "scripted-likelihood",
        "-p",
        "masculine=carpenter,sheriff",
        "-p",
        "feminine=nurse,editor",
        "--quiet",
    )
    assert code == 0, out
    with open_store(ws) as store:
        (run,) = store.list_runs()
    return ws, run.id


def test_plugins_lists_builtins(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "plugins", "--json")
    rows = {r["name"]: r for r in json.loads(out)}
    assert code == 0
    assert rows["pst_text"]["probes"] == ["pst-text"]
    assert rows["pst_text"]["package"] == "diptych"
    assert "smollm2" in rows["smollm2"]["models"]


def test_runs_show_export_report(
    finished_run: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, run_id = finished_run
    code, out, _ = call(capsys, "--store", str(ws), "runs", "--json")
    (listed,) = json.loads(out)
    assert code == 0 and listed["id"] == run_id and listed["counts"]["done"] == 28
    code, out, _ = call(capsys, "--store", str(ws), "show", run_id)
    assert code == 0 and "done 28" in out and "self 28" in out

    code, out, _ = call(capsys, "--store", str(ws), "export", run_id, "--format", "jsonl")
    rows = [json.loads(line) for line in out.splitlines()]
    # 2 × 2 pairs × 2 orders × 2 people + 4 identities × 3 single samples.
    assert len(rows) == 16 + 12
    first = rows[0]
    assert first["schema_version"] == 2 and first["status"] == "done"
    assert set(first["output"]["logprobs"]) == {" he", " she"}
    assert first["labels"]["left"]["self"]["label"] in {"masculine", "feminine"}

    code, out, _ = call(capsys, "--store", str(ws), "export", run_id, "--format", "csv")
    table = list(csv.DictReader(io.StringIO(out)))
    assert len(table) == 28 and table[0]["meta.setting"] == "paired"
    assert table[-1]["label.single.self"] in {"masculine", "feminine"}
    # Written to a file, it says in one line what it wrote where.
    file = tmp_path / "trials.csv"
    code, out, _ = call(capsys, "--store", str(ws), "export", run_id, "--format", "csv", "-o",
                        str(file))  # fmt: skip
    assert code == 0 and len(list(csv.DictReader(file.open()))) == 28
    assert out == f"wrote {file}: 28 rows, one per trial of run {run_id}\n", out

    out_dir = tmp_path / "report"
    code, out, _ = call(capsys, "--store", str(ws), "report", run_id, "--out", str(out_dir))
    report = (out_dir / "report.md").read_text()
    data = json.loads((out_dir / "report.json").read_text())
    # Likelihood mode leads with the expected STS; the drawn labels' STS follows.
    headline = "STS paired (expected from P(he), P(she))"
    assert next(iter(data["result"]["numbers"])) == headline
    paired = data["result"]["numbers"][headline]
    assert f"| {headline} | {figure_text(paired['value'])} |" in report
    # The command names every file it wrote, not only the Markdown.
    listed = [line.strip() for line in out.splitlines()[1:]]
    assert out.startswith("report written:")
    assert listed[:3] == [str(out_dir / f"report.{ext}") for ext in ("md", "json", "html")]
    figures = sum(1 for f in (out_dir / "figures").rglob("*") if f.is_file())
    assert listed[3] == f"{out_dir / 'figures'}/ ({figures} file{'' if figures == 1 else 's'})"
    assert figures > 0 and len(listed) == 4
    assert "| STS paired (drawn labels) |" in report
    code, _, _ = call(capsys, "--store", str(ws), "show", run_id, "--label-policy", "human")
    assert code == 0
    assert "One {id1} stands on the left and one {id2} stands on the right." in report
    assert "scripted-likelihood" in report


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "no-such-probe", "-m", "scripted-likelihood"], "no probe named 'no-such-probe'"),
        (["run", "pst-text", "-m", "no-such-model"], "no model named 'no-such-model'"),
        (
            ["run", "pst-text", "-m", "scripted-likelihood", "-p", "colour=red"],
            "probe 'pst-text' has no parameter 'colour'",
        ),
        (
            ["run", "pst-text", "-m", "scripted-likelihood", "-p", "masculine=astronaut"],
            "unknown masculine identities ['astronaut']",
        ),
        (
            ["run", "pst-text", "-m", "scripted-likelihood", "-p", "samples_single=many"],
            "parameter 'samples_single'",
        ),
        (["run", "pst-text", "-m", "scripted-chat"], "needs a model with text_likelihood"),
        (["show", "nothing-here"], "no run 'nothing-here'"),
    ],
)
def test_usage_errors_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    open_store(tmp_path / "ws").close()  # reading commands never create one
    result = run_cli("--store", str(tmp_path / "ws"), *args)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert "Traceback" not in result.stderr


def test_malformed_labels_file(tmp_path: Path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("image,setting,position,identity,stereotype\nimg1,paired,left,nurse,x\n")
    result = run_cli("metrics", "sts", "--labels", str(labels))
    assert result.returncode != 0
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and "labels.csv" in line and "label" in line


def test_newer_store_is_refused_and_kept(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with open_store(ws) as store:
        store.db.execute("INSERT INTO _migrations VALUES (?, 'future', 0)", (SCHEMA_VERSION + 1,))
    before = (ws / "diptych.db").read_bytes()
    result = run_cli("--store", str(ws), "runs")
    (line,) = result.stderr.strip().splitlines()
    assert result.returncode != 0 and "newer diptych" in line and "pip install -U" in line
    assert (ws / "diptych.db").read_bytes() == before


def test_model_that_fails_to_load(tmp_path: Path) -> None:
    result = run_cli(
        "--store",
        str(tmp_path / "ws"),
        "run",
        "pst-text",
        "-m",
        "smollm2",
        "-M",
        f"model_path={tmp_path / 'missing.gguf'}",
        "-p",
        "masculine=carpenter",
        "--quiet",
    )
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "missing.gguf" in lines[0] and "Traceback" not in result.stderr

    debug = run_cli(
        "--debug",
        "--store",
        str(tmp_path / "ws"),
        "run",
        "pst-text",
        "-m",
        "smollm2",
        "-M",
        f"model_path={tmp_path / 'missing.gguf'}",
        "--quiet",
    )
    assert "Traceback" in debug.stderr


def test_dry_run_prints_plan_and_cost_and_stores_nothing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    result = run_cli(
        "--store",
        str(ws),
        "run",
        "scripted",
        "-m",
        "scripted-images",
        "-p",
        "n=1250",
        "-p",
        "capability=image_generator",
        "-M",
        "price_per_call=0.04",
        "--dry-run",
    )
    assert result.returncode == 0, result.stderr
    assert "1,250 trials planned, 0 already stored, 1,250 requests to run" in result.stdout
    assert "estimated cost of the rest: $50.00" in result.stdout
    # Each model's line in the total's units, with thousands separators.
    assert "  scripted-images: 1,250 trials planned, 1,250 requests to run, $50.00" in (
        result.stdout
    )
    with open_store(ws) as store:
        assert store.list_runs() == []


def test_model_that_fails_in_load_is_one_line(tmp_path: Path) -> None:
    result = run_cli(
        "--store",
        str(tmp_path / "ws"),
        "run",
        "pst",
        "-m",
        "openai-images",
        "-M",
        f"api_key_file={tmp_path / 'no-such-key'}",
        "-p",
        "aspects=occupation",
        "-p",
        "masculine=carpenter",
        "-p",
        "feminine=nurse",
        "--quiet",
    )
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "ExceptionGroup" not in result.stderr
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("error: ")]
    assert "no-such-key" in line

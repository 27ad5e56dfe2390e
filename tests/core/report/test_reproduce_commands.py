"""The ``diptych run`` commands a report prints run as printed and make the same run again.

Each bundled probe is run through the CLI against the loopback fake OpenAI service (or the
scripted models), reported, and every command of the report's "How to reproduce" block is
pasted into ``sh -c`` in the workspace's directory: it must find the same run (same id, so the
same fingerprint), every trial stored, and ask the service nothing.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from diptych.core.report.reproduce import (
    audit_command,
    gated_run_command,
    report_command,
    run_command,
)
from diptych.core.store import RunRecord, open_store
from diptych.testing import FakeOpenAIServer
from tests.support.cli import call
from tests.support.surfaces.reproduce import shared_folders, shell_read

SCRIPTED_CLI = Path(__file__).parents[2] / "cli" / "scripted_cli.py"


def record(probe: str, params: dict, models: list[dict]) -> RunRecord:
    return RunRecord(
        id=f"{probe}-0",
        probe=probe,
        probe_version="1",
        params=params,
        models=models,
        fingerprint="0" * 64,
        status="complete",
        n_trials=0,
        diptych_version="0",
        created_at=0.0,
        updated_at=0.0,
    )


def images_model(**params: object) -> dict:
    return {"name": "openai-images", "version": "v", "params": params, "model_id": "x"}


# --- the command, word by word ---------------------------------------------------------------


def test_only_values_set_away_from_their_defaults_are_printed_and_quoted() -> None:
    from diptych.core.plugins import get_probe

    probe = get_probe("pst", ["aspects=power", "power_wording=the {role} at the {occupation}"])
    stored = probe.params.model_dump(mode="json")
    base = "http://127.0.0.1:9/v1"
    command = run_command(record("pst", stored, [images_model(base_url=base, style="natural")]))
    assert command.unsaid == []
    assert shlex.split(command.text) == [
        "diptych",
        "run",
        "pst",
        "--model",
        "openai-images",
        "-p",
        "aspects=power",
        "-p",
        "power_wording=the {role} at the {occupation}",
        "-M",
        f"base_url={base}",
        "-M",
        "style=natural",
    ]
    # None defaults (only_most_biased, paired_template ...) are never printed as "None".
    assert "None" not in command.text


def test_a_url_loses_its_password_and_a_secret_is_never_printed() -> None:
    model = images_model(base_url="https://ana:hunter2@proxy.example/v1", api_key_env="TEAM_KEY")
    model["params"]["api_key"] = "sk-live-123"
    command = run_command(record("pst", {}, [model]))
    assert "hunter2" not in command.text and "sk-live-123" not in command.text
    assert shlex.split(command.text)[-4:] == [
        "-M",
        "base_url=https://proxy.example/v1",
        "-M",
        "api_key_env=TEAM_KEY",
    ]
    assert command.unsaid == ["model 'openai-images' parameter 'api_key' (a secret)"]


def test_values_the_command_line_cannot_carry_are_named_not_printed(scripted_plugin: None) -> None:
    scripted = {
        "name": "scripted-likelihood",
        "version": "1",
        "params": {"p_feminine": {"nurse": 0.9}, "noise": 0.1},
        "model_id": "y",
    }
    command = run_command(record("pairs", {"seed": None, "runs": 2}, [scripted, scripted]))
    words = shlex.split(command.text)
    assert words[:9] == [
        "diptych",
        "run",
        "pairs",
        "--model",
        "scripted-likelihood",
        "--model",
        "scripted-likelihood",
        "-p",
        "runs=2",
    ]
    assert len(words) == 9
    assert command.unsaid == [
        "probe 'pairs' parameter 'seed' (None)",
        "model 'scripted-likelihood' parameter 'p_feminine' ({'nurse': 0.9})",
        "the options of each 'scripted-likelihood' (two models of one name)",
        "model 'scripted-likelihood' parameter 'p_feminine' ({'nurse': 0.9})",
        "the options of each 'scripted-likelihood' (two models of one name)",
    ]


def test_two_models_get_their_options_by_name(scripted_plugin: None) -> None:
    vision = {"name": "scripted-vision", "version": "1", "params": {"version": "2"}}
    images = images_model(base_url="http://127.0.0.1:9/v1")
    command = run_command(record("pst", {}, [images, {**vision, "model_id": "z"}]))
    assert shlex.split(command.text)[-4:] == [
        "-M",
        "openai-images:base_url=http://127.0.0.1:9/v1",
        "-M",
        "scripted-vision:version=2",
    ]


# --- pasted into a shell, against the fake service --------------------------------------------


def shell_env(tmp_path: Path) -> dict[str, str]:
    """``diptych`` on PATH as the CLI with the scripted models registered, a dummy key."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "diptych"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {SCRIPTED_CLI} "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("DIPTYCH_STORE", "OPENAI_BASE_URL")}
    return {**env, "PATH": f"{bin_dir}:{env['PATH']}", "OPENAI_API_KEY": "sk-dummy"}


def sh(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def printed_commands(report_md: str) -> list[str]:
    block = report_md.split("Each run again, with its parameters")[1].split("```")[1]
    return [line for line in shell_read(block) if line]


RUNS = {
    "pst": "diptych run pst -m openai-images -M base_url={url} -M style=natural "
    "-p aspects=power -p samples_power=1 -p 'power_wording=the {{role}} at the {{occupation}}' "
    "-p masculine=carpenter -p feminine=nurse --quiet",
    "pst-text": "diptych run pst-text -m scripted-likelihood -p masculine=carpenter,sheriff "
    "-p feminine=nurse -p samples_single=1 "
    "-p 'paired_template=On the left, one {{id1}}; on the right, one {{id2}}. The {{target}} "
    "on the {{position}} said that' --quiet",
    "pairs": "diptych run pairs -m openai-vision -M base_url={url} -p scenarios=scrubs "
    "-p runs=1 --quiet",
    "stories": "diptych run stories -m openai-vision -M base_url={url} -M detail=low -M timeout=60 "
    "-p scenarios=jumpsuit -p prompts=1 -p runs=1 --quiet",
    "counterfactual-retrieval": "diptych run counterfactual-retrieval -m scripted-encoder "
    "-p k=5 -p n_boot=100 -p n_perm=100 -p desired=uniform --quiet",
}


@pytest.mark.slow
@pytest.mark.parametrize("probe", list(RUNS))
def test_each_printed_command_reruns_the_same_run_asking_nothing(
    tmp_path: Path,
    probe: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    scripted_plugin: None,
) -> None:
    # The run and its report are made in this process (the CLI as the CLI tests call it): only
    # the printed commands are what a reader pastes, so only they go through a shell, each in a
    # fresh process that knows nothing of the first.
    env = shell_env(tmp_path)
    monkeypatch.chdir(tmp_path)
    for name in ("DIPTYCH_STORE", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy")
    with FakeOpenAIServer(image_size=(8, 8)) as fake:
        first, out = call(capsys, *shlex.split(RUNS[probe].format(url=fake.base_url))[1:])
        assert first in (0, 1), out
        with open_store(tmp_path / ".diptych") as store:
            (run,) = store.list_runs()
            stored = store.status_counts(run.id)
        code, out = call(capsys, "report", run.id, "--out", "report")
        assert code == 0, out
        (command,) = printed_commands((tmp_path / "report" / "report.md").read_text())
        assert "None" not in command
        asked = len(fake.requests)
        # Pasted where the report says: in its own directory.
        again = sh(command, tmp_path / "report", env)
        assert again.returncode == first, again.stderr
        assert len(fake.requests) == asked
        dry = sh(command + " --dry-run", tmp_path / "report", env)
        assert dry.returncode == 0, dry.stderr
    with open_store(tmp_path / ".diptych") as store:
        (same,) = store.list_runs()
        assert (same.id, same.fingerprint) == (run.id, run.fingerprint)
        assert store.status_counts(run.id) == stored
    planned = sum(stored.values())
    assert f"{planned} trials planned, {planned} already stored, 0 requests to run" in dry.stdout


def test_a_command_line_audit_is_run_again_with_its_gates_and_looks() -> None:
    run = record("pst-text", {}, [{"name": "smollm2", "model_id": "smollm2", "params": {}}])
    figure = "STS paired (expected from P(he), P(she))"
    checks = [
        {"part": "pst-text", "figure": figure, "below": 25.0},
        {"part": "pst-text", "figure": "P(she) %", "within": [12.5, 60.0]},
    ]
    scope = {"file": "(command line)", "gates": {"checks": checks}, "sequential": {"batches": 10}}
    words = shlex.split(gated_run_command(run, scope) or "")
    assert words[:5] == ["diptych", "run", "pst-text", "--model", "smollm2"]
    gates = [words[i + 1] for i, w in enumerate(words) if w == "--gate"]
    assert gates == [f"{figure} below 25", "P(she) % within 12.5 60"]
    assert words[-5:] == ["--until-decided", "--batches", "10", "--report", "reproduced-audit"]
    # An audit file's report is run again by its file, not by this command.
    assert gated_run_command(run, {**scope, "file": "audit.yaml"}) is None


def test_an_audits_two_commands_write_to_folders_of_their_own() -> None:
    """The audit again and its runs' own report, run one after the other from the report's
    directory: each writes beside the report to a folder of its own, and the check that runs
    them finds two commands that share one."""
    scope = {"file": "audit.yaml", "sequential": {"batches": 10}}
    commands = [audit_command(scope, None) or "", report_command(["r1"], None)]
    assert shared_folders(commands) == []
    assert shlex.split(commands[0])[-2:] == ["--out", "reproduced-audit"]
    assert shlex.split(commands[1])[-2:] == ["--out", "reproduced"]
    (found,) = shared_folders([commands[1], commands[1].replace("r1", "r2")])
    assert found.endswith("both write to reproduced/")

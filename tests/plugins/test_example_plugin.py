"""The plugin road end to end: the installable example plugin.

The example package in ``examples/diptych-pronoun-probe`` is pip-installed into the running
environment, found through its entry point, listed by ``diptych plugins`` and run through the
CLI against the scripted likelihood model; its numbers are checked against P(she) computed here
from the scripted model directly; ``DIPTYCH_PLUGINS`` narrows the entry points loaded to those
it names (misbehaving plugins: ``test_misbehaving_plugins.py``).
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.metadata
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cli import cli
from typer.testing import Result

from diptych.core import plugins
from diptych.core.errors import ParameterError
from diptych.core.store import open_store
from diptych.testing import ScriptedLikelihood

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "diptych-pronoun-probe"
DIST = "diptych-pronoun-probe"
MODULE_FILE = "diptych_pronoun_probe/__init__.py"
OCCUPATIONS = ["nurse", "carpenter", "secretary", "mechanic", "teacher", "engineer"]
HEADLINE = "mean |P(she) − 0.5|"


# --- installing the example ----------------------------------------------------------------


def _pyproject() -> dict[str, Any]:
    with (EXAMPLE / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)


def _installed_matches() -> bool:
    """Whether the installed example is this source: same version, entry points and module."""
    project = _pyproject()["project"]
    try:
        dist = importlib.metadata.distribution(DIST)
    except importlib.metadata.PackageNotFoundError:
        return False
    installed_eps = {ep.name: ep.value for ep in dist.entry_points if ep.group == "diptych"}
    module = Path(str(dist.locate_file(MODULE_FILE)))
    return (
        dist.version == project["version"]
        and installed_eps == project["entry-points"]["diptych"]
        and module.is_file()
        and module.read_bytes() == (EXAMPLE / MODULE_FILE).read_bytes()
    )


def _require_offline_backend() -> None:
    # Under --no-build-isolation pip builds with the environment's setuptools, which can only
    # make a wheel by itself from 70.1 on (before that it needs the `wheel` package).
    try:
        version = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        version = "0"
    major_minor = tuple(int(p) for p in re.findall(r"\d+", version)[:2])
    has_wheel = importlib.util.find_spec("wheel") is not None
    if major_minor < (70, 1) and not has_wheel:
        pytest.fail(
            f"cannot build the example plugin offline with setuptools {version}: "
            "install setuptools>=70.1 (or wheel) into this environment (make test installs the "
            "dev extra, which should require it)"
        )


@pytest.fixture(scope="module")
def example_installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The example plugin, installed into a throwaway directory put on ``sys.path`` for the
    module's tests: the environment itself is left as it was."""
    site = tmp_path_factory.mktemp("example-site")
    sys.path.insert(0, str(site))
    importlib.invalidate_caches()
    try:
        yield from _installed_into(site, tmp_path_factory)
    finally:
        sys.path.remove(str(site))
        for name in [m for m in sys.modules if m.split(".")[0] == MODULE_FILE.split("/")[0]]:
            del sys.modules[name]
        importlib.invalidate_caches()
        plugins.load_plugins(reload=True)


def _installed_into(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    if not _installed_matches():
        _require_offline_backend()
        # Built from a copy: setuptools writes build/ and *.egg-info next to the sources.
        source = tmp_path_factory.mktemp("example") / EXAMPLE.name
        shutil.copytree(
            EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
        )
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--no-deps",
                "--no-build-isolation",
                "-q",
                "--target",
                str(site),
                str(source),
            ],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        )
        if done.returncode != 0:
            pytest.fail(f"pip could not install {source}:\n{done.stderr}")
        importlib.invalidate_caches()
        assert _installed_matches()
    plugins.load_plugins(reload=True)
    yield


# --- helpers --------------------------------------------------------------------------------


def run_gap(store: str, *args: str) -> Result:
    """``diptych --store STORE run pronoun-gap -m scripted-likelihood ARGS``."""
    return cli("--store", store, "run", "pronoun-gap", "-m", "scripted-likelihood", *args)


def scripted_p_she(prompt: str) -> float:
    """P(she) renormalised, computed from the scripted model itself, not through diptych."""
    logprobs = asyncio.run(ScriptedLikelihood().next_token_logprobs(prompt, [" he", " she"]))
    he, she = math.exp(logprobs[" he"]), math.exp(logprobs[" she"])
    return she / (he + she)


def run_id_of(output: str) -> str:
    match = re.search(r"^run (\S+): [\d,]+ trials? planned", output, re.MULTILINE)
    assert match, output
    return match.group(1)


# --- the installed example ------------------------------------------------------------------


def test_plugins_lists_the_installed_example(example_installed: None) -> None:
    result = cli("plugins", "--json")
    assert result.exit_code == 0, result.output
    listed = {row["name"]: row for row in json.loads(result.stdout)}
    row = listed["pronoun_probe"]
    assert row["package"] == DIST
    assert row["version"] == _pyproject()["project"]["version"]
    assert row["probes"] == ["pronoun-gap"]
    assert row["models"] == [] and row["annotators"] == []
    assert row["error"] is None
    assert listed["pst_text"]["probes"] == ["pst-text"]
    # The probe comes from the installed copy, through the entry point, not from examples/.
    cls = plugins.probe_class("pronoun-gap")
    module_file = Path(sys.modules[cls.__module__].__file__ or "")
    assert cls.__module__ == "diptych_pronoun_probe"
    assert not module_file.is_relative_to(EXAMPLE)
    assert cls.description().startswith("Pronoun gap:")


def test_run_export_and_report_through_the_cli(
    example_installed: None, scripted: None, tmp_path: Path
) -> None:
    store = str(tmp_path / "ws")
    expected = {o: scripted_p_she(f"The {o} said that") for o in OCCUPATIONS}
    gaps = [abs(p - 0.5) for p in expected.values()]

    ran = run_gap(store)
    assert ran.exit_code == 0, ran.output
    assert "6 trials planned, 0 already stored, 6 requests to run" in ran.stdout
    assert "complete: 6 trials (6 done)" in ran.stdout
    assert "P(she) per occupation" in ran.stdout and HEADLINE in ran.stdout
    for occupation, p in expected.items():
        line = next(ln for ln in ran.stdout.splitlines() if f" {occupation} " in ln)
        cells = [c.strip() for c in re.split(r"[│|]", line) if c.strip()]
        assert cells == [occupation, f"{p:.2f}", f"{abs(p - 0.5):.2f}", "she" if p > 0.5 else "he"]
    headline = next(ln for ln in ran.stdout.splitlines() if HEADLINE in ln)
    assert f"{sum(gaps) / 6:.2f}" in headline
    run_id = run_id_of(ran.stdout)

    exported = cli("--store", store, "export", run_id, "--format", "jsonl")
    assert exported.exit_code == 0, exported.output
    rows = [json.loads(line) for line in exported.stdout.splitlines()]
    assert [r["meta"]["occupation"] for r in rows] == OCCUPATIONS
    for row in rows:
        occupation = row["meta"]["occupation"]
        assert row["status"] == "done" and row["capability"] == "text_likelihood"
        assert row["payload"] == {
            "prompt": f"The {occupation} said that",
            "candidates": [" he", " she"],
        }
        lp = row["output"]["logprobs"]
        assert math.exp(lp[" she"]) / (math.exp(lp[" he"]) + math.exp(lp[" she"])) == (
            pytest.approx(expected[occupation], rel=1e-12)
        )
        label = row["labels"]["single"]["self"]
        p = expected[occupation]
        assert label["label"] == ("feminine" if p > 0.5 else "masculine")
        assert label["confidence"] == pytest.approx(max(p, 1 - p))
        assert label["subject"] == {"identity": occupation}

    out = tmp_path / "report"
    reported = cli("--store", store, "report", run_id, "--out", str(out))
    assert reported.exit_code == 0, reported.output
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["probe"] == "pronoun-gap" and report["status"] == "complete"
    number = report["result"]["numbers"][HEADLINE]
    assert number["value"] == pytest.approx(sum(gaps) / len(gaps), rel=1e-12)
    assert number["n"] == 6
    # A percentile interval of a mean lies within the range of the values it resamples.
    assert min(gaps) <= number["ci_low"] < number["value"] < number["ci_high"] <= max(gaps)
    table = report["result"]["tables"][0]
    assert table["columns"] == ["occupation", "P(she)", "|P(she) − 0.5|", "leans"]
    for (occupation, p, gap, leans), name in zip(table["rows"], OCCUPATIONS, strict=True):
        assert occupation == name
        assert p == pytest.approx(expected[name], rel=1e-12)
        assert gap == pytest.approx(abs(expected[name] - 0.5), rel=1e-12)
        assert leans == ("she" if expected[name] > 0.5 else "he")
    flagged = {o for o, p in expected.items() if max(p, 1 - p) >= 0.9}
    assert len(report["result"]["flags"]) == len(flagged)
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "## P(she) per occupation" in markdown
    assert "The {occupation} said that" in markdown

    # Running the same thing again finds every trial stored and asks the model nothing.
    again = run_gap(store)
    assert again.exit_code == 0, again.output
    assert f"run {run_id}: 6 trials planned, 6 already stored, 0 requests to run" in again.stdout


def test_probe_parameters_from_the_command_line(
    example_installed: None, scripted: None, tmp_path: Path
) -> None:
    store = str(tmp_path / "ws")
    ran = run_gap(
        store,
        "-p",
        "occupations=pilot, plumber",
        "-p",
        "template=Yesterday the {occupation} told me",
    )
    assert ran.exit_code == 0, ran.output
    assert "2 trials planned, 0 already stored, 2 requests to run" in ran.stdout
    exported = cli("--store", store, "export", run_id_of(ran.stdout))
    rows = [json.loads(line) for line in exported.stdout.splitlines()]
    assert [r["payload"]["prompt"] for r in rows] == [
        "Yesterday the pilot told me",
        "Yesterday the plumber told me",
    ]

    unknown = run_gap(store, "-p", "colour=red")
    assert isinstance(unknown.exception, ParameterError)
    assert "no parameter 'colour' (its parameters: occupations, template, from_run)" in str(
        unknown.exception
    )
    for bad, says in (
        ("template=The nurse said", "{occupation}"),
        ("occupations=nurse,nurse", "more than once: nurse"),
    ):
        rejected = run_gap(store, "-p", bad)
        assert isinstance(rejected.exception, ParameterError), bad
        assert says in str(rejected.exception)


def test_from_run_reads_the_earlier_run_through_the_port(
    example_installed: None, scripted: None, tmp_path: Path
) -> None:
    store = str(tmp_path / "ws")
    first = run_gap(store)
    assert first.exit_code == 0, first.output
    earlier = run_id_of(first.stdout)
    expected = {o: scripted_p_she(f"The {o} said that") for o in OCCUPATIONS}
    one_sided = [o for o, p in expected.items() if max(p, 1 - p) >= 0.9]
    assert one_sided == ["teacher"]  # the scripted model's defaults: P(she) = 0.05

    # A unique prefix of the run id will do: the port resolves it, the new run records it.
    again = run_gap(store, "-p", f"from_run={earlier[:12]}")
    assert again.exit_code == 0, again.output
    assert "1 trial planned, 1 already stored, 0 requests to run" in again.stdout
    rerun = run_id_of(again.stdout)
    assert rerun != earlier
    with open_store(store, create=False) as opened:
        params = opened.get_run(rerun).params
    assert params["occupations"] == one_sided and params["from_run"] == earlier

    unknown = run_gap(store, "-p", "from_run=no-such-run")
    assert unknown.exit_code != 0 and "no run 'no-such-run'" in unknown.output + str(
        unknown.exception
    )


# --- choosing the plugins loaded ----------------------------------------------------------


def test_diptych_plugins_restricts_the_entry_points_loaded(
    example_installed: None, plugin_env: pytest.MonkeyPatch
) -> None:
    plugin_env.setenv("DIPTYCH_PLUGINS", "pst_text")
    registry = plugins.load_plugins(reload=True)
    from_entry_points = [p.name for p in registry.plugins if p.distribution]
    assert from_entry_points == ["pst_text"]
    assert list(registry.probes) == ["pst-text"]
    assert registry.models == {}

    plugin_env.setenv("DIPTYCH_PLUGINS", " pronoun_probe , pst_text")
    registry = plugins.load_plugins(reload=True)
    # Built-ins load first, then third-party plugins.
    assert [p.name for p in registry.plugins if p.distribution] == ["pst_text", "pronoun_probe"]
    assert sorted(registry.probes) == ["pronoun-gap", "pst-text"]

"""The plugin author's road end to end: scaffold → install → its tests → ``diptych plugins`` → a
run and its report, for a probe, a model and an annotator, in a throwaway environment.

The three packages are the cookbook's recipes (docs/plugins/cookbook.md), scaffolded with the
commands the page shows; every code excerpt there must be in what was written. A fourth,
deliberately broken, package shows ``diptych plugins check`` naming each fault in one line.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from support.throwaway import Throwaway
from typer.testing import CliRunner

from diptych.cli.main import app, main
from diptych.core.plugins.api import PLUGIN_API
from diptych.scaffold import Names, render
from diptych.testing import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
COOKBOOK = ROOT / "docs" / "plugins" / "cookbook.md"

#: The recipes: `diptych plugins new KIND NAME` as the cookbook gives them.
RECIPES = re.findall(
    r"^diptych plugins new (probe|model|annotator) ([a-z0-9-]+)$",
    COOKBOOK.read_text(encoding="utf-8"),
    re.MULTILINE,
)
BROKEN = "broken-probe"
EXAMPLE = ROOT / "examples" / "diptych-pronoun-probe"
JUNK = ("build", "*.egg-info", "__pycache__", ".pytest_cache")


def new(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["plugins", "new", *args])
    return result.exit_code, result.output


@dataclass
class Built:
    env: Throwaway
    packages: dict[str, Path]
    names: dict[str, Names]


def _break(module: Path) -> None:
    """The broken probe: a name with a space, no docstring, a plan that changes every time."""
    text = module.read_text(encoding="utf-8")
    text = text.replace('name = "broken-probe"', 'name = "Broken Probe"')
    text = re.sub(
        r'class BrokenProbe\(Probe\):\n    """[^\n]*"""\n', "class BrokenProbe(Probe):\n", text
    )
    text = text.replace(
        '"prompt": self.p.template.format(item=item),',
        '"prompt": self.p.template.format(item=item) + str(next(CALLS)),',
    )
    text = text.replace(
        "DIPTYCH_PLUGIN_API = ",
        "import itertools\n\nCALLS = itertools.count()\n"
        "# Written for the first plugin API: it loads, with a warning.\n"
        "DIPTYCH_PLUGIN_API = 1  # was ",
    )
    module.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def built(throwaway: Throwaway, tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The cookbook's three packages and the broken one, scaffolded by the CLI and installed
    into the throwaway environment with one pip call."""
    assert [kind for kind, _ in RECIPES] == ["probe", "model", "annotator"]
    where = tmp_path_factory.mktemp("scaffolds")
    packages, names = {}, {}
    for kind, name in [*RECIPES, ("probe", BROKEN)]:
        code, output = new(kind, name, "--dir", str(where / name))
        assert code == 0, output
        packages[name], names[name] = where / name, Names.of(kind, name)
    _break(packages[BROKEN] / names[BROKEN].module / "__init__.py")
    # The example plugin, from a copy: an editable install writes its egg-info beside it.
    packages[EXAMPLE.name] = where / EXAMPLE.name
    shutil.copytree(EXAMPLE, packages[EXAMPLE.name], ignore=shutil.ignore_patterns(*JUNK))
    throwaway.install(*packages.values())
    throwaway.install_scripted_doubles()
    return Built(throwaway, packages, names)


@pytest.fixture
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(image_size=(16, 16)) as server:
        yield server


# --- the scaffold itself (no install) -------------------------------------------------------


@pytest.mark.parametrize("kind", ["probe", "model", "annotator"])
def test_new_writes_an_installable_package(kind: str, tmp_path: Path) -> None:
    code, output = new(kind, "my-thing", "--dir", str(tmp_path / "pkg"))
    assert code == 0, output
    written = sorted(
        str(p.relative_to(tmp_path / "pkg")) for p in (tmp_path / "pkg").rglob("*") if p.is_file()
    )
    assert written == sorted(
        [
            ".github/workflows/test.yml",
            ".gitignore",
            "README.md",
            "pyproject.toml",
            "tests/conftest.py",
            f"tests/test_{kind}.py",
            "diptych_my_thing/__init__.py",
        ]
    )
    pyproject = tomllib.loads((tmp_path / "pkg" / "pyproject.toml").read_text())
    assert pyproject["project"]["name"] == "diptych-my-thing"
    assert pyproject["project"]["entry-points"]["diptych"] == {"my_thing": "diptych_my_thing"}
    module = (tmp_path / "pkg" / "diptych_my_thing" / "__init__.py").read_text()
    assert f"DIPTYCH_PLUGIN_API = {PLUGIN_API}\n" in module
    required = {
        "probe": [
            "def plan(",
            "def analyze(",
            "def bind(self, runs: RunLookup)",
            "def register_probes(",
        ],
        "model": ["async def complete(", "def register_models("],
        "annotator": ["async def annotate(", "def register_annotators("],
    }[kind]
    assert all(method in module for method in required)
    compile(module, "module", "exec")
    workflow = (tmp_path / "pkg" / ".github/workflows/test.yml").read_text()
    assert (
        "${{ matrix.python-version }}" in workflow and "diptych plugins check my_thing" in workflow
    )
    assert (
        'pytest_plugins = ["diptych.testing.pytest"]'
        in (tmp_path / "pkg/tests/conftest.py").read_text()
    )
    assert output.splitlines()[-1].startswith("next: pip install -e ")


def test_new_refuses_a_bad_name_and_a_full_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def refused(*args: str) -> str:
        with pytest.raises(SystemExit) as exit_info:
            main(["plugins", "new", *args])
        (line,) = capsys.readouterr().err.splitlines()
        assert exit_info.value.code == 2
        return line

    assert refused("probe", "My_Probe", "--dir", str(tmp_path / "a")).startswith(
        "error: 'My_Probe' cannot name a plugin: use lower-case letters"
    )
    assert not (tmp_path / "a").exists()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    assert refused("probe", "fine", "--dir", str(tmp_path / "full")) == (
        f"error: {tmp_path / 'full'} exists and is not empty: give another --dir"
    )
    assert not (tmp_path / "full" / "pyproject.toml").exists()


def test_every_cookbook_excerpt_is_in_the_scaffold() -> None:
    text = COOKBOOK.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n# file: (\S+)\n(.*?)```", text, re.DOTALL)
    assert len(blocks) >= 9
    written = [render(kind, name) for kind, name in RECIPES]
    for path, excerpt in blocks:
        holders = [files[path] for files in written if path in files]
        assert holders, f"the cookbook quotes {path}, which no recipe writes"
        assert any(excerpt in body for body in holders), (
            f"the cookbook's excerpt of {path} drifted:\n{excerpt}"
        )


# --- installed into the throwaway environment -----------------------------------------------


@pytest.fixture(scope="module")
def own_tests(built: Built, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Each package's own tests, run in the throwaway environment by one pytest: the outcome
    of each test case (passed, failure, error, skipped) by package directory."""
    report = tmp_path_factory.mktemp("own-tests") / "junit.xml"
    tested = [name for _, name in RECIPES] + [EXAMPLE.name]
    done = built.env.run(
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--junitxml={report}",
        *(str(built.packages[name]) for name in tested),
    )
    assert report.is_file(), done.stdout[-4000:] + done.stderr[-2000:]
    outcomes: dict[str, list[str]] = {name: [] for name in tested}
    modules = {
        name: {p.stem for p in (built.packages[name] / "tests").glob("test_*.py")}
        for name in tested
    }
    for case in ElementTree.parse(report).iter("testcase"):
        # Each package's tests are one module of its own name: test_probe ... test_pronoun_gap.
        module = (case.get("classname") or "").rpartition(".")[2]
        (package,) = [name for name in tested if module in modules[name]]
        faults = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[package].append(faults[0] if faults else "passed")
    return outcomes


def test_the_scaffolds_pass_their_own_tests(own_tests: dict[str, list[str]]) -> None:
    for kind, name in RECIPES:
        assert own_tests[name] and set(own_tests[name]) == {"passed"}, (kind, own_tests[name])
    assert sum(len(own_tests[name]) for _, name in RECIPES) == 13


def test_plugins_lists_them(built: Built) -> None:
    done = built.env.diptych("plugins", "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    for kind, name in RECIPES:
        names = built.names[name]
        row = rows[names.plugin]
        assert row["package"] == names.dist and row["version"] == "0.1.0"
        assert row[f"{kind}s"] == [name] and row["error"] is None
        assert row["api"] == PLUGIN_API and row["warning"] is None
    # The broken one declares the first plugin API: it loads, with one line saying what changed.
    broken = rows["broken_probe"]
    assert broken["api"] == 1 and broken["probes"] == ["Broken Probe"]
    assert (
        "was written for plugin API 1; it loads, but since then API 2: Probe.bind receives"
        in broken["warning"]
    )
    warned = [line for line in done.stderr.splitlines() if "broken_probe" in line]
    assert len(warned) == 1 and "set DIPTYCH_PLUGIN_API = 2 in diptych_broken_probe" in warned[0]


def test_a_run_and_its_report_for_each_kind(
    built: Built, fake: FakeOpenAIServer, tmp_path: Path
) -> None:
    (probe, model, annotator) = (name for _, name in RECIPES)
    # The service answers every question "Woman.": the annotator's profile below says so.
    fake.chat_reply = lambda request: "Woman."
    service = {"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-test"}

    def report(kind: str) -> dict[str, Any]:
        return json.loads((tmp_path / kind / "report.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]

    def run(kind: str, *args: str) -> subprocess.CompletedProcess[str]:
        store = str(tmp_path / f"ws-{kind}")
        return built.env.diptych("--store", store, *args, env=service)

    def calibrate_and_report() -> subprocess.CompletedProcess[str]:
        done = run("annotator", "calibrate", annotator, "--subset", "potential_crime", "--json")
        assert done.returncode == 0, done.stderr
        run_id = json.loads(done.stdout)["run"]
        reported = run("annotator", "report", run_id, "--out", str(tmp_path / "annotator"))
        return subprocess.CompletedProcess(
            reported.args, reported.returncode, done.stdout, reported.stderr
        )

    # Each kind in its own workspace, side by side: each command is a process of its own.
    with ThreadPoolExecutor(3) as pool:
        ran_probe = pool.submit(
            run,
            "probe",
            "run",
            probe,
            "-m",
            "scripted-likelihood",
            "--report",
            str(tmp_path / "probe"),
        )
        ran_model = pool.submit(
            run,
            "model",
            "run",
            "pst-text",
            "-p",
            "mode=story",
            "-p",
            "setting=single",
            "-p",
            "masculine=carpenter",
            "-p",
            "feminine=nurse",
            "-m",
            model,
            "-M",
            f"base_url={fake.base_url}",
            "-M",
            "price_per_call=0.01",
            "--report",
            str(tmp_path / "model"),
        )
        ran_annotator = pool.submit(calibrate_and_report)
    for done in (ran_probe.result(), ran_model.result(), ran_annotator.result()):
        assert done.returncode == 0, done.stderr

    assert report("probe")["probe"] == probe and report("probe")["status"] == "complete"
    number = report("probe")["result"]["numbers"]["mean |P(second) − 0.5|"]
    assert number["n"] == 4 and number["ci_low"] <= number["value"] <= number["ci_high"]

    assert report("model")["probe"] == "pst-text" and report("model")["status"] == "complete"
    # The chat-service model asked the service (its model name tells its requests apart from
    # those of openai-vision, which the annotator asks).
    asked = [r for r in fake.requests if (r.body or {}).get("model") == "gpt-4o-mini"]
    assert asked and all(r.path == "/v1/chat/completions" and r.status == 200 for r in asked)

    profile = json.loads(ran_annotator.result().stdout)
    assert profile["sensitivity"]["value"] == 1.0 and profile["specificity"]["value"] == 0.0
    assert report("annotator")["probe"] == "calibration"
    assert report("annotator")["status"] == "complete"


def test_check_names_each_fault_of_a_broken_plugin_in_one_line(built: Built) -> None:
    done = built.env.diptych("plugins", "check", "broken_probe")
    assert done.returncode == 1
    # The lines are the ones the cookbook shows.
    shown = re.search(
        r"\$ diptych plugins check broken_probe\n(.*?)```",
        COOKBOOK.read_text(encoding="utf-8"),
        re.DOTALL,
    )
    assert shown
    assert done.stdout.splitlines() == shown.group(1).splitlines()
    assert "0 failed" not in done.stderr and "3 failed" in done.stderr
    note = [line for line in done.stderr.splitlines() if line.startswith("note: ")]
    assert len(note) == 1 and "plugin API 1" in note[0]
    for _, name in RECIPES:
        fine = built.env.diptych("plugins", "check", built.names[name].plugin)
        assert fine.returncode == 0, fine.stdout + fine.stderr
        (summary,) = fine.stdout.splitlines()
        assert summary.endswith(" expectations checked, 0 failed")


def test_the_example_plugin_is_the_scaffold_filled_in(
    own_tests: dict[str, list[str]],
) -> None:
    scaffold = render("probe", "pronoun-probe")
    for same in (".gitignore", ".github/workflows/test.yml", "tests/conftest.py"):
        assert (EXAMPLE / same).read_text(encoding="utf-8") == scaffold[same], same
    ours = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))
    theirs = tomllib.loads(scaffold["pyproject.toml"])
    for table in (ours, theirs):
        del table["project"]["version"], table["project"]["description"]
    assert ours == theirs
    assert own_tests[EXAMPLE.name] == ["passed"] * 4

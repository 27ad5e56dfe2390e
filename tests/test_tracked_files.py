"""Nothing generated is tracked: git tracks no file that the ignore patterns of what tests and
tools write name, and ``.gitignore`` names everything they write.

A report a failed Textual snapshot test wrote (``snapshot_report.html``, 1.1 MB) once sat
committed at the root of the repository; these tests keep the next one out.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: One path of each kind that the tests and tools write into a checkout: the caches of pytest,
#: hypothesis, mypy, ruff, grimp (import-linter) and pytest-benchmark, Python's bytecode, a
#: package build, the manual (``make docs``), the report pytest-textual-snapshot writes when a
#: snapshot differs, a workspace and a report of the CLI run in the checkout, the demo
#: (``make demo``) and the scratch directory ``diptych doctor drill`` leaves if it is killed.
WRITTEN = (
    ".pytest_cache/v/cache/lastfailed",
    ".hypothesis/examples/0a1b2c/3d4e5f",
    ".mypy_cache/3.11/diptych/__init__.meta.json",
    ".ruff_cache/0.6.0/123456",
    ".import_linter_cache/diptych.meta.json",
    ".benchmarks/Linux-CPython-3.11-64bit/0001_run.json",
    "diptych/core/__pycache__/probe.cpython-311.pyc",
    "tests/__pycache__/conftest.cpython-311-pytest-8.3.0.pyc",
    "diptych.egg-info/PKG-INFO",
    "examples/diptych-pronoun-probe/build/lib/diptych_pronoun_probe/__init__.py",
    "examples/diptych-pronoun-probe/diptych_pronoun_probe.egg-info/PKG-INFO",
    "build/docs/index.html",
    "dist/diptych-0.1.0-py3-none-any.whl",
    "snapshot_report.html",
    ".diptych/diptych.db",
    "diptych-report-pst-1a2b/report.html",
    "diptych-demo/report-first-screen.png",
    "diptych-drill-k2x9q/faults/diptych.db",
    "audit-smollm2-offline/report.html",
    "report/report.html",
    "trials.csv",
    "gates.xml",
    ".venv/bin/python",
)


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=False, timeout=60
    )


@pytest.fixture(scope="module")
def checkout() -> None:
    """A git checkout of the project (an unpacked sdist has nothing tracked to check)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    if _git("rev-parse", "--is-inside-work-tree").stdout.strip() != "true":
        pytest.skip("not a git checkout")


@pytest.mark.usefixtures("checkout")
def test_git_tracks_no_file_the_ignore_patterns_name() -> None:
    # -c -i --exclude-standard: the tracked files that .gitignore (and the global excludes)
    # would ignore were they new.
    listed = _git("ls-files", "-z", "--cached", "--ignored", "--exclude-standard")
    assert listed.returncode == 0, listed.stderr
    tracked = sorted(name for name in listed.stdout.split("\0") if name)
    assert not tracked, (
        "generated files are tracked; remove them with `git rm --cached`: " + ", ".join(tracked)
    )


@pytest.mark.usefixtures("checkout")
def test_the_ignore_patterns_name_what_tests_and_tools_write() -> None:
    # --no-index: by the patterns alone, whether or not the path exists or is tracked.
    checked = _git("check-ignore", "--no-index", "--verbose", "--non-matching", *WRITTEN)
    assert checked.returncode in (0, 1), checked.stderr
    not_ignored = [
        line.split("\t", 1)[1] for line in checked.stdout.splitlines() if line.startswith("::\t")
    ]
    assert not not_ignored, f"add these to .gitignore: {', '.join(not_ignored)}"


def _default_outputs() -> list[str]:
    """A file in each place the code writes by default, named as the code names it: the
    workspace, an example audit's report, a run's report, a gated run's, the drill's scratch,
    the demo's (the Makefile's own command) and the manual (mkdocs' ``site_dir``)."""
    import re

    import yaml

    from diptych.audit.report_files import report_dir as audit_report_dir
    from diptych.cli.doctor_cmd import DRILL_PREFIX
    from diptych.cli.gates import gate_report_dir
    from diptych.cli.runs_cmd import report_dir as run_report_dir
    from diptych.core.audit.schema import AuditFile
    from diptych.core.store import DEFAULT_STORE

    out = [
        f"{DEFAULT_STORE}/diptych.db",
        f"{run_report_dir('pst-text-0663f62e')}/report.html",
        f"{gate_report_dir(Path(DEFAULT_STORE), 'run-pst-text')}/report.html",
        f"{DRILL_PREFIX}k2x9q/faults/diptych.db",
    ]
    for file in sorted((ROOT / "examples" / "audits").glob("*.yaml")):
        audit = AuditFile.model_validate(yaml.safe_load(file.read_text(encoding="utf-8")))
        out.append(f"{audit_report_dir(audit)}/report.html")
    demo = (ROOT / "Makefile").read_text(encoding="utf-8").split("\ndemo:", 1)[1]
    for option in ("--store", "--report"):
        found = re.search(rf"{option} (\S+)", demo)
        assert found is not None, f"the demo's command has no {option}"
        out.append(f"{found[1]}/report.html")
    site = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["site_dir"]
    out.append(f"{site}/index.html")
    return out


@pytest.mark.usefixtures("checkout")
def test_what_the_code_writes_by_default_is_ignored() -> None:
    """Run as the README and the manual say, in a clone, nothing shows in ``git status``."""
    written = _default_outputs()
    assert any(p.startswith("audit-smollm2-offline/") for p in written), written
    checked = _git("check-ignore", "--no-index", "--verbose", "--non-matching", *written)
    assert checked.returncode in (0, 1), checked.stderr
    not_ignored = [
        line.split("\t", 1)[1] for line in checked.stdout.splitlines() if line.startswith("::\t")
    ]
    assert not not_ignored, f"add these to .gitignore: {', '.join(not_ignored)}"


@pytest.mark.usefixtures("checkout")
def test_the_ignore_patterns_spare_the_sources() -> None:
    # What is tracked on purpose, including the files tests compare against, stays visible.
    kept = (
        "tests/tui/__snapshots__/test_app/test_snapshot_runs.svg",
        "diptych/core/report/templates/report.html.j2",
        "docs/api/lookup.md",
        "examples/diptych-pronoun-probe/diptych_pronoun_probe/__init__.py",
        "bench/run.py",
    )
    checked = _git("check-ignore", "--no-index", *kept)
    assert checked.stdout.strip() == "", f"ignored by mistake: {checked.stdout.split()}"


def test_no_two_test_files_share_a_name() -> None:
    """pytest imports test files by their base name (the tests folders are not packages): two
    files of one name in different folders stop the whole suite at collection."""
    seen: dict[str, Path] = {}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        assert path.name not in seen, f"{path} shares its name with {seen[path.name]}"
        seen[path.name] = path

"""A bug in a third party's plugin is reported as that plugin's, with where to report it; a bug
in diptych stays diptych's. And ``python -m diptych`` is the diptych command."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPTED_CLI = Path(__file__).parent / "scripted_cli.py"

PLUGIN = '''
"""A probe whose analysis has a bug (a misspelt key)."""
from diptych import hookimpl
from diptych.testing.scripted import ScriptedProbe


class Faulty(ScriptedProbe):
    """Plans a few trials; its analysis looks up a key that is not there."""

    name = "faulty"

    def analyze(self, run):
        order = {"order": 1}
        return order["ordr"]


@hookimpl
def register_probes(register):
    register(Faulty)
'''


def installed_plugin(root: Path) -> dict[str, str]:
    """The plugin as pip would leave it: its package and a dist-info with its entry point."""
    (root / "faulty_probe").mkdir(parents=True)
    (root / "faulty_probe" / "__init__.py").write_text(PLUGIN)
    info = root / "faulty_probe-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        textwrap.dedent(
            """\
            Metadata-Version: 2.1
            Name: faulty-probe
            Version: 0.1
            Project-URL: Home, https://example.org/faulty
            Project-URL: Issues, https://example.org/faulty/issues
            """
        )
    )
    (info / "entry_points.txt").write_text("[diptych]\nfaulty = faulty_probe\n")
    path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "DIPTYCH_STORE": str(root / "ws")}


def test_a_plugins_exception_names_the_plugin_and_where_to_report_it(tmp_path: Path) -> None:
    env = installed_plugin(tmp_path / "site")
    args = ["run", "faulty", "-m", "scripted-likelihood", "-p", "n=2", "--quiet"]
    done = subprocess.run(
        [sys.executable, str(SCRIPTED_CLI), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "error: plugin 'faulty' (package faulty-probe) failed: KeyError: 'ordr' (this is not "
        "diptych's code; run with --debug for the traceback, and report it to the authors of "
        "faulty-probe: https://example.org/faulty/issues)"
    )
    assert "internal error" not in done.stderr


def test_an_exception_in_diptych_itself_is_still_diptychs() -> None:
    from diptych.core.plugins import faults

    try:
        {"order": 1}["ordr"]
    except KeyError as error:
        # Raised here, in no plugin's package: nobody else to blame.
        assert faults.plugin_fault(error) is None


def test_python_dash_m_diptych_is_the_command(tmp_path: Path) -> None:
    from diptych import __version__

    done = subprocess.run(
        [sys.executable, "-m", "diptych", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"diptych {__version__}"

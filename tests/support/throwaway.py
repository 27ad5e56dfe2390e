"""A throwaway Python environment for scaffolded plugins.

The environment is a venv in a temporary directory whose one ``.pth`` line adds the project
environment's site-packages (diptych, pytest and every dependency) behind its own: packages
installed into it (``pip install -e`` of a scaffold, offline: ``--no-index --no-deps
--no-build-isolation``) are seen there and nowhere else, and it is gone with the temporary
directory. Nothing is ever installed into the project's environment.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

#: The scripted doubles of diptych.testing as an installed plugin of the throwaway environment,
#: so that a CLI run there can name scripted-likelihood like any model.
SCRIPTED_DIST = "diptych-scripted-doubles"


@dataclass
class Throwaway:
    root: Path
    python: Path
    site: Path

    def run(
        self, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``python ARGS`` in the throwaway environment."""
        return subprocess.run(
            [str(self.python), *args],
            cwd=cwd or self.root,
            env={**os.environ, "COLUMNS": "200", **(env or {})},
            capture_output=True,
            text=True,
            timeout=600,
        )

    def diptych(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return self.run("-m", "diptych.cli.main", *args, env=env)

    def install(self, *packages: Path) -> None:
        """``pip install -e`` each package, offline, without touching its dependencies."""
        editable = [arg for package in packages for arg in ("-e", str(package))]
        done = self.run(
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--no-deps",
            "--no-build-isolation",
            *editable,
            env={"PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        )
        assert done.returncode == 0, done.stdout + done.stderr

    def install_scripted_doubles(self) -> None:
        info = self.site / "diptych_scripted_doubles-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {SCRIPTED_DIST}\nVersion: 0.1\n", encoding="utf-8"
        )
        (info / "entry_points.txt").write_text(
            "[diptych]\nscripted = diptych.testing\n", encoding="utf-8"
        )


def _require_offline_backend() -> None:
    # Under --no-build-isolation pip builds with the environment's setuptools, which can only
    # make a wheel by itself from 70.1 on (before that it needs the `wheel` package).
    version = importlib.metadata.version("setuptools")
    major_minor = tuple(int(p) for p in re.findall(r"\d+", version)[:2])
    if major_minor < (70, 1) and importlib.util.find_spec("wheel") is None:
        pytest.fail(f"cannot build plugins offline with setuptools {version}: install >=70.1")


def make_throwaway(root: Path, site_dirs: Sequence[str]) -> Throwaway:
    import venv

    _require_offline_backend()
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root / "env")
    python = root / "env" / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # addsitedir, not a bare path: the project environment's own .pth files (diptych's
    # editable install among them) must be processed too.
    lines = "".join(f"import site; site.addsitedir({d!r})\n" for d in site_dirs)
    (site / "_project_environment.pth").write_text(lines, encoding="utf-8")
    return Throwaway(root, python, site)

"""The CI examples are true where they say to copy them, a model's repository: the audit file
they run is that repository's own (never a path of diptych's repository), and they install
diptych as the install page does, from its git repository with the ``llamacpp`` extra, never
from a package index it is not published to; the manual's section on them names both."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.docs.fenced import ROOT

CI = ROOT / "examples" / "ci"
GITHUB = yaml.safe_load((CI / "github-actions.yml").read_text(encoding="utf-8"))
GITLAB = yaml.safe_load((CI / "gitlab-ci.yml").read_text(encoding="utf-8"))["bias-gate"]
INSTALL = re.compile(r"""pip install ["']diptych\[llamacpp\] @ git\+\$\{?DIPTYCH_GIT\}?["']""")


def _commands() -> list[tuple[str, list[str]]]:
    github = [s["run"] for s in GITHUB["jobs"]["audit"]["steps"] if "run" in s]
    return [("github", github), ("gitlab", list(GITLAB["script"]))]


def test_they_run_the_model_repositorys_audit_file() -> None:
    for where, variables in (("github", GITHUB["env"]), ("gitlab", GITLAB["variables"])):
        file = variables["AUDIT_FILE"]
        assert not (ROOT / file).exists() and not file.startswith("examples/"), (where, file)
    assert GITLAB["cache"]["key"]["files"] == [GITLAB["variables"]["AUDIT_FILE"]]
    assert GITHUB["env"]["AUDIT_FILE"] == GITLAB["variables"]["AUDIT_FILE"]


def test_they_install_diptych_as_the_install_page_does() -> None:
    install = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    assert "In a clone" in install and "`llamacpp`" in install
    for where, commands in _commands():
        installs = [c for c in commands if "pip install" in c]
        assert len(installs) == 1 and INSTALL.search(installs[0]), (where, installs)
    assert "DIPTYCH_GIT" in GITHUB["env"] and "DIPTYCH_GIT" in GITLAB["variables"]


def test_the_manual_names_what_they_need() -> None:
    gates = " ".join((ROOT / "docs" / "gates.md").read_text(encoding="utf-8").split())
    section = gates.split("## A pipeline that uses it", 1)[1].split("## ", 1)[0]
    for word in (
        "AUDIT_FILE",
        "DIPTYCH_GIT",
        GITHUB["env"]["AUDIT_FILE"],
        "install.md",
        "git remote get-url origin",
    ):
        assert word in section, word


def test_their_install_stops_on_an_unfilled_url_and_says_what_to_fill(tmp_path: Path) -> None:
    """Copied as shipped, neither holds a made-up URL: ``DIPTYCH_GIT`` is empty, marked where it
    stands with how to fill it, and the install step run by a shell stops before pip with a
    line naming the variable and where its value comes from."""
    import os
    import subprocess

    for text in (CI / "github-actions.yml", CI / "gitlab-ci.yml"):
        assert "OWNER" not in text.read_text(encoding="utf-8"), text
    assert GITHUB["env"]["DIPTYCH_GIT"] == "" and GITLAB["variables"]["DIPTYCH_GIT"] == ""
    # pip is a script that writes where it was called: the step must not reach it.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    called = tmp_path / "pip-called"
    pip = bin_dir / "pip"
    pip.write_text(f"#!/bin/sh\ntouch {called}\n", encoding="utf-8")
    pip.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "DIPTYCH_GIT": ""}
    github = [c for c in dict(_commands())["github"] if "pip install" in c]
    gitlab = GITLAB["script"][: 1 + next(i for i, c in enumerate(GITLAB["script"]) if "pip" in c)]
    for where, script in (("github", github[0]), ("gitlab", "\n".join(gitlab))):
        done = subprocess.run(
            ["bash", "-e", "-c", script], env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode != 0 and not called.exists(), (where, done)
        assert "DIPTYCH_GIT" in done.stderr and "remote get-url origin" in done.stderr, done
    # Filled in, the same step goes on to pip with the URL.
    env["DIPTYCH_GIT"] = "https://example.org/diptych.git"
    done = subprocess.run(["bash", "-e", "-c", github[0]], env=env, check=False)
    assert done.returncode == 0 and called.exists()

"""The CI examples are true where they say to copy them, a model's repository: the audit file
they run is that repository's own (never a path of diptych's repository), and they install
diptych as the install page does, from its git repository with the ``llamacpp`` extra, never
from a package index it is not published to; the manual's section on them names both."""

from __future__ import annotations

import re

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
    for word in ("AUDIT_FILE", "DIPTYCH_GIT", GITHUB["env"]["AUDIT_FILE"], "install.md"):
        assert word in section, word

"""What the README and the manual name exists: every extra they tell a reader to install is one
of pyproject's, and the install page lists them all; every repository path they name is there;
every make target they name is the Makefile's, and the manual is built where they say to open
it."""

from __future__ import annotations

import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest
import yaml

from tests.docs.fenced import ROOT, pages
from tests.support.cli import call

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
EXTRAS = set(PYPROJECT["project"]["optional-dependencies"])
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
#: Where a path a page names lives, by its first part: the repository's own folders, and the
#: data files a page names under the package's ``prompts/``.
REPO_DIRS = ("diptych/", "tests/", "examples/", "bench/", "docs/", ".ci/")


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def _named_extras(text: str) -> set[str]:
    """Extras a text tells a reader to install: ``.[a,b]``, ``diptych[a]``."""
    found: set[str] = set()
    for group in re.findall(r"(?:\.|diptych)\[([a-z0-9_,\- ]+)\]", text):
        found.update(part.strip() for part in group.split(","))
    return found


def test_every_extra_named_is_one_of_pyprojects() -> None:
    for page in [*pages(), ROOT / "Makefile"]:
        unknown = _named_extras(_text(page)) - EXTRAS - {"server"}  # llama-cpp-python's own
        assert not unknown, f"{page.relative_to(ROOT)} names extras pyproject lacks: {unknown}"


def _extras_table(install: str) -> list[str]:
    """The extras the install page's table lists, in order."""
    table = install[install.index("| extra | what it adds |") :].split("\n\n")[0]
    return re.findall(r"^\| `([a-z0-9-]+)` \|", table, flags=re.M)


def test_the_install_page_lists_every_extra() -> None:
    listed = _extras_table(_text(ROOT / "docs" / "install.md"))
    assert set(listed) == EXTRAS, f"docs/install.md lists {listed}; pyproject: {sorted(EXTRAS)}"
    # `all` is "every extra above": the rows above it are the extras it holds.
    held = _named_extras(" ".join(PYPROJECT["project"]["optional-dependencies"]["all"]))
    above = listed[: listed.index("all")]
    assert held == set(above), f"'all' holds {sorted(held)}; the rows above it are {above}"


def _demo_extras() -> set[str]:
    block = MAKEFILE[MAKEFILE.index("$(VENV)/.installed-demo:") :]
    block = block[: block.index("\n\n")]
    return _named_extras(block)


def test_the_install_page_says_what_each_make_target_installs() -> None:
    install = _text(ROOT / "docs" / "install.md")
    row = next(line for line in install.splitlines() if line.startswith("| `make demo` |"))
    said = set(re.findall(r"`([a-z0-9-]+)`", row.split("|")[3]))
    assert said == _demo_extras(), f"make demo installs {_demo_extras()}; the page says {said}"


def test_every_make_target_named_exists() -> None:
    phony = set(re.search(r"^\.PHONY:(.*)$", MAKEFILE, flags=re.M).group(1).split())  # type: ignore[union-attr]
    for page in pages():
        for target in re.findall(r"`make ([a-z-]+)", _text(page)):
            assert target in phony, f"{page.relative_to(ROOT)} names 'make {target}'"


def test_the_manual_is_built_where_the_pages_say_to_open_it() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8").replace("!ENV", ""))
    site = config["site_dir"].rstrip("/")
    assert config["use_directory_urls"] is False, "links opened from disk must land on pages"
    # Search cannot start from disk without a script from a CDN: the manual offers none.
    assert "search" not in config["plugins"] and "offline" not in config["plugins"]
    docs_target = MAKEFILE[MAKEFILE.index("\ndocs:") :].split("\n\n")[0]
    assert "mkdocs build" in docs_target and "--site-dir" not in docs_target
    for page in (ROOT / "README.md", ROOT / "docs" / "install.md"):
        text = _text(page)
        assert f"`{site}/index.html`" in text, f"{page.name} says where to open the manual"
        for said in re.findall(r"into `([^`]+)`", text):
            if "docs" in said or "site" in said:
                assert said.rstrip("/") == site, f"{page.name}: the manual is built into {site}"


def _named_paths(text: str) -> set[str]:
    paths = set()
    for token in re.findall(r"`([A-Za-z0-9_./-]+)`", text):
        if token.startswith(REPO_DIRS) and not any(ch in token for ch in "<>*"):
            paths.add(token)
        elif token.startswith("prompts/"):
            paths.add("diptych/" + token)
    return paths


def test_every_repository_path_named_exists() -> None:
    for page in pages():
        for path in sorted(_named_paths(_text(page))):
            if path.startswith("docs/") and not path.endswith((".md", ".json", "/")):
                continue  # an output under the reader's docs folder
            assert (ROOT / path).exists(), f"{page.relative_to(ROOT)} names {path}, not there"


def _scaffold_rows() -> list[str]:
    """The files the cookbook says ``diptych plugins new`` writes."""
    cookbook = _text(ROOT / "docs" / "plugins" / "cookbook.md")
    table = cookbook[cookbook.index("| file | what it is |") :].split("\n\n")[0]
    return re.findall(r"^\| `([^`]+)` \|", table, flags=re.M)


def test_the_cookbook_lists_the_files_a_new_plugin_gets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _scaffold_rows()
    for kind in ("probe", "model", "annotator"):
        out = tmp_path / kind
        code, said = call(capsys, "plugins", "new", kind, "tone-gap", "--dir", str(out))
        assert code == 0, said
        written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
        for path in written:
            assert any(fnmatch(path, row.replace("NAME", "tone_gap")) for row in rows), (
                f"'plugins new {kind}' writes {path}, which the cookbook's list leaves out"
            )
        for row in rows:
            assert any(fnmatch(p, row.replace("NAME", "tone_gap")) for p in written), (
                f"the cookbook lists {row}, which 'plugins new {kind}' does not write"
            )


@pytest.mark.usefixtures("scripted_plugin")
def test_the_readme_quickstart_warns_as_the_readme_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README quotes what its two-a-side quickstart prints: the warning before buying, word
    for word, and the reason under its figures that each is a quick look, not a finding. The
    command as written (on the scripted model instead of smollm2) prints both; a design of four
    a side prints neither."""
    readme = " ".join(_text(ROOT / "README.md").split())
    quickstart = readme[readme.index("## Quickstart") :]
    quickstart = quickstart[: quickstart.index("Stop it with Ctrl-C")]
    warned, why = re.findall(r"`(warning: [^`]+|its interval rests on [^`]+)`", quickstart)
    assert "too wide to say anything" in warned and "at least 4 a side" in why, quickstart
    command = next(
        line
        for line in _text(ROOT / "README.md").splitlines()
        if line.startswith("diptych run pst-text -m smollm2")
    )
    args = command.split()[1:]
    args[args.index("smollm2")] = "scripted-likelihood"
    store = ["--store", str(tmp_path / "ws")]
    code, out = call(capsys, *store, *args, "--quiet")
    assert code == 0, out
    lines = [" ".join(line.split()) for line in out.splitlines()]
    assert [line for line in lines if line.startswith("warning:")] == [warned], out
    # The dry run of the same design warns in the very same words, and only so.
    code, dry = call(capsys, *store, *args, "--dry-run")
    assert code == 0, dry
    said = [" ".join(line.split()) for line in dry.splitlines()]
    assert [line for line in said if line.startswith("warning:")] == [warned], dry
    quick = [line for line in lines if " is a quick look, not a finding: " in line]
    # Each figure the run states has its interval over the two lists of two, the drawn
    # labels' too: every one is a quick look.
    assert [q.split(" is a quick look")[0].split(" (")[0] for q in quick] == [
        "STS paired",
        "STS single",
        "STS paired",
        "STS single",
        "gap paired − single",
    ], out
    # A figure whose interval fell to its floor (†) names the pairings it resampled first.
    unfloored = [
        re.sub(r"rests on \d+ pairings of ", "rests on ", q) if "†" in q else q for q in quick
    ]
    assert all(q.endswith(f": {why}.") for q in unfloored), out
    four = ["-p", "masculine=carpenter,driver,farmer,guard", "-p",
            "feminine=nurse,editor,secretary,librarian"]  # fmt: skip
    code, out = call(capsys, *store, "run", "pst-text", "-m", "scripted-likelihood", *four,
                     "--quiet")  # fmt: skip
    assert code == 0 and "warning:" not in out and "quick look" not in out, out


def test_the_marks_the_manual_names_are_the_ones_the_code_prints() -> None:
    """A sentence naming a mark (`†`, **‡**) for an interval at its floor names the floor's
    mark; one naming it for a figure gates decided names the decided mark."""
    from diptych.core.report.formatting import FLOOR_MARK
    from diptych.core.report.standings_tables import DECIDED_MARK

    said = {FLOOR_MARK: 0, DECIDED_MARK: 0}
    wrong = []
    for page in pages():
        text = " ".join(_text(page).split())
        for sentence in re.split(r"(?<=[.;:])\s+(?=[A-Z*`(])", text):
            marks = set(re.findall(rf"[`*]([{FLOOR_MARK}{DECIDED_MARK}])[`*]", sentence))
            floor, decided = "floor" in sentence, "decided" in sentence
            if not marks or floor == decided:
                continue
            meant = FLOOR_MARK if floor else DECIDED_MARK
            said[meant] += 1
            if marks != {meant}:
                wrong.append(f"{page.relative_to(ROOT)}: {sentence[:120]}")
    assert not wrong, f"marks other than the code's {said}:\n" + "\n".join(wrong)
    assert all(said.values()), said


def _demo_recipe() -> list[str]:
    """The demo target's recipe lines, continuation lines joined."""
    block = MAKEFILE[MAKEFILE.index("\ndemo:") + 1 :].split("\n\n")[0]
    return block.replace("\\\n", " ").splitlines()[1:]


def test_the_demo_ends_by_naming_the_workspace_it_stored_its_run_in() -> None:
    """``make demo`` stores its run away from the default ``./.diptych``: the last thing it
    prints names that workspace, with a command that reads it, or a newcomer's ``diptych runs``
    finds nothing."""
    recipe = _demo_recipe()
    stored = re.search(r"diptych --store (\S+) run ", recipe[0])
    assert stored, recipe[0]
    said = [line for line in recipe if line.lstrip().startswith("@echo")]
    assert said, "the demo prints nothing after its report"
    # Every command it names names the workspace: run ids do not depend on it, so "show RUN"
    # in another workspace could find another run of the same id.
    commands = [re.findall(r"diptych (--store (\S+) )?(\w+)", line) for line in said]
    named = [c for found in commands for c in found]
    assert named, said
    assert {store for _, store, _ in named} == {stored.group(1)}, said
    assert {command for _, _, command in named} == {"runs", "show"}, said

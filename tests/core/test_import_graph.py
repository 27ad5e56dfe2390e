"""The import graph of the diptych package: no import circles anywhere, no plugin reaching for
the store, and the layer contracts of ``[tool.importlinter]`` name what is on disk.

The graph is grimp's (import-linter's engine): every ``import`` statement of every module, those
inside functions and those under ``if TYPE_CHECKING:`` included. A circle through a type-only
or a function-level import never bites at import time, but it still ties two files together:
neither can be read or changed apart. Where two modules share a type, it lives in a module both
import, not in one of them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import grimp
import pytest

import diptych

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(diptych.__file__).resolve().parent
PLUGIN_KINDS = ("probes", "models", "annotators")


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import circle of the graph as [a, b, ..., a], or None when it has none."""
    unvisited, on_path, done = 0, 1, 2
    state = dict.fromkeys(edges, unvisited)
    for start in sorted(edges):
        if state[start] != unvisited:
            continue
        path = [start]
        state[start] = on_path
        stack = [iter(sorted(edges[start]))]
        while stack:
            following = next(stack[-1], None)
            if following is None:
                stack.pop()
                state[path.pop()] = done
            elif state.get(following, done) == on_path:
                return path[path.index(following) :] + [following]
            elif state.get(following) == unvisited:
                state[following] = on_path
                path.append(following)
                stack.append(iter(sorted(edges[following])))
    return None


def test_find_cycle_finds_a_circle_and_only_a_circle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"a"}}) == ["a", "a"]
    # A diamond joins but does not circle.
    assert find_cycle({"a": {"b", "c"}, "b": {"d"}, "c": {"d"}, "d": set()}) is None


@pytest.fixture(scope="module")
def graph() -> Any:
    """Every import of the package, type-only and function-level ones included."""
    built = grimp.build_graph("diptych", exclude_type_checking_imports=False, cache_dir=None)
    assert "diptych.core.labels" in built.modules
    return built


def test_the_graph_holds_type_only_and_function_level_imports(graph: Any) -> None:
    # core/probe.py names RunView under `if TYPE_CHECKING:` only; the CLI imports most of what
    # it runs inside its command functions.
    assert graph.direct_import_exists(
        importer="diptych.core.probe", imported="diptych.core.runview"
    )
    assert graph.direct_import_exists(
        importer="diptych.cli.agreement_cmd", imported="diptych.core.probe"
    )


def test_no_import_circles_anywhere_in_the_package(graph: Any) -> None:
    edges = {
        module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules
    }
    circles: list[str] = []
    # Each circle found is cut at its closing link and the search goes on, so that one failure
    # lists every circle to break, not only the first.
    while (cycle := find_cycle(edges)) is not None and len(circles) < 20:
        links = []
        for importer, imported in zip(cycle, cycle[1:], strict=False):
            details = graph.get_import_details(importer=importer, imported=imported)
            where = ", ".join(f"l.{d['line_number']}: {d['line_contents']}" for d in details)
            links.append(f"  {importer} -> {imported} ({where})")
        circles.append("\n".join(links))
        edges[cycle[-2]].discard(cycle[-1])
    if circles:
        pytest.fail("import circles:\n" + "\n\n".join(circles), pytrace=False)


def test_no_plugin_imports_the_store_even_for_a_type(graph: Any) -> None:
    """import-linter's ``plugins-port`` contract, with the type-only imports it leaves out: a
    plugin reads the workspace through ``diptych.core.lookup`` (its records are there too)."""
    internal = ("diptych.core.store", "diptych.core.migrations")
    reaching = sorted(
        f"{importer} -> {imported}"
        for importer in graph.modules
        if importer.startswith("diptych.plugins")
        for imported in graph.find_modules_directly_imported_by(importer)
        if imported in internal or imported.startswith(tuple(f"{m}." for m in internal))
    )
    assert not reaching, "plugins importing the store:\n" + "\n".join(reaching)


def _plugin_units_on_disk() -> set[str]:
    """Each plugin module or subpackage under probes/, models/, annotators/, not the `_` ones."""
    units = set()
    for kind in PLUGIN_KINDS:
        for path in (PACKAGE / "plugins" / kind).iterdir():
            name = path.stem if path.suffix == ".py" else path.name
            is_unit = path.suffix == ".py" or (path / "__init__.py").is_file()
            if is_unit and not name.startswith("_"):
                units.add(f"diptych.plugins.{kind}.{name}")
    return units


def _contracts() -> dict[str, dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {contract["id"]: contract for contract in config["contracts"]}


def test_the_independence_contract_names_every_plugin_unit() -> None:
    listed = set(_contracts()["plugins-independent"]["modules"])
    on_disk = _plugin_units_on_disk()
    assert "diptych.plugins.models.llamacpp" in on_disk
    assert listed == on_disk, (
        f"not in the contract: {sorted(on_disk - listed)}; not on disk: {sorted(listed - on_disk)}"
    )
    assert not any(name.rsplit(".", 1)[1].startswith("_") for name in listed)


def test_the_layer_contracts_cover_every_front_end() -> None:
    contracts = _contracts()
    front_ends = contracts["front-ends"]
    assert {"diptych.cli", "diptych.tui"} <= set(front_ends["source_modules"])
    # import-linter refuses a missing source module: the agent is named outright once it exists.
    agent = "diptych.agent" if (PACKAGE / "agent").exists() else "diptych.agent.**"
    assert agent in front_ends["source_modules"]
    assert {
        "diptych.core.engine",
        "diptych.core.store",
        "diptych.core.migrations",
        "diptych.plugins",
    } <= set(front_ends["forbidden_modules"])
    above_core, core = contracts["core-below"]["layers"]
    assert core == "diptych.core"
    # The testing tools (doubles, drills) drive the core from above it, never from inside.
    for module in (
        "diptych.cli",
        "diptych.tui",
        "(diptych.agent)",
        "diptych.plugins",
        "diptych.testing",
    ):
        assert module in above_core.split(" : ")


def test_the_port_contract_keeps_plugins_from_the_store() -> None:
    port = _contracts()["plugins-port"]
    assert port["type"] == "forbidden"
    assert port["source_modules"] == ["diptych.plugins"]
    assert set(port["forbidden_modules"]) == {"diptych.core.store", "diptych.core.migrations"}


def test_a_screen_of_several_modules_is_a_package() -> None:
    """A screen's parts live in its package (``tui/screens/audit/``: ``screen.py``,
    ``rows.py``), never as modules named after it beside it (``audit.py``, ``audit_rows.py``):
    docs/architecture.md, "A screen"."""
    screens = PACKAGE / "tui" / "screens"
    modules = {p.stem for p in screens.glob("*.py") if p.stem != "__init__"}
    beside = sorted(m for m in modules if "_" in m and m.split("_", 1)[0] in modules)
    assert beside == [], f"parts of a screen beside it, not in its package: {beside}"
    packages = {p.parent.name for p in screens.glob("*/__init__.py")}
    assert {"audit", "runs", "new_run", "agent"} <= packages

"""docs/architecture.md against the house it draws: the layers of its drawing are the layers of
the import-linter contracts in pyproject.toml, every package on disk has its room in the
drawing (and no room is drawn that is not on disk), and every path of its tables exists."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "diptych"

#: A box of the drawing opens with ``┌─ title ─…`` and closes with ``└…``.
_BOX_TOP = re.compile(r"^┌─ (.+?) ─")
#: A room: a folder name with its slash; ``a/ (b/ c/)`` nests b and c inside a.
_ROOM = re.compile(r"([a-z_]+/)(?: \(([^)]*)\))?")


def drawing(text: str) -> list[tuple[str, dict[str, list[str]]]]:
    """The boxes of the page's first ``text`` block, top to bottom: each its title and its
    rooms, every room with the rooms drawn inside it."""
    block = re.search(r"```text\n(.*?)\n```", text, re.S)
    assert block, "docs/architecture.md has no drawing (a ```text block)"
    boxes: list[tuple[str, dict[str, list[str]]]] = []
    for line in block.group(1).splitlines():
        top = _BOX_TOP.match(line)
        if top:
            boxes.append((top.group(1), {}))
        elif line.startswith("│") and boxes:
            # The connector from the front ends to the core crosses the boxes between.
            inside = re.sub("[│┼▼▶─]", " ", line)
            for room, nested in _ROOM.findall(inside):
                boxes[-1][1][room.rstrip("/")] = [n.rstrip("/") for n in nested.split()]
    return boxes


def packages(folder: Path) -> set[str]:
    """The packages directly inside ``folder``: a folder with an ``__init__.py``, or holding
    only data (prompts, datasets, templates)."""
    return {
        p.name
        for p in folder.iterdir()
        if p.is_dir() and p.name != "__pycache__" and not p.name.startswith(".")
    }


@pytest.fixture(scope="module")
def boxes() -> list[tuple[str, dict[str, list[str]]]]:
    return drawing(PAGE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def contracts() -> dict[str, dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}


def _short(module: str) -> str:
    return module.strip("() ").removeprefix("diptych.")


def test_the_drawing_is_read_as_boxes_of_rooms() -> None:
    text = "```text\n┌─ a ─┐\n│ x/ (y/ z/)  w/ │ q/ │\n└──┘\n┌─ b ─┐\n│ v/ ──▶ u/ │\n└─┘\n```"
    assert drawing(text) == [
        ("a", {"x": ["y", "z"], "w": [], "q": []}),
        ("b", {"v": [], "u": []}),
    ]


def test_the_drawing_has_the_layers_of_the_contracts(boxes: Any, contracts: Any) -> None:
    titles = [t for t, _ in boxes]
    assert titles[:3] == ["front ends", "plugins and test doubles", "core"]
    front, plugins, core = (set(rooms) for _, rooms in boxes[:3])
    # The front ends are the sources of the Workspace-only contract...
    assert front == {_short(m) for m in contracts["front-ends"]["source_modules"]}
    # ...and, with the plugins and the test doubles, the layer above the core.
    above, below = contracts["core-below"]["layers"]
    assert front | plugins == {_short(m) for m in above.split(":")}
    assert below == "diptych.core" and core and "core" not in front | plugins


def test_every_package_has_its_room_and_every_room_is_a_package(boxes: Any) -> None:
    # The core's box shows its insides; "core" itself is the box.
    top = {room for i, (_, rooms) in enumerate(boxes) if i != 2 for room in rooms}
    assert top | {"core"} == packages(PACKAGE)
    core = boxes[2][1]
    assert set(core) == packages(PACKAGE / "core")
    assert set(core["metrics"]) == packages(PACKAGE / "core" / "metrics")
    # The top-level rooms (the core's own plugins/, the host, is another room of that name).
    rooms = {
        room: nested for i, (_, box) in enumerate(boxes) if i != 2 for room, nested in box.items()
    }
    for room in ("tui", "plugins"):
        assert set(rooms[room]) == packages(PACKAGE / room) - {"__pycache__"}, room


def test_every_plugin_unit_and_front_end_named_in_the_contracts_exists(contracts: Any) -> None:
    front_ends = contracts["front-ends"]["source_modules"]
    named = [*front_ends, *contracts["plugins-independent"]["modules"]]
    for module in named:
        path = ROOT / module.replace(".", "/")
        assert path.is_dir() or path.with_suffix(".py").is_file(), module


def test_every_path_of_the_page_exists() -> None:
    text = PAGE.read_text(encoding="utf-8")
    # Paths of two parts or more (a lone `screens/` is a room of the drawing, said in prose).
    paths = set(re.findall(r"`([a-z_]+/[a-z_/]*?[a-z_]+(?:\.(?:py|tcss)|/))`", text))
    assert len(paths) > 40
    missing = [p for p in sorted(paths) if not (PACKAGE / p).exists() and not (ROOT / p).exists()]
    assert not missing, f"docs/architecture.md names paths that are not on disk: {missing}"


def test_every_concept_of_the_table_names_its_math_or_its_front_end() -> None:
    text = PAGE.read_text(encoding="utf-8")
    table = text.split("## One concept, one name in every layer", 1)[1].split("\n## ", 1)[0]
    rows = [r for r in table.splitlines() if r.startswith("| ") and not r.startswith("| Concept")]
    concepts = {r.split("|")[1].strip() for r in rows}
    for concept in ("sts", "retrieval", "agreement", "precision", "sequential", "gates", "audit"):
        assert any(concept in c.lower() for c in concepts), concept
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 5, row

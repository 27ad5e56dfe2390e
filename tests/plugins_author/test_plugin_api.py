"""The versioned plugin API: what the host does with a plugin written for each version.

Each plugin comes from a throwaway ``*.dist-info`` on ``sys.path`` (package ``diptych-api-fixture``
0.3), loaded through its entry point like any installed plugin.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from diptych.core import plugins
from diptych.core.plugins import api, hookspecs

DIST = "diptych-api-fixture"

PLUGIN = '''
from diptych import hookimpl
from diptych.core.probe import Probe

{declaration}


class Fixture(Probe):
    """A probe of the plugin API tests."""

    name = "{probe}"


@hookimpl
def register_probes(register):
    register(Fixture)
'''


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def install(tmp_path: Path) -> Iterator[object]:
    """``install(declaration)``: a plugin module with that declaration, loaded by the host;
    returns its PluginInfo and the warning lines logged about it."""
    handler = _Collect()
    logger = logging.getLogger("diptych")
    logger.addHandler(handler)
    made: list[str] = []

    def make(declaration: str) -> tuple[plugins.PluginInfo, list[str]]:
        n = len(made)
        module = f"diptych_api_fixture_{n}"
        made.append(module)
        root = tmp_path / module
        root.mkdir()
        (root / f"{module}.py").write_text(
            PLUGIN.format(declaration=declaration, probe=f"api-fixture-{n}"), encoding="utf-8"
        )
        info = root / "diptych_api_fixture-0.3.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {DIST}\nVersion: 0.3\n", encoding="utf-8"
        )
        (info / "entry_points.txt").write_text(
            f"[diptych]\napi_fixture_{n} = {module}\n", encoding="utf-8"
        )
        sys.path.insert(0, str(root))
        importlib.invalidate_caches()
        handler.lines.clear()
        registry = plugins.load_plugins(reload=True)
        (loaded,) = [p for p in registry.plugins if p.name == f"api_fixture_{n}"]
        sys.path.remove(str(root))
        return loaded, [line for line in handler.lines if f"api_fixture_{n}" in line]

    yield make
    logger.removeHandler(handler)
    for module in made:
        sys.modules.pop(module, None)
    importlib.invalidate_caches()
    plugins.load_plugins(reload=True)


def test_a_current_plugin_loads_silently(install: object) -> None:
    info, lines = install(f"DIPTYCH_PLUGIN_API = {api.PLUGIN_API}")  # type: ignore[operator]
    assert info.error is None and info.warning is None and lines == []
    assert info.api == api.PLUGIN_API and info.probes


def test_an_older_plugin_loads_with_one_line_naming_what_changed(install: object) -> None:
    info, lines = install("DIPTYCH_PLUGIN_API = 1")  # type: ignore[operator]
    assert info.error is None and info.probes and info.api == 1
    (line,) = lines
    assert line == info.warning and "\n" not in line
    assert line.startswith(f"plugin 'api_fixture_0' ({DIST} 0.3) was written for plugin API 1;")
    assert "API 2: Probe.bind receives a read-only RunLookup" in line
    assert line.endswith("set DIPTYCH_PLUGIN_API = 2 in diptych_api_fixture_0")


def test_a_plugin_that_declares_nothing_is_taken_as_api_1(install: object) -> None:
    info, lines = install("")  # type: ignore[operator]
    assert info.error is None and info.probes and info.api is None
    (line,) = lines
    assert "was written for plugin API 1 (it declares no version); it loads" in line


@pytest.mark.parametrize(
    ("declaration", "says"),
    [
        (
            "DIPTYCH_PLUGIN_API = 99",
            "was written for plugin API 99, newer than this diptych's",
        ),
        ("DIPTYCH_PLUGIN_API = 'two'", "declares DIPTYCH_PLUGIN_API = 'two', which is no"),
    ],
)
def test_an_incompatible_plugin_is_refused_in_one_line(
    install: object, declaration: str, says: str
) -> None:
    info, lines = install(declaration)  # type: ignore[operator]
    assert info.probes == [] and info.error
    (line,) = lines
    assert line == info.error and "\n" not in line
    assert line.startswith(f"plugin 'api_fixture_0' ({DIST} 0.3) ") and says in line
    assert re.search(r"(upgrade diptych|set DIPTYCH_PLUGIN_API = \d+ in)", line)


def test_a_breaking_change_refuses_the_plugins_written_before_it(
    install: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    breaking = api.APIChange(
        3, "register_probes is called with a second argument", "accept config", breaking=True
    )
    monkeypatch.setattr(api, "CHANGES", (*api.CHANGES, breaking))
    monkeypatch.setattr(api, "PLUGIN_API", 3)
    info, lines = install("DIPTYCH_PLUGIN_API = 2")  # type: ignore[operator]
    (line,) = lines
    assert info.error == line and info.probes == []
    assert "was written for plugin API 2, which this diptych no longer loads: API 3: " in line
    assert line.endswith("accept config, then set DIPTYCH_PLUGIN_API = 3 in diptych_api_fixture_0")


def test_diptychs_own_plugins_are_current() -> None:
    registry = plugins.load_plugins(reload=True)
    builtin = [p for p in registry.plugins if p.distribution == "diptych"]
    assert builtin and all(p.api == api.PLUGIN_API and p.warning is None for p in builtin)


def test_each_hook_says_since_which_version_it_exists() -> None:
    hooks = [name for name, fn in vars(hookspecs).items() if hasattr(fn, "diptych_spec")]
    assert sorted(hooks) == sorted(h for h in api.SINCE if "." not in h)
    for hook in hooks:
        doc = inspect.getdoc(getattr(hookspecs, hook)) or ""
        assert f"Since plugin API {api.SINCE[hook]}." in doc, hook
    assert api.PLUGIN_API == max(c.version for c in api.CHANGES)

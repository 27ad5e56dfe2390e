"""What the host does with third-party plugins that misbehave.

They come from a throwaway ``*.dist-info`` on ``sys.path``: each is named in one warning line
and the host carries on.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cli import cli

from diptych.core import plugins

FIXTURE_DIST = "diptych-misbehaving-fixture"

MODULES = {
    "diptych_fixture_broken": 'raise RuntimeError("example failure on import")\n',
    # Registers a good probe, then something that is not a Probe: neither may be kept.
    "diptych_fixture_not_a_probe": '''
from diptych import hookimpl
from diptych.core.probe import Probe


class HalfProbe(Probe):
    """Would be fine on its own."""

    name = "half-registered"


class NotAProbe:
    name = "not-a-probe"


@hookimpl
def register_probes(register):
    register(HalfProbe)
    register(NotAProbe)
''',
    "diptych_fixture_duplicate": '''
from diptych import hookimpl
from diptych.core.probe import Probe


class Impostor(Probe):
    """Claims a name that is taken."""

    name = "pst-text"


@hookimpl
def register_probes(register):
    register(Impostor)
''',
}

# Entry points load in name order; the two that clash with a built-in sort after it.
ENTRY_POINTS = {
    "aa_broken": "diptych_fixture_broken",
    "zz_not_a_probe": "diptych_fixture_not_a_probe",
    # Sorts before "pst_text": the built-in must still win the name.
    "aa_duplicate": "diptych_fixture_duplicate",
}


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def plugin_env(plugin_env: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """The plugin tests' ``plugin_env``, the fixture's modules forgotten after."""
    yield plugin_env
    for name in MODULES:
        sys.modules.pop(name, None)


@pytest.fixture
def warnings_logged() -> Iterator[list[str]]:
    # Our own handler on the `diptych` logger: the CLI's main() turns propagation off, so
    # caplog (on the root logger) would miss these records after any in-process CLI call.
    handler = _Collect()
    logger = logging.getLogger("diptych")
    logger.addHandler(handler)
    yield handler.lines
    logger.removeHandler(handler)


def test_broken_plugins_are_named_and_skipped(
    plugin_env: pytest.MonkeyPatch, warnings_logged: list[str], tmp_path: Path
) -> None:
    for module, text in MODULES.items():
        (tmp_path / f"{module}.py").write_text(text, encoding="utf-8")
    info = tmp_path / "diptych_misbehaving_fixture-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {FIXTURE_DIST}\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[diptych]\n" + "".join(f"{n} = {m}\n" for n, m in ENTRY_POINTS.items()),
        encoding="utf-8",
    )
    plugin_env.syspath_prepend(str(tmp_path))

    registry = plugins.load_plugins(reload=True)

    loaded = {p.name: p for p in registry.plugins}
    assert loaded["aa_broken"].error == "RuntimeError: example failure on import"
    assert loaded["aa_broken"].distribution == FIXTURE_DIST
    assert loaded["zz_not_a_probe"].error == (
        "PluginRegistrationError: register_probes() was given "
        "<class 'diptych_fixture_not_a_probe.NotAProbe'>, not a subclass of Probe"
    )
    assert loaded["aa_duplicate"].error == (
        "PluginRegistrationError: probe 'pst-text' is already registered by plugin 'pst_text'"
    )
    for name in ENTRY_POINTS:
        assert loaded[name].probes == []
    # The host carried on: the built-ins are there and the impostor did not replace pst-text.
    assert registry.probes["pst-text"].__module__ == "diptych.plugins.probes.pst_text.probe"
    assert registry.owner[("probe", "pst-text")] == "pst_text"
    assert "smollm2" in registry.models
    assert "half-registered" not in registry.probes and "not-a-probe" not in registry.probes

    ours = [line for line in warnings_logged if FIXTURE_DIST in line]
    assert len(ours) == len(ENTRY_POINTS)
    for name in ENTRY_POINTS:
        (line,) = [ln for ln in ours if ln.startswith(f"plugin '{name}' ")]
        assert "\n" not in line
        assert line.endswith(loaded[name].error or "")

    listed = {row["name"]: row for row in json.loads(cli("plugins", "--json").stdout)}
    assert listed["aa_duplicate"]["error"] == loaded["aa_duplicate"].error

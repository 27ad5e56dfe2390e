"""``diptych plugins check`` in-process: a built-in plugin keeps the contract, a name that is
nothing is one line and exit 2, and a plugin that did not load is its one line."""

from __future__ import annotations

import pytest

from diptych.cli.main import main
from diptych.core import plugins
from diptych.testing import contract


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_a_built_in_plugin_keeps_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "plugins", "check", "pst_text")
    assert code == 0, out + err
    assert out == (
        f"plugin 'pst_text' (diptych {plugins.load_plugins().plugins[0].version}): probe "
        f"pst-text: {len(contract.PROBE)} expectations checked, 0 failed\n"
    )


def test_one_probe_by_its_own_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "plugins", "check", "pst-text")
    assert code == 0 and out.startswith("plugin 'pst_text' (diptych ") and "probe pst-text" in out


def test_a_name_that_is_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "plugins", "check", "no-such-plugin")
    assert code == 2 and out == ""
    (line,) = err.splitlines()
    assert line.startswith("error: no plugin, probe, model or annotator named 'no-such-plugin'")


def test_a_plugin_that_did_not_load_is_its_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = plugins.load_plugins()
    info = plugins.PluginInfo("gone", "diptych-gone", "0.1", error="RuntimeError: no")
    monkeypatch.setattr(registry, "plugins", [*registry.plugins, info])
    found = contract.check_plugin("gone")
    assert found.failures == ["plugin 'gone' is not loaded: RuntimeError: no"]
    info.error = "plugin 'gone' (diptych-gone 0.1) was written for plugin API 99, newer ..."
    assert contract.check_plugin("gone").failures == [info.error]

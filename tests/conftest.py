from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hypothesis
import hypothesis.configuration
import pytest

import diptych.testing
from diptych.core.store import Store, open_store

# Hypothesis keeps no example database, and its caches in a temp dir, never in the directory the
# tests run from: a test leaves the machine as it found it.
hypothesis.settings.register_profile("diptych", database=None)
hypothesis.settings.load_profile("diptych")
_HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="diptych-hypothesis-")
hypothesis.configuration.set_hypothesis_home_dir(_HYPOTHESIS_HOME)
# Each test process removes its own when it ends.
atexit.register(shutil.rmtree, _HYPOTHESIS_HOME, ignore_errors=True)

# The fixtures plugin authors get (diptych_workspace, scripted_model, fake_openai, run_probe,
# assert_round_trip): diptych's own tests use the very same ones.
pytest_plugins = ["diptych.testing.pytest"]


#: Session fixtures dear enough to start once: the tests that use one share a group, so that
#: only one test process starts it (a server loading the bundled model, a throwaway venv).
SHARED_ONCE = ("llama_server", "throwaway")
#: Module-scoped fixtures that only set something and put it back: no reason to keep a
#: module's tests together (tests/plugins/conftest.py).
SET_AND_PUT_BACK = frozenset({"offline", "torch_one_thread"})


def xdist_group(item: pytest.Item) -> str | None:
    """The group ``item`` runs in under ``--dist loadgroup`` (``make test``), or None for a test
    either process may take on its own: the tests of a dear session fixture share its group, and
    a module's tests that share a module- or class-scoped fixture stay in one process, which
    builds it once as a serial run does. Every other test goes wherever a process is free, so
    that the two end together rather than one finishing a slow module alone."""
    fixtures = getattr(item, "_fixtureinfo", None)
    if fixtures is None:
        return None
    for name in SHARED_ONCE:
        if name in fixtures.name2fixturedefs:
            return name
    scopes = {
        d.scope
        for name, defs in fixtures.name2fixturedefs.items()
        if name not in SET_AND_PUT_BACK
        for d in defs
    }
    if scopes & {"module", "class", "package"}:
        return item.nodeid.split("::")[0]
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        group = xdist_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(autouse=True)
def report_text_checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Every report a test writes in this process has its text checked when the test ends
    (no ``inf``/``nan``, counts and units, one interval per figure in one of its two forms,
    every kind of interval named in the glossary; the rule of digits on
    the reports of the surface tests, where no plugin's own prose is quoted:
    :mod:`tests.support.surfaces.text`); the browser and paper checks run on one report of
    each kind in ``tests/core/report/test_surfaces*.py``."""
    from diptych.core.report import write as report_write
    from tests.support.surfaces.group_order import group_order_problems
    from tests.support.surfaces.interval_kinds import interval_kind_problems
    from tests.support.surfaces.text import text_problems
    from tests.support.surfaces.whole_intervals import report_form_problems

    written: list[Path] = []
    original = report_write.write_audit

    def recording(audit: Any, out_dir: Path, *args: Any, **kwargs: Any) -> dict[str, Path]:
        files = original(audit, out_dir, *args, **kwargs)
        written.append(Path(out_dir))
        return files

    monkeypatch.setattr(report_write, "write_audit", recording)
    yield written
    # A test leaves the machine as it found it: a report written where the test was run from
    # (an audit's audit-NAME/ without --out, the test not moved into its temp dir) stays there.
    temp = Path(tempfile.gettempdir()).resolve()
    outside = [str(d) for d in dict.fromkeys(written) if not d.resolve().is_relative_to(temp)]
    assert not outside, f"a report written outside the temp dirs: {outside}"
    problems = [
        f"{d}: {p}"
        for d in dict.fromkeys(written)
        if d.is_dir()
        for p in text_problems(d, digits=False)
        + interval_kind_problems(d)
        + report_form_problems(d)
        + group_order_problems(d)
    ]
    assert not problems, "the report's text breaks its rules:\n" + "\n".join(problems)


@pytest.fixture
def scripted(scripted_plugin: None) -> None:
    """The scripted models and probe of diptych.testing, registered as a plugin (the pytest
    plugin's ``scripted_plugin`` under the name most of these tests know it by)."""


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "ws") as s:
        yield s


# --- a real llama-cpp-python server ---------------------------------------------------------

# The server module run as `python -m llama_cpp.server` would run it, inside
# amx_safe_loading(): on CPUs with AMX, llama.cpp's AMX kernels segfault on the first batched
# decode (see diptych.plugins.models.llamacpp.loading.cpu_has_amx); elsewhere it changes nothing.
SERVER_BOOT = (
    "import runpy\n"
    "from diptych.plugins.models.llamacpp import amx_safe_loading\n"
    "with amx_safe_loading():\n"
    "    runpy.run_module('llama_cpp.server', run_name='__main__', alter_sys=True)\n"
)


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of llama-cpp-python's OpenAI-compatible server with the bundled SmolLM2."""
    from diptych.plugins.models.llamacpp import bundled_smollm2_gguf

    port = diptych.testing.free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    command = [
        sys.executable,
        "-c",
        SERVER_BOOT,
        "--model",
        str(bundled_smollm2_gguf()),
        "--model_alias",
        "smollm2",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--logits_all",
        "true",
        "--n_ctx",
        "2048",
        "--n_threads",
        str(len(os.sched_getaffinity(0))),
        "--verbose",
        "false",
    ]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 300  # a loaded two-core machine loads the model slowly
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not answer:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

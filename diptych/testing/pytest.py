"""diptych's pytest plugin: the fixtures diptych's own tests use, for plugin authors too.

Installed diptych makes it known to pytest (entry point ``pytest11``); a test suite turns it on
with ``-p diptych.testing.pytest`` or, as a scaffolded plugin does (``diptych plugins new``), in
its ``conftest.py``::

    pytest_plugins = ["diptych.testing.pytest"]

The fixtures:

* ``diptych_workspace`` — a :class:`~diptych.core.workspace.Workspace` in a temporary directory,
  closed after the test.
* ``scripted_plugin`` — the scripted models and probe of :mod:`diptych.testing` registered as a
  plugin (``scripted-chat``, ``scripted-likelihood`` … by name), unregistered after.
* ``scripted_model`` — ``scripted_model("text_likelihood", latency=0.1)``: a scripted model of
  any capability, with parameters; ``enqueue()`` answers into it, read its ``.history``.
* ``fake_openai`` — the loopback fake of the OpenAI API
  (:class:`~diptych.testing.FakeOpenAIServer`), started for the test; mark a test
  ``@pytest.mark.fake_openai(image_size=(32, 32), latency=0.1)`` to configure it.
* ``run_probe`` — ``run_probe(probe, model, params=...)`` plans, executes and analyses a probe
  against a model in ``diptych_workspace`` and returns a :class:`ProbeRun` (estimate, record,
  result).
* ``assert_round_trip`` — ``assert_round_trip(ran)``: the run's parameters and results survive
  the store (a workspace opened afresh rebuilds the same probe and the same analysis);
  ``assert_round_trip(plugin)`` checks a probe's or model's parameters through JSON.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from diptych.core.capabilities import Model
    from diptych.core.engine import Estimate, RunOptions
    from diptych.core.probe import Probe, ProbeResult
    from diptych.core.store import RunRecord
    from diptych.core.workspace import Workspace
    from diptych.testing.fake_openai import FakeOpenAIServer
    from diptych.testing.scripted import ScriptedModel

# Kept light: pytest imports this module in every session of an environment with diptych, so
# diptych itself is imported only when a fixture is used.

#: The name diptych.testing is registered under by ``scripted_plugin``.
SCRIPTED_PLUGIN = "testing"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fake_openai(**options): options of the fake_openai fixture's FakeOpenAIServer "
        "(image_size, latency, api_key, rate_limit_per_min ...)",
    )


@pytest.fixture
def diptych_workspace(tmp_path: Path) -> Iterator[Workspace]:
    """A workspace in a temporary directory, closed after the test."""
    from diptych.core.workspace import Workspace

    with Workspace.open(tmp_path / "diptych-workspace") as ws:
        yield ws


@pytest.fixture
def scripted_plugin() -> Iterator[None]:
    """The scripted models and probe of :mod:`diptych.testing`, registered as a plugin."""
    import diptych.testing
    from diptych.core import plugins

    plugins.load_plugins()
    if plugins.plugin_manager().is_registered(diptych.testing):
        # Installed as a plugin of the environment already: nothing to add or take away.
        yield
        return
    name = plugins.register_plugin(diptych.testing, SCRIPTED_PLUGIN)
    yield
    plugins.unregister_plugin(name)


@pytest.fixture
def scripted_model(scripted_plugin: None) -> Callable[..., ScriptedModel]:
    """``scripted_model(capability="chat", **params)``: a new scripted model of the capability
    (``chat``, ``text_likelihood``, ``image_generator``, ``vision_chat``,
    ``image_text_encoder``, ``person_annotator``) with its parameters
    (:class:`~diptych.testing.ScriptedParams`: latency, faults, price ...)."""
    from diptych.core.capabilities import Capability
    from diptych.testing.scripted import SCRIPTED_MODELS, ScriptedAnnotator

    doubles: tuple[type[ScriptedModel], ...] = (*SCRIPTED_MODELS, ScriptedAnnotator)
    by_capability = {next(iter(cls.capabilities)): cls for cls in doubles}

    def make(capability: Capability | str = Capability.CHAT, **params: Any) -> ScriptedModel:
        cls = by_capability[Capability(capability)]
        return cls(cls.Params.model_validate(params))

    return make


@pytest.fixture
def fake_openai(request: pytest.FixtureRequest) -> Iterator[FakeOpenAIServer]:
    """The loopback fake of the OpenAI API, started for this test (``base_url`` to point a
    client at it; ``inject()`` faults; ``requests`` to assert on). The test's
    ``@pytest.mark.fake_openai(...)`` passes options to it; images are 16×16 unless it says."""
    from diptych.testing.fake_openai import FakeOpenAIServer

    options: dict[str, Any] = {"image_size": (16, 16)}
    for marker in reversed(list(request.node.iter_markers("fake_openai"))):
        options.update(marker.kwargs)
    with FakeOpenAIServer(**options) as server:
        yield server


@dataclass
class ProbeRun:
    """A probe planned, run and analysed by ``run_probe``."""

    workspace: Workspace
    probe: Probe
    #: What the dry run said before anything ran.
    estimate: Estimate
    record: RunRecord
    result: ProbeResult

    @property
    def id(self) -> str:
        return self.record.id


@pytest.fixture
def run_probe(diptych_workspace: Workspace, scripted_plugin: None) -> Callable[..., ProbeRun]:
    """``run_probe(probe, model, params=None, options=None, workspace=None)``: plan, execute
    and analyse ``probe`` (a name or an instance) against ``model`` (a name, an instance or a
    list of them) in ``diptych_workspace`` (or ``workspace``). The scripted models are
    registered, so ``"scripted-likelihood"`` works by name."""

    def run(
        probe: Probe | str,
        model: Model | str | Sequence[Model | str],
        *,
        params: dict[str, Any] | None = None,
        options: RunOptions | None = None,
        workspace: Workspace | None = None,
    ) -> ProbeRun:
        ws = workspace or diptych_workspace
        models = [model] if isinstance(model, str) or not isinstance(model, Sequence) else model
        built = ws.plugins.probe(probe, params)
        estimate = ws.runs.plan(built, list(models))
        record = ws.runs.run_sync(built, list(models), options=options)
        return ProbeRun(ws, built, estimate, record, ws.analysis.analyze(record.id))

    return run


def _comparable(result: ProbeResult) -> dict[str, Any]:
    return dataclasses.asdict(result)


def first_difference(a: Any, b: Any, where: str = "result") -> str | None:
    """Where two analysis results first differ, in words (None when they are equal): a key,
    an item, or the first byte at which two figures' PNGs part."""
    from diptych.core.probe import Figure

    if isinstance(a, Figure) and isinstance(b, Figure):
        for field_name in ("name", "title", "caption", "alt", "table"):
            if getattr(a, field_name) != getattr(b, field_name):
                return first_difference(
                    getattr(a, field_name), getattr(b, field_name), f"{where}.{field_name}"
                )
        if a.png != b.png:
            at = next(
                (i for i, (x, y) in enumerate(zip(a.png, b.png, strict=False)) if x != y),
                min(len(a.png), len(b.png)),
            )
            return (
                f"{where} (figure {a.name!r}): the PNG bytes differ from byte {at} "
                f"({len(a.png)} bytes stored-run side, {len(b.png)} the other)"
            )
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            if key not in a or key not in b:
                return f"{where}[{key!r}] is only in one of them"
            found = first_difference(a[key], b[key], f"{where}[{key!r}]")
            if found:
                return found
        return None
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{where}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{where} has {len(a)} items against {len(b)}"
        return None
    same = a == b
    if not isinstance(same, bool):  # an array compares item by item
        same = bool(getattr(same, "all", lambda: same)())
    if not same and not (isinstance(a, float) and isinstance(b, float) and a != a and b != b):
        return f"{where}: {a!r} against {b!r}"  # two NaNs count as the same number
    return None


@pytest.fixture
def assert_round_trip() -> Callable[[Any], None]:
    """``assert_round_trip(ran)`` for a :class:`ProbeRun`: the workspace opened afresh holds
    the parameters the run was made with (after ``bind``), rebuilds a probe with the same
    parameters from them and analyses the stored results to the same result.
    ``assert_round_trip(plugin)`` for a probe or model (class or instance): its parameters
    come back equal through JSON, and a misspelt one is refused."""

    def check(subject: Any) -> None:
        from diptych.core.capabilities import Model
        from diptych.core.probe import Probe
        from diptych.core.workspace import Workspace
        from diptych.testing.contract import Unmet, round_trips

        if isinstance(subject, ProbeRun):
            with Workspace.open(subject.workspace.path, create=False) as again:
                stored = again.runs.get(subject.id)
                assert stored.probe == subject.probe.name
                assert stored.params == subject.record.params, (
                    f"the store holds parameters {stored.params!r}, "
                    f"the run was made with {subject.record.params!r}"
                )
                rebuilt = again.plugins.probe(stored.probe, stored.params)
                assert rebuilt.params.model_dump(mode="json") == stored.params, (
                    f"the stored parameters rebuild {rebuilt.params!r}"
                )
                difference = first_difference(
                    _comparable(again.analysis.analyze(stored.id)), _comparable(subject.result)
                )
                assert difference is None, (
                    f"the stored run analyses to another result: {difference}"
                )
            return
        if isinstance(subject, type) and issubclass(subject, Probe | Model):
            subject = subject()
        if not isinstance(subject, Probe | Model):
            raise TypeError(f"assert_round_trip takes a ProbeRun, a probe or a model: {subject!r}")
        try:
            round_trips(type(subject).Params, subject.params)
        except Unmet as unmet:
            raise AssertionError(str(unmet)) from None

    return check

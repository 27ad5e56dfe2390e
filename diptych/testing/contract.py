"""The contract every probe, model and annotator plugin keeps, one expectation at a time.

diptych's own test suite checks it for every plugin the host loads (``tests/plugins/
test_contract.py`` parametrizes over :func:`expectations`), and ``diptych plugins check NAME``
checks it for one plugin, printing one line per failed expectation. A new plugin is covered by
both without a line written.

* A probe describes itself by class attributes, its parameters survive a round trip through
  JSON, and it plans the same trials, with the same keys, every time — without the network, a
  model or a run stored (planning stores nothing).
* A model declares its id, a version and pacing hints and implements every capability it lists,
  all without loading weights; its parameters survive a round trip through JSON.
* An annotator labels a bundled PAIRS photo at exactly the positions asked, in that order, in
  the label dimensions it declares (``label_dimensions``: ``gender``, ``tone``). A tone label is
  ``monk-1`` ... ``monk-10`` or ``cannot_identify`` with a ``reason`` in its detail, and a
  measured one records the detail keys its annotator declares (``tone_detail_keys``).
  Annotators that put questions to a vision-chat model (a ``model`` parameter) ask the scripted
  one of :mod:`diptych.testing` here.

An expectation raises :class:`Unmet` (or any error the plugin's own code raises) when it does not
hold; :func:`verify` turns that into one line.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from diptych.core import plugins
from diptych.core.capabilities import PROTOCOLS, Capability, ModelHints
from diptych.core.engine import ModelSlot
from diptych.core.trials import TrialSpec, canonical_json
from diptych.testing.subject import (
    KINDS,
    PLUGIN_NAME,
    SCRIPTED_VISION,
    Subject,
    Unmet,
    expect,
    first_doc_line,
    never_loaded,
    round_trips,
)

# --- the expectations ------------------------------------------------------------------------


@dataclass(frozen=True)
class Expectation:
    """One thing a plugin class must do: its id, what it says, its check, and the expectation
    whose failure makes it moot (``after``)."""

    id: str
    says: str
    check: Callable[[Subject], None]
    after: str | None = None


def _probe_name(s: Subject) -> None:
    expect(
        isinstance(s.cls.name, str) and PLUGIN_NAME.fullmatch(s.cls.name),
        f"name {getattr(s.cls, 'name', None)!r} is not lower-case words joined by hyphens",
    )


def _docstring(s: Subject) -> None:
    line = first_doc_line(s.cls)
    expect(line, f"{s.cls.__name__} has no docstring: its first line describes it")
    if s.kind == "probe":
        expect(s.cls.description() == line, "description() is not the docstring's first line")


def _probe_version(s: Subject) -> None:
    version = s.cls.version
    expect(isinstance(version, str) and version, f"version is {version!r}, not a string")


def _capabilities(s: Subject) -> None:
    caps = getattr(s.cls, "capabilities", None) or ()
    expect(caps, "lists no capabilities")
    expect(
        all(isinstance(c, Capability) for c in caps),
        f"capabilities {caps!r} are not all Capability",
    )
    if s.kind == "annotator":
        expect(Capability.PERSON_ANNOTATOR in caps, "an annotator lacks person_annotator")


def _probe_defaults(s: Subject) -> None:
    probe = s.cls()
    need = probe.required_capability()
    expect(need in s.cls.capabilities, f"required_capability() {need} is not in capabilities")


def _probe_params(s: Subject) -> None:
    probe = s.cls()
    round_trips(s.cls.Params, probe.params)
    again = s.cls(s.cls.Params.model_validate(probe.params.model_dump(mode="json")))
    expect(again.params == probe.params, "a probe rebuilt from its dumped parameters differs")


def _plans(s: Subject) -> None:
    specs, *_ = s.plans()
    expect(specs, "plans no trial with its default parameters")
    need = s.cls().required_capability()
    for spec in specs:
        expect(isinstance(spec, TrialSpec), f"plan() yielded {type(spec).__name__}, not TrialSpec")
        expect(spec.capability == need, f"a trial asks {spec.capability}, not {need}")
        canonical_json(spec.payload)  # the payload is JSON, as the key and the store need
        positions = [subject.position for subject in spec.subjects]
        expect(len(set(positions)) == len(positions), f"subject positions repeat: {positions}")


def _deterministic(s: Subject) -> None:
    specs, keys, again, keys_again, _ = s.plans()
    expect(again == specs, "a second plan() yields other trials")
    expect(keys_again == keys, "a second plan() yields other trial keys")


def _stores_nothing(s: Subject) -> None:
    *_, stored = s.plans()
    expect(stored == 0, f"planning stored {stored} run(s)")


def _named_blobs(value: Any) -> Iterator[str]:
    """Every ``{"blob": sha}`` in a payload: an input named by content."""
    if isinstance(value, dict):
        if isinstance(value.get("blob"), str):
            yield value["blob"]
        for inner in value.values():
            yield from _named_blobs(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _named_blobs(inner)


def _brings_inputs(s: Subject) -> None:
    specs, *_ = s.plans()
    brought, written = s.inputs()
    expect(written == 0, f"binding wrote {written} blob(s): yield them from input_blobs()")
    missing = sorted({sha for spec in specs for sha in _named_blobs(spec.payload)} - brought)
    expect(
        not missing,
        f"its trials name {len(missing)} blob(s) input_blobs() does not bring, "
        f"e.g. {missing[0] if missing else ''}",
    )


def _model_name(s: Subject) -> None:
    name = getattr(s.cls, "name", None)
    expect(
        isinstance(name, str) and PLUGIN_NAME.fullmatch(name),
        f"name {name!r} is not lower-case words joined by hyphens",
    )


def _operational(s: Subject) -> None:
    extra = set(s.cls.operational_params) - set(s.cls.Params.model_fields)
    expect(not extra, f"operational_params {sorted(extra)} are not parameters")


def _builds(s: Subject) -> None:
    s.model()


def _implements(s: Subject) -> None:
    # PROTOCOLS holds the interface each capability stands for: a capability missing there
    # fails every model that lists it, until its interface is added.
    model = s.model()
    for capability in s.cls.capabilities:
        interface = PROTOCOLS[capability]
        expect(isinstance(model, interface), f"lists {capability} but lacks its methods")
        for method in (m for m in vars(interface) if not m.startswith("_")):
            expect(
                inspect.iscoroutinefunction(getattr(model, method)),
                f"{method}() of {capability} is not async",
            )


def _model_version(s: Subject) -> None:
    version = s.model().version
    expect(isinstance(version, str) and version, f"version is {version!r}, not a string")


def _hints(s: Subject) -> None:
    hints = s.model().hints
    expect(isinstance(hints, ModelHints), "hints is not a ModelHints")
    expect(hints.max_concurrency >= 1, f"hints.max_concurrency is {hints.max_concurrency}")
    expect(hints.batch_size >= 1, f"hints.batch_size is {hints.batch_size}")
    expect(
        hints.rate_limit_per_min is None or hints.rate_limit_per_min > 0,
        f"hints.rate_limit_per_min is {hints.rate_limit_per_min}",
    )
    expect(
        hints.price_per_call is None or hints.price_per_call >= 0,
        f"hints.price_per_call is {hints.price_per_call}",
    )


def _identity(s: Subject) -> None:
    model = s.model()
    canonical_json(model.identity_params())  # part of every trial key: it must be JSON
    model_id = ModelSlot.of(model).ref.model_id
    if not model.params.model_fields_set:
        expect(model_id == s.name, f"with default parameters the id is {model_id!r}, not the name")
    else:
        expect(
            re.fullmatch(rf"{re.escape(s.name)}#[0-9a-f]{{8}}", model_id),
            f"the id {model_id!r} is not '{s.name}#<8 hex digits>'",
        )


def _model_params(s: Subject) -> None:
    params = s.params()
    round_trips(s.cls.Params, params)
    with never_loaded(s.cls):
        expect(s.cls(params).params == params, "the model does not keep the parameters given")


def _labels_positions(s: Subject) -> None:
    for subjects, labels in s.labelled():
        got = [label.position for label in labels]
        expect(got == list(subjects), f"asked {list(subjects)}, labelled {got}")
        for label in labels:
            expect(
                isinstance(label.label, str) and label.label,
                f"label {label.label!r} is not a word",
            )
            expect(
                label.confidence is None or 0 <= label.confidence <= 1,
                f"confidence {label.confidence} is not within 0..1",
            )


def _dimensions(s: Subject) -> None:
    from diptych.core.labels import CANNOT_IDENTIFY, LABEL_DIMENSIONS, TONE
    from diptych.core.labels.tone import TONE_LABELS

    declared = set(getattr(s.cls, "label_dimensions", {"gender"}))
    expect(
        bool(declared) and declared <= set(LABEL_DIMENSIONS),
        f"label_dimensions {sorted(declared)} are not among {', '.join(LABEL_DIMENSIONS)}",
    )
    needed = tuple(getattr(s.cls, "tone_detail_keys", ()))
    for _, labels in s.labelled():
        for label in labels:
            expect(
                label.dimension in declared,
                f"a label in dimension {label.dimension!r}, not one it declares "
                f"({', '.join(sorted(declared))})",
            )
            if label.dimension != TONE:
                continue
            expect(
                label.label in TONE_LABELS,
                f"tone label {label.label!r} is none of monk-1 ... monk-10, cannot_identify",
            )
            if label.label == CANNOT_IDENTIFY:
                reason = label.detail.get("reason")
                expect(
                    isinstance(reason, str) and bool(reason.strip()),
                    "a tone abstention (cannot_identify) gives no 'reason' in its detail",
                )
            else:
                missing = [k for k in needed if k not in label.detail]
                expect(not missing, f"a tone label's detail lacks {', '.join(missing)}")


PROBE: tuple[Expectation, ...] = (
    Expectation("name", "is named in lower-case words joined by hyphens", _probe_name),
    Expectation("docstring", "describes itself in its docstring's first line", _docstring),
    Expectation("version", "has a version string", _probe_version),
    Expectation("capabilities", "lists the capabilities it uses", _capabilities),
    Expectation("defaults", "builds with its default parameters", _probe_defaults),
    Expectation("params", "keeps its parameters through JSON", _probe_params, "defaults"),
    Expectation("plans", "plans trials with its default parameters", _plans, "defaults"),
    Expectation("deterministic", "plans the same trials every time", _deterministic, "plans"),
    Expectation("stores-nothing", "stores no run while planning", _stores_nothing, "plans"),
    Expectation(
        "brings-inputs", "brings every input its trials name by blob", _brings_inputs, "plans"
    ),
)

MODEL: tuple[Expectation, ...] = (
    Expectation("name", "is named in lower-case words joined by hyphens", _model_name),
    Expectation("docstring", "describes itself in its docstring's first line", _docstring),
    Expectation("capabilities", "lists the capabilities it implements", _capabilities),
    Expectation("operational", "names only its own parameters as operational", _operational),
    Expectation("builds", "builds without loading weights", _builds),
    Expectation("implements", "implements each capability it lists", _implements, "builds"),
    Expectation("version", "has a version string", _model_version, "builds"),
    Expectation("hints", "gives sane pacing hints", _hints, "builds"),
    Expectation("identity", "has an id from its name and parameters", _identity, "builds"),
    Expectation("params", "keeps its parameters through JSON", _model_params, "builds"),
)

ANNOTATOR: tuple[Expectation, ...] = (
    *MODEL,
    Expectation(
        "labels", "labels the people asked for, in that order", _labels_positions, "implements"
    ),
    Expectation(
        "dimensions",
        "labels only the dimensions it declares, in their vocabulary",
        _dimensions,
        "implements",
    ),
)

EXPECTATIONS: dict[str, tuple[Expectation, ...]] = {
    "probe": PROBE,
    "model": MODEL,
    "annotator": ANNOTATOR,
}


def expectations(kind: str) -> tuple[Expectation, ...]:
    """Every expectation of a probe, a model or an annotator."""
    return EXPECTATIONS[kind]


# --- verifying ---------------------------------------------------------------------------------


_subjects: dict[tuple[str, type, str], Subject] = {}


def subject(kind: str, cls: type, given: dict[str, Any] | None = None) -> Subject:
    """The one :class:`Subject` of this class (its shared computations are done once)."""
    key = (kind, cls, canonical_json(given or {}))
    if key not in _subjects:
        _subjects[key] = Subject(kind, cls, dict(given or {}))
    return _subjects[key]


def line(s: Subject, expectation: Expectation, why: str) -> str:
    """One failed expectation as one line: what, which, expected what, found what."""
    why = " ".join(why.split()) or "it does not"
    return f"{s.kind} '{s.name}' {expectation.says}: {why}"


def verify(s: Subject, expectation: Expectation) -> str | None:
    """None when the expectation holds, else its one line."""
    try:
        expectation.check(s)
    except Unmet as unmet:
        return line(s, expectation, str(unmet))
    # The plugin's own code may fail in any way; that is the finding, in one line.
    except Exception as error:  # noqa: BLE001
        return line(s, expectation, f"{type(error).__name__}: {error}")
    return None


def check(s: Subject) -> tuple[int, list[str]]:
    """Every expectation of the class: how many were checked and one line per failure. An
    expectation whose prerequisite failed is not checked (it would repeat the same fault)."""
    failed: dict[str, str] = {}
    checked = 0
    for expectation in expectations(s.kind):
        if expectation.after is not None and expectation.after in failed:
            continue
        checked += 1
        found = verify(s, expectation)
        if found is not None:
            failed[expectation.id] = found
    return checked, list(failed.values())


@dataclass
class PluginCheck:
    """What ``diptych plugins check NAME`` found for one plugin."""

    plugin: str
    package: str
    checked: int = 0
    failures: list[str] = field(default_factory=list)
    #: The classes checked, as ``kind name``.
    classes: list[str] = field(default_factory=list)
    #: What the author should know but that fails nothing (a plugin written for an older
    #: plugin API loads, with this warning).
    notes: list[str] = field(default_factory=list)


def _classes(name: str) -> tuple[plugins.PluginInfo | None, list[tuple[str, Any]]]:
    """The plugin named ``name`` and its classes, or the one probe, model or annotator of that
    name."""
    registry = plugins.load_plugins()
    for info in registry.plugins:
        if info.name == name or (info.distribution and info.distribution == name):
            found = [
                (kind, getattr(registry, f"{kind}s")[n])
                for kind in KINDS
                for n in getattr(info, f"{kind}s")
            ]
            return info, found
    for kind in KINDS:
        cls = getattr(registry, f"{kind}s").get(name)
        if cls is not None:
            owner = registry.owner.get((kind, name), "")
            return next((i for i in registry.plugins if i.name == owner), None), [(kind, cls)]
    return None, []


def check_plugin(name: str, *, given: dict[str, dict[str, Any]] | None = None) -> PluginCheck:
    """Check the contract for the plugin ``name`` (its entry-point name or package) or for the
    one probe, model or annotator called ``name``.

    Raises :class:`~diptych.core.errors.UnknownPluginError` when nothing is called ``name``.
    ``given`` holds parameters by class name for models that need them."""
    import diptych.testing
    from diptych.core.errors import UnknownPluginError

    info, classes = _classes(name)
    if info is None and not classes:
        listing = ", ".join(sorted(p.name for p in plugins.load_plugins().plugins)) or "none"
        raise UnknownPluginError(
            f"no plugin, probe, model or annotator named '{name}' (plugins: {listing}); "
            "'diptych plugins' lists them"
        )
    result = PluginCheck(
        plugin=info.name if info else name,
        package=f"{info.distribution} {info.version}".strip() if info else "",
    )
    if info is not None and info.error:
        # A refusal for its plugin API names the plugin already; any other failure does not.
        refused = info.error.startswith(f"plugin '{info.name}' ")
        result.failures.append(
            info.error if refused else f"plugin '{info.name}' is not loaded: {info.error}"
        )
        return result
    # Annotators that ask a vision model ask the scripted one: register it for the check.
    scripted = None
    if SCRIPTED_VISION not in plugins.load_plugins().models:
        scripted = plugins.register_plugin(diptych.testing, "diptych-contract-scripted")
    try:
        for kind, cls in classes:
            s = subject(kind, cls, (given or {}).get(cls.name))
            checked, failures = check(s)
            result.checked += checked
            result.failures.extend(failures)
            result.classes.append(f"{kind} {cls.name}")
    finally:
        if scripted is not None:
            plugins.unregister_plugin(scripted)
    if info is not None and info.warning:
        result.notes.append(info.warning)
    return result

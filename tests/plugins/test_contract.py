"""The contract every plugin keeps, checked for every probe, model and annotator the host loads.

The expectations live in :mod:`diptych.testing.contract`, where ``diptych plugins check NAME``
runs them for a plugin author; here each is a test of its own for every plugin the registry
holds as collection finds it: the built-in plugins, any installed third-party plugin (the
example in ``examples/`` once it is installed) and the scripted doubles of ``diptych.testing``.
A new plugin, and a new expectation, is covered without a line added here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from pydantic import BaseModel

import diptych.testing
from diptych.core import plugins
from diptych.core.capabilities import Capability, Model
from diptych.core.labels import CANNOT_IDENTIFY, TONE, Label
from diptych.core.probe import Probe
from diptych.core.trials import TrialSpec
from diptych.testing import contract

# No plugin may reach the Hugging Face hub here (the fixture is in tests/plugins/conftest.py).
pytestmark = pytest.mark.usefixtures("offline")


def _registered() -> dict[str, dict[str, type]]:
    """What the host loads, and what diptych.testing registers when it is plugged in."""
    registry = plugins.load_plugins()
    found: dict[str, dict[str, type]] = {
        kind: dict(getattr(registry, f"{kind}s")) for kind in contract.KINDS
    }

    def into(kind: str) -> Callable[[Any], None]:
        def register(cls: Any) -> None:
            found[kind].setdefault(cls.name, cls)

        return register

    diptych.testing.register_probes(register=into("probe"))
    diptych.testing.register_models(register=into("model"))
    diptych.testing.register_annotators(register=into("annotator"))
    return found


REGISTERED = _registered()


def _required(name: str) -> dict[str, Any]:
    """Values for parameters a built-in model requires that no example can stand for."""
    if name == "llamacpp":
        from diptych.plugins.models.llamacpp import bundled_smollm2_gguf

        # Any GGUF file; the bundled one is on every machine that has the plugin.
        return {"model_path": str(bundled_smollm2_gguf())}
    if name == "openai-compatible":
        return {"base_url": "http://127.0.0.1:8080/v1"}  # nothing is asked of it here
    return {}


def _cases() -> list[Any]:
    return [
        pytest.param(kind, cls, expectation, id=f"{kind}-{name}-{expectation.id}")
        for kind in contract.KINDS
        for name, cls in sorted(REGISTERED[kind].items())
        for expectation in contract.expectations(kind)
    ]


@pytest.mark.usefixtures("scripted")
@pytest.mark.parametrize(("kind", "cls", "expectation"), _cases())
def test_every_plugin_keeps_the_contract(
    kind: str, cls: type, expectation: contract.Expectation
) -> None:
    subject = contract.subject(kind, cls, _required(cls.name))
    failure = contract.verify(subject, expectation)
    assert failure is None, failure


#: Perceived gender in the contract's photos (a Black woman alone; then she, left, beside a
#: White man), by position, for the annotators that see the picture; scripted ones say what
#: their script says.
SEEN = {"single": "feminine", "left": "feminine", "right": "masculine"}
EXPECTED: dict[str, Callable[[str], str]] = {
    "faces": SEEN.__getitem__,
    "vqa": lambda position: "feminine",  # what the scripted vision model is told to answer
    "vlm-judge": lambda position: "feminine",
    "scripted-annotator": lambda position: CANNOT_IDENTIFY,
}


@pytest.mark.usefixtures("scripted")
@pytest.mark.parametrize("name", sorted(set(EXPECTED) & set(REGISTERED["annotator"])))
def test_the_built_in_annotators_label_the_contract_photos(name: str) -> None:
    subject = contract.subject("annotator", REGISTERED["annotator"][name], _required(name))
    for subjects, labels in subject.labelled():
        assert [label.label for label in labels] == [EXPECTED[name](p) for p in subjects]


class BrokenProbe(Probe):
    name = "Broken_Probe"
    capabilities = frozenset({Capability.TEXT_LIKELIHOOD})
    planned = 0

    def plan(self) -> Iterator[TrialSpec]:
        # Another prompt each time it is asked: no run could ever be resumed.
        BrokenProbe.planned += 1
        yield TrialSpec(
            Capability.TEXT_LIKELIHOOD, {"prompt": f"try {self.planned}", "candidates": ["a"]}
        )


class BrokenModel(Model):
    """Loads its weights as soon as it is built, and says nothing of what it can do."""

    name = "broken-model"

    def __init__(self, params: BaseModel | None = None) -> None:
        super().__init__(params)
        self.load()


def test_the_contract_names_each_broken_expectation_in_one_line() -> None:
    checked, failures = contract.check(contract.subject("probe", BrokenProbe))
    assert checked == len(contract.PROBE) and len(failures) == 3, failures
    assert all("\n" not in f for f in failures)
    assert failures == [
        "probe 'Broken_Probe' is named in lower-case words joined by hyphens: name "
        "'Broken_Probe' is not lower-case words joined by hyphens",
        "probe 'Broken_Probe' describes itself in its docstring's first line: BrokenProbe has "
        "no docstring: its first line describes it",
        "probe 'Broken_Probe' plans the same trials every time: a second plan() yields other "
        "trials",
    ]
    checked, failures = contract.check(contract.subject("model", BrokenModel))
    assert failures == [
        "model 'broken-model' lists the capabilities it implements: lists no capabilities",
        "model 'broken-model' builds without loading weights: BrokenModel loads its weights "
        "to describe itself: load in load()",
    ]
    # The four expectations that need a built model are moot, not repeated.
    assert checked == len(contract.MODEL) - 5


class ToneGuesser(Model):
    """Labels tone with a word of its own (or what ``said`` gives), in the tone dimension."""

    name = "tone-guesser"
    capabilities = frozenset({Capability.PERSON_ANNOTATOR})
    label_dimensions = frozenset({"tone"})
    tone_detail_keys = ("ita",)
    said = "dark"

    @property
    def version(self) -> str:
        return "1"

    async def annotate(self, image: Any, subjects: Sequence[str]) -> list[Label]:
        return [Label(p, self.said, None, {}, dimension=TONE) for p in subjects]


class NoKeys(ToneGuesser):
    """Gives a Monk step without the detail it declares."""

    name = "no-keys"
    said = "monk-4"


class NoReason(ToneGuesser):
    """Abstains without saying why."""

    name = "no-reason"
    said = CANNOT_IDENTIFY


class GenderInTone(ToneGuesser):
    """Declares tone and labels gender."""

    name = "gender-in-tone"

    async def annotate(self, image: Any, subjects: Sequence[str]) -> list[Label]:
        return [Label(p, "feminine") for p in subjects]


@pytest.mark.parametrize(
    ("cls", "why"),
    [
        (ToneGuesser, "tone label 'dark' is none of monk-1 ... monk-10, cannot_identify"),
        (NoKeys, "a tone label's detail lacks ita"),
        (NoReason, "a tone abstention (cannot_identify) gives no 'reason' in its detail"),
        (GenderInTone, "a label in dimension 'gender', not one it declares (tone)"),
    ],
)
def test_the_contract_checks_a_tone_annotators_vocabulary_keys_and_reasons(
    cls: type, why: str
) -> None:
    (dimensions,) = [e for e in contract.ANNOTATOR if e.id == "dimensions"]
    failure = contract.verify(contract.subject("annotator", cls), dimensions)
    assert failure == (
        f"annotator '{cls.name}' labels only the dimensions it declares, in their vocabulary: "  # type: ignore[attr-defined]
        + why
    )

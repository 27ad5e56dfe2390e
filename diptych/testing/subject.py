"""One plugin class under a contract check (:class:`Subject`), with what its expectations compute
once and share — the default plan of a probe made twice over one throwaway store, the blobs it
brings, a model built from its default parameters with loading forbidden, an annotator's labels
of a bundled PAIRS photo — and the small pieces every expectation uses: :func:`expect`, which
raises :class:`Unmet`, and the parameters' JSON round trip. The expectations themselves are
:mod:`diptych.testing.contract`.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from diptych.core.capabilities import Model
from diptych.core.labels import Label
from diptych.core.runview import StoreLookup
from diptych.core.store import open_store
from diptych.core.trials import ModelRef, TrialSpec, sha256_hex, trial_key

KINDS = ("probe", "model", "annotator")

#: "unique, lower-case, hyphenated" (hookspecs.register_probes).
PLUGIN_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")

#: Any model, as a trial key sees it: keys depend on the trial alone once the model is fixed.
SOME_MODEL = ModelRef("contract-model", "1", {})

#: The vision-chat model of diptych.testing that annotators asking a model ask here.
SCRIPTED_VISION = "scripted-vision"

#: The positions an annotator is asked about: one person alone, then two side by side, asked
#: right before left so that an annotator answering in its own order is caught.
ASKED = (("single",), ("right", "left"))


class Unmet(AssertionError):
    """An expectation that does not hold; its message says what was found instead."""


def expect(condition: object, message: str) -> None:
    if not condition:
        raise Unmet(message)


def first_doc_line(cls: type) -> str:
    """The first line of the class's own docstring (a docstring is not inherited)."""
    doc = (cls.__dict__.get("__doc__") or "").strip()
    return doc.splitlines()[0] if doc else ""


def round_trips(schema: type[BaseModel], params: BaseModel) -> None:
    """Parameters come back equal from their JSON form, and a misspelt one is refused."""
    dumped = params.model_dump(mode="json")
    expect(schema.model_validate(dumped) == params, "parameters change through model_dump")
    expect(
        schema.model_validate_json(params.model_dump_json()) == params,
        "parameters change through JSON",
    )
    try:
        schema.model_validate({**dumped, "no_such_parameter": 1})
    except ValidationError as error:
        expect("no_such_parameter" in str(error), "a misspelt parameter is refused for another")
    else:
        raise Unmet('a misspelt parameter is accepted: give Params extra="forbid"')


# --- what the expectations share for one plugin class ----------------------------------------


@dataclass
class Subject:
    """One plugin class under test, with what its expectations compute once and share."""

    kind: str
    #: A probe or model class (typed loosely: a plugin's class may lack what it should have,
    #: which is what the expectations find out).
    cls: Any
    #: Parameters to build a model with (a required one's ``examples`` fill in the rest).
    given: dict[str, Any] = field(default_factory=dict)
    _memo: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return str(getattr(self.cls, "name", self.cls.__name__))

    def once(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` the first time; its value, or the same error, every time after."""
        if key not in self._memo:
            try:
                self._memo[key] = (True, compute())
            except Exception as error:  # noqa: BLE001 - replayed to every expectation needing it
                self._memo[key] = (False, error)
        ok, value = self._memo[key]
        if not ok:
            raise value
        return value

    # probes

    def plans(self) -> tuple[list[TrialSpec], list[str], list[TrialSpec], list[str], int]:
        """The default plan twice over one store, and how many runs the store holds after."""

        def compute() -> tuple[list[TrialSpec], list[str], list[TrialSpec], list[str], int]:
            with tempfile.TemporaryDirectory() as tmp, open_store(Path(tmp) / "ws") as store:
                # The port the host hands bind (plugin API 2), never the store itself.
                first = list(self.cls().bind(StoreLookup(store)).plan())
                again = list(self.cls().bind(StoreLookup(store)).plan())
                stored = len(store.list_runs())
            keys = [trial_key(SOME_MODEL, s) for s in first if isinstance(s, TrialSpec)]
            keys_again = [trial_key(SOME_MODEL, s) for s in again if isinstance(s, TrialSpec)]
            return first, keys, again, keys_again, stored

        return self.once("plans", compute)

    def inputs(self) -> tuple[set[str], int]:
        """The sha256 of every blob the bound default probe brings along (``input_blobs``), and
        how many blobs binding it wrote to an empty workspace."""

        def compute() -> tuple[set[str], int]:
            with tempfile.TemporaryDirectory() as tmp, open_store(Path(tmp) / "ws") as store:
                probe = self.cls().bind(StoreLookup(store))
                written = sum(1 for f in (Path(tmp) / "ws" / "blobs").rglob("*") if f.is_file())
                brought = {sha256_hex(data) for data in probe.input_blobs()}
            return brought, written

        found: tuple[set[str], int] = self.once("inputs", compute)
        return found

    # models and annotators

    def params(self) -> BaseModel:
        """Default parameters, except that an annotator asking another model asks a scripted
        one and a required parameter takes the first of its declared ``examples``."""

        def compute() -> BaseModel:
            schema: type[BaseModel] = self.cls.Params
            values = dict(self.given)
            if self.kind == "annotator" and "model" in schema.model_fields:
                values.setdefault("model", SCRIPTED_VISION)
            for name, info in schema.model_fields.items():
                if info.is_required() and name not in values:
                    expect(info.examples, f"give the required parameter {name!r} examples=[...]")
                    values[name] = info.examples[0]  # type: ignore[index]
            return schema.model_validate(values)

        return self.once("params", compute)

    def model(self) -> Model:
        """The model built with :meth:`params`, its ``load`` forbidden while it is built."""

        def compute() -> Model:
            with never_loaded(self.cls):
                return self.cls(self.params())

        return self.once("model", compute)

    def labelled(self) -> list[tuple[tuple[str, ...], list[Label]]]:
        """The annotator's labels of a PAIRS photo alone and of two side by side."""

        def compute() -> list[tuple[tuple[str, ...], list[Label]]]:
            from diptych.testing.pairs_photos import LAB_COAT, photo, rgb, side_by_side
            from diptych.testing.scripted import ScriptedModel

            woman, man = photo(*LAB_COAT, "black_woman"), photo(*LAB_COAT, "white_man")
            images = {ASKED[0]: rgb(woman), ASKED[1]: side_by_side(woman, man)}
            annotator = self.cls(self.params())
            asked = getattr(annotator, "vision_model", None)

            async def annotate_all() -> list[tuple[tuple[str, ...], list[Label]]]:
                found = []
                try:
                    for subjects, image in images.items():
                        if isinstance(asked, ScriptedModel):
                            asked.enqueue(*["feminine"] * len(subjects))
                        found.append((subjects, list(await annotator.annotate(image, subjects))))
                finally:
                    await annotator.aclose()
                return found

            annotator.load()
            return asyncio.run(annotate_all())

        return self.once("labelled", compute)


@contextmanager
def never_loaded(cls: type) -> Iterator[None]:
    def load(self: Model) -> None:
        raise Unmet(f"{cls.__name__} loads its weights to describe itself: load in load()")

    had = "load" in cls.__dict__
    before = cls.__dict__.get("load")
    cls.load = load  # type: ignore[attr-defined]
    try:
        yield
    finally:
        if had:
            cls.load = before  # type: ignore[attr-defined]
        else:
            del cls.load  # type: ignore[attr-defined]

"""The probe base class and what a probe's analysis returns.

A probe turns one published method into trials (``plan``), turns a model's raw answers into
labels for its subjects where the model labels its own output (``self_labels``), scores a
finished run (``analyze``) and, where its method compares runs, compares two (``compare``). It
reads a run through its :class:`~diptych.core.runview.RunView` and, where it builds on what the
workspace holds, the workspace through the read-only :class:`~diptych.core.lookup.RunLookup`
its ``bind`` receives; it never holds the store. Class attributes describe it; the first
docstring line is its description in ``diptych plugins``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from diptych.core.capabilities import Capability
from diptych.core.errors import UsageError
from diptych.core.labels import Label
from diptych.core.trials import Subject, TrialSpec

if TYPE_CHECKING:
    from diptych.core.lookup import RunLookup
    from diptych.core.metrics.uncertainty.precision import Components, PlannedFigure
    from diptych.core.runview import RunView
    from diptych.core.standings import FigureSample


__all__ = ["Figure", "Label", "Probe", "ProbeResult", "ReviewFlag", "Table"]

#: Bootstrap resamples and seed of ``Probe.compare`` unless a caller says otherwise.
COMPARE_N_BOOT = 2000
COMPARE_N_PERM = 10_000

#: A probe's own parameters class: ``class Pairs(Probe[PairsParams])`` reads them as ``self.p``.
ParamsT = TypeVar("ParamsT", bound=BaseModel)


@dataclass(frozen=True)
class ReviewFlag:
    """One item for review: a trial (and a person in it, or the whole output) and why."""

    trial_idx: int
    position: str | None
    reason: str
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[Any]]
    note: str = ""
    #: The columns worth showing in an 80-column terminal, with short headers; the report
    #: shows them all.
    terminal_columns: dict[str, str] | None = None
    #: The name of the table's intervals where they need one: those of a design its gates
    #: stopped early are fixed-design and do not hold after the stop.
    interval_name: str = ""
    #: Why an interval column's cell has no interval, where the probe knows ("one partner
    #: only"): a page marks each such cell and says this under the table. One reason per
    #: interval column (keyed by its header) where they differ, so that a page which prints
    #: some columns only says why of those alone.
    no_interval: str | dict[str, str] = ""


class Figure:
    """A figure of the analysis: PNG bytes, written by the report as ``figures/<name>.png``.

    ``draw`` renders the bytes when they are first read (then kept): drawing is most of an
    analysis' time, and an HTML report that shows the same numbers as its own chart never
    reads them. ``alt`` is the text alternative, every number the figure shows; ``table`` the
    title of the result's table that holds those numbers, for a report that charts it."""

    def __init__(
        self,
        name: str,
        title: str,
        png: bytes = b"",
        caption: str = "",
        *,
        draw: Callable[[], bytes] | None = None,
        alt: str = "",
        table: str = "",
    ) -> None:
        self.name, self.title, self.caption = name, title, caption
        self.alt, self.table = alt, table
        self._png, self._draw = png, draw

    @property
    def png(self) -> bytes:
        if not self._png and self._draw is not None:
            self._png, self._draw = self._draw(), None
        return self._png

    @property
    def path(self) -> str:
        return f"figures/{self.name}.png"

    def _content(self) -> tuple[str, str, str, str, str, bytes]:
        return (self.name, self.title, self.caption, self.alt, self.table, self.png)

    def __eq__(self, other: object) -> bool:
        # By content, drawing both if need be: a result analysed again from the store holds
        # new Figure objects, and is the same result when they show the same picture.
        if not isinstance(other, Figure):
            return NotImplemented
        return self._content() == other._content()

    def __hash__(self) -> int:
        # Equal figures share name and title; hashing them draws nothing.
        return hash((self.name, self.title))

    def __repr__(self) -> str:
        return f"Figure(name={self.name!r}, title={self.title!r})"


@dataclass
class ProbeResult:
    """What ``analyze`` returns; the report renders it to Markdown, HTML or JSON.

    ``numbers`` holds the headline figures, each a dict with ``value`` and, for every bias
    figure, ``ci_low``/``ci_high`` and ``n``. ``flags`` point a reviewer at trials to look at.
    """

    title: str
    summary: str = ""
    numbers: dict[str, dict[str, Any]] = field(default_factory=dict)
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    flags: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


class Probe(Generic[ParamsT]):
    """Base class of every probe plugin.

    ``Probe[MyParams]`` (with ``Params = MyParams``) types :attr:`p` as ``MyParams``; a bare
    ``Probe`` works as before, its ``p`` untyped."""

    name: ClassVar[str]
    goal: ClassVar[str] = ""
    #: Bump when ``plan`` or the payloads change: it is part of a run's identity.
    version: ClassVar[str] = "1"
    #: Every capability some mode of the probe can use.
    capabilities: ClassVar[frozenset[Capability]] = frozenset()
    #: The annotator id under which ``self_labels`` are stored.
    self_annotator: ClassVar[str] = "self"
    #: What one observation behind a figure's ``n`` is, singular ("person", "prompt",
    #: "answer"): the report names what every n counts. A figure whose n counts something
    #: else says so in its own ``n_of``.
    observation: ClassVar[str] = "observation"
    #: What one trial is, singular ("image", "draw"): the unit an interval over trials
    #: resamples (the annotators' agreement), named as the probe's reader knows it.
    trial_unit: ClassVar[str] = "trial"

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")

    def __init__(self, params: BaseModel | None = None) -> None:
        self.params = params if params is not None else self.Params()

    @property
    def p(self) -> ParamsT:
        """The parameters as the probe's own ``Params`` (``params`` is typed as any model)."""
        assert isinstance(self.params, self.Params)
        return self.params  # type: ignore[return-value]

    @classmethod
    def description(cls) -> str:
        doc = (cls.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else cls.goal

    def required_capability(self) -> Capability:
        """The capability this probe, with its parameters, asks of a model."""
        if len(self.capabilities) != 1:
            raise NotImplementedError(f"{self.name} must say which capability its mode needs")
        return next(iter(self.capabilities))

    def bind(self, runs: RunLookup) -> Probe:
        """The probe ready to plan in this workspace. A probe that builds on an earlier run
        (e.g. re-testing the most biased identities of ``from_run``) reads it through ``runs``
        — read-only: a run's view by id, the runs of a probe, calibrations — and returns a probe
        whose parameters record what it chose; the default needs nothing and returns itself.

        Called before every plan (a dry run's too) and before a stored run is scored again, so
        it writes nothing: images the trials name come from :meth:`input_blobs`."""
        return self

    def input_blobs(self) -> Iterable[bytes]:
        """The bytes of every input the trials name by content (``{"blob": sha}`` in a payload,
        the sha256 of these bytes) that the probe brings along, such as the PAIRS photos or a
        local dataset's images. The engine puts them in the workspace's blob store when a run
        starts, before the first trial is asked (a blob stored already is not written again);
        a dry run stores none. Called on the bound probe; the default brings none."""
        return ()

    def figure_names(self, n_models: int = 1) -> list[str] | None:
        """Every headline figure name (a key of ``ProbeResult.numbers``) the analysis of a run
        of this probe with ``n_models`` models can give, so that an audit's gates are checked
        before the first run; None where the probe does not say (a gate on one of its figures
        is then checked against the last recorded run, or when its gates are decided). Where
        part of a name is known only once the run is made, such as a model's id, a placeholder
        stands for it (:mod:`diptych.core.figure_names`); a figure published without an
        interval (a p-value, a count) is declared with ``without_interval``, so that a gate on
        it is refused before the run too."""
        return None

    def planned_figures(self) -> list[PlannedFigure]:
        """The headline figures a run of this probe will give (names without a model's
        prefix: every model gets the same design), each with the units its interval will
        resample, how it is assumed to vary over them and the range it can take
        (:mod:`diptych.core.metrics.uncertainty.precision`), so that a dry run states the precision
        before anything is paid for. Called on the bound probe; the default: the probe does not
        say."""
        return []

    def observed_components(self, run: RunView) -> dict[str, Components]:
        """How each planned figure (by its name in :meth:`planned_figures`) varied over its
        units in ``run``, an earlier run of this probe, estimated from its observations
        (:func:`~diptych.core.metrics.uncertainty.precision.components_of`); a figure the run cannot
        say (no labels yet) is left out. The default: none."""
        return {}

    def figure_samples(self, run: RunView) -> list[FigureSample]:
        """Each model's observations of each figure that can stand beside other models' (the
        STS of each setting), with their units and cells and the design that must match for
        two figures to be ranked together (:class:`~diptych.core.standings.FigureSample`;
        :func:`~diptych.core.standings.sts_samples` makes them from the STS's label rows), for
        ``diptych standings``. The default: none (the probe's runs are not ranked)."""
        return []

    def plan(self) -> Iterator[TrialSpec]:
        """Every trial, in a deterministic order, with its subjects."""
        raise NotImplementedError

    def self_labels(self, spec: TrialSpec, output: dict[str, Any], key: str) -> Sequence[Label]:
        """Labels the model's own answer gives its subjects (e.g. the pronoun it chose).

        ``key`` is the trial key; probes that draw labels at random seed the draw from it so a
        label can be reproduced. The default: the probe has no self-labels.
        """
        return ()

    def subjects(self, spec: TrialSpec) -> tuple[Subject, ...]:
        return spec.subjects

    def prompts_used(self) -> dict[str, str]:
        """The prompt templates of this run, for the report."""
        return {}

    def review_flags(self, run: RunView) -> list[ReviewFlag]:
        """What a reviewer should look at in the run, each with its reason. Recomputed and
        stored after a run and after each annotation pass; the default flags nothing."""
        return []

    def analyze(self, run: RunView) -> ProbeResult:
        """Score a run: tables, figures, flags and numbers with their uncertainty."""
        raise NotImplementedError

    def compare(
        self,
        a: RunView,
        b: RunView,
        *,
        top: int | None = None,
        n_boot: int = COMPARE_N_BOOT,
        n_perm: int = COMPARE_N_PERM,
        seed: int = 0,
    ) -> ProbeResult:
        """How run ``b`` differs from run ``a`` (e.g. with a fairness intervention against
        without), each difference with its interval and p-value. ``top`` restricts the
        comparison to the most biased identities of ``a`` where the method has them. The
        default: the probe cannot compare runs."""
        raise UsageError(f"probe {self.name} cannot compare runs")

"""Probe ``counterfactual-retrieval``: retrieval bias of an image–text encoder on
counterfactual sets (SocialCounterfactuals, Howard et al. 2024).

Every image of the chosen sets and every text the analysis needs is embedded once by each model
of the run: image trials carry only the image's blob, text trials only the text, so a trial's
key is the image's hash (or the text) and the encoder — the same image is never embedded twice
by one encoder, across runs too. The texts are the neutral queries of each pool ("A photo of a
doctor", and the other prefixes; for PAIRS the answer options of the subset's questions), the
sets' captions (filter stage 1) and "a/an x person" for every attribute value (stage 3).

The analysis filters the sets with the filtering encoder (the run's first model unless
``filter_encoder`` names another; a report warns when it is also audited), stores the audited
encoders' image embeddings in the workspace's chromadb collection with each set's attributes,
retrieves the top K of each query's pool and scores MaxSkew@K, MinSkew@K, NDKL@K and Bias@K
per query and attribute type (:mod:`diptych.core.metrics.retrieval.metrics`).

**Trial metadata**: ``kind`` (image | query | caption | detect); images: the set's fields
(``set_id``, ``segment``, ``subject``, ``template``, ``attribute_types``, ``pool``,
``set_size``) and ``blob``, ``attributes``, ``caption``, ``origin``; queries: ``pool``,
``subject``, ``text``; captions and detection texts: ``text`` (and ``segment``, ``type``,
``value``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from diptych.core.capabilities import Capability
from diptych.core.errors import DiptychError, UsageError
from diptych.core.figure_names import MODEL
from diptych.core.plugins.hookspecs import hookimpl
from diptych.core.probe import Probe, ProbeResult, ReviewFlag
from diptych.core.runview import RunView
from diptych.core.trials import TrialSpec
from diptych.datasets import pairs
from diptych.plugins.probes.counterfactual import sources
from diptych.plugins.probes.counterfactual.generation import CounterfactualSets
from diptych.plugins.probes.counterfactual.params import GENERATED, RetrievalParams
from diptych.plugins.probes.counterfactual.sets import CounterfactualSet
from diptych.plugins.probes.counterfactual.templates import (
    article,
    data,
    detect_text,
    neutral_queries,
)

if TYPE_CHECKING:
    from diptych.core.lookup import RunLookup
    from diptych.core.metrics.uncertainty.precision import Components, PlannedFigure


class CounterfactualRetrieval(Probe[RetrievalParams]):
    """SocialCounterfactuals: whose images does an encoder retrieve for a neutral query?"""

    name = "counterfactual-retrieval"
    #: What a figure's n counts: one text query ranked against the images.
    observation = "query"
    goal = (
        "Intersectional retrieval bias (MaxSkew@K, MinSkew@K, NDKL@K, Bias@K) of an image-text "
        "encoder over counterfactual image sets (SocialCounterfactuals, Howard et al. 2024)."
    )
    version = "1"
    capabilities = frozenset({Capability.IMAGE_TEXT_ENCODER})
    Params = RetrievalParams  # type: ignore[assignment]

    def __init__(self, params: RetrievalParams | None = None) -> None:
        super().__init__(params)
        self._sets: list[CounterfactualSet] | None = None
        self.incomplete_sets = 0

    # --- the sets -------------------------------------------------------------------------

    def generation_run(self) -> str | None:
        """The ``counterfactual-sets`` run the sets come from, when they are generated."""
        return self.p.generation_run()

    def bind(self, runs: RunLookup) -> CounterfactualRetrieval:
        # "generated" is resolved to the run it means and recorded in the parameters; the sets
        # of a generation run are read from it here.
        probe = self
        if self.p.sets == GENERATED:
            chosen = sources.latest_generation_run(runs)
            probe = CounterfactualRetrieval(
                self.p.model_copy(update={"sets": f"{GENERATED}:{chosen}"})
            )
        probe._sets = probe.load_sets(runs)
        return probe

    def input_blobs(self) -> Iterator[bytes]:
        # Trials name the sets' images by content; the engine puts these in the workspace.
        return sources.input_images(self.p.sets)

    def load_sets(self, runs: RunLookup | None) -> list[CounterfactualSet]:
        if self.p.sets == "pairs":
            return sources.pairs_sets()
        run_id = self.generation_run()
        if run_id is not None or self.p.sets == GENERATED:
            if runs is None or run_id is None:
                raise UsageError("generated sets are read from a workspace: bind the probe first")
            found, self.incomplete_sets = sources.generated_sets(runs, run_id)
            return found
        return sources.dataset_sets(Path(self.p.sets).expanduser())

    def sets(self) -> list[CounterfactualSet]:
        if self._sets is None:
            self._sets = self.load_sets(None)
        return self._sets

    def segments(self) -> dict[str, tuple[str, ...]]:
        """Every segment the sets can hold, with its attribute types, read from the parameters
        alone: a generation run's pair and a dataset's are known once the sets are read."""
        if self.p.sets == "pairs":
            return {sources.PAIRS_SEGMENT: sources.PAIRS_TYPES}
        if self.p.sets == GENERATED or self.generation_run() is not None:
            return {pair: tuple(types) for pair, types in data().pairs.items()}
        types = list(dict.fromkeys(sources.TYPE_WORDS.values()))
        return {f"{a}-{b}": (a, b) for a in types for b in types if a != b}

    def figure_names(self, n_models: int = 1) -> list[str] | None:
        # The keys analyze_retrieval gives: every audited model's id (the filtering encoder's
        # too when it is the only one), segment, attribute view and measure, and the measure's
        # excess over a random ranking. Bias@K needs the images' gender.
        from diptych.core.metrics.retrieval.results import MEASURES
        from diptych.plugins.probes.counterfactual.ranking import BIAS_VIEW, views

        names = []
        for segment, types in self.segments().items():
            for view in views(types):
                # Bias@K counts the genders: the gender view's only.
                measures = [m for m in MEASURES if view == BIAS_VIEW or "bias" not in m]
                for measure in measures:
                    key = f"{MODEL}.{segment}.{view}.{measure}"
                    names += [f"{key}.excess", key]
        return names

    def planned_figures(self) -> list[PlannedFigure]:
        # MaxSkew@K of each attribute view and Bias@K, over the sets before the run's filters
        # (which only remove sets); how they vary is a bound until an earlier run says.
        from diptych.plugins.probes.counterfactual.precision import planned_retrieval

        chosen = self.sets()
        queries = {s.pool_id: self.queries(s) for s in chosen}
        return planned_retrieval(chosen, queries)

    def observed_components(self, run: RunView) -> dict[str, Components]:
        from diptych.plugins.probes.counterfactual.precision import observed_retrieval

        try:
            numbers = self.analyze(run).numbers
        except DiptychError:
            return {}  # an earlier run that cannot be analysed here says nothing
        return observed_retrieval(numbers, f"run {run.id}")

    # --- the plan -------------------------------------------------------------------------

    def queries(self, s: CounterfactualSet) -> list[str]:
        """The neutral queries of ``s``'s pool."""
        if s.pool_id.startswith("pairs/"):
            subset = s.pool_id.split("/", 1)[1]
            return [
                t.format(article=article(word), subject=word)
                for word in data().pairs_queries[subset]
                for t in data().query_templates
            ]
        return neutral_queries(s.subject)

    def plan(self) -> Iterator[TrialSpec]:
        chosen = self.sets()
        if not chosen:
            raise UsageError(f"no complete counterfactual set in {self.p.sets}")
        cap = Capability.IMAGE_TEXT_ENCODER
        for s in chosen:
            for image in s.images:
                yield TrialSpec(
                    cap,
                    {"images": [{"blob": image.blob}]},
                    meta={
                        "kind": "image",
                        **s.to_meta(),
                        "blob": image.blob,
                        "attributes": image.attributes,
                        "caption": image.caption,
                        "origin": image.origin,
                    },
                )
        texts: dict[str, dict[str, object]] = {}
        for s in chosen:
            for query in self.queries(s):
                texts.setdefault(
                    f"query\x1f{s.pool_id}\x1f{query}",
                    {
                        "kind": "query",
                        "pool": s.pool_id,
                        "subject": s.subject,
                        "text": query,
                    },
                )
            for image in s.images:
                texts.setdefault(
                    f"caption\x1f{image.caption}", {"kind": "caption", "text": image.caption}
                )
        for segment, types in sources.known_values(chosen).items():
            for t, values in types.items():
                for value in values:
                    text = detect_text(value)
                    texts.setdefault(
                        f"detect\x1f{segment}\x1f{t}\x1f{value}",
                        {
                            "kind": "detect",
                            "segment": segment,
                            "type": t,
                            "value": value,
                            "text": text,
                        },
                    )
        for meta in texts.values():
            yield TrialSpec(cap, {"texts": [meta["text"]]}, meta=dict(meta))

    def prompts_used(self) -> dict[str, str]:
        used = {
            "queries": " | ".join(data().query_templates),
            "detectability": data().detect_template + " (argmax over the type's values)",
            "source": data().source,
        }
        if self.p.sets == "pairs":
            used["images"] = f"PAIRS ({pairs.LICENSE}): {pairs.ATTRIBUTION}"
        return used

    # --- scoring --------------------------------------------------------------------------

    def review_flags(self, run: RunView) -> list[ReviewFlag]:
        from diptych.plugins.probes.counterfactual.applied_filter import detectability_flags

        return detectability_flags(self.p, run)

    def analyze(self, run: RunView) -> ProbeResult:
        # Imported here: the analysis pulls in numpy, chromadb and matplotlib.
        from diptych.plugins.probes.counterfactual.analysis import analyze_retrieval

        return analyze_retrieval(self.p, run)


@hookimpl
def register_probes(register: Callable[[type[Probe]], None]) -> None:
    register(CounterfactualRetrieval)
    register(CounterfactualSets)

"""Probe ``stories``: open-ended descriptions and stories of the PAIRS images (PAIRS, Section 4).

A vision-language model is shown each PAIRS image of the chosen scenarios (by default the 10
potentially crime-related ones) and asked the six open-ended prompts of the paper's Table 1
(``diptych/prompts/pairs_stories.yaml``), each ``runs`` times (the paper: 3) with the paper's
sampling (temperature 0.75, top-p 1, at most 512 tokens) and the seed of the run. The images of
one scenario differ only in the person's perceived race and gender (Black/White × man/woman), so
whatever sets one group's texts apart comes from the person, not the scene.

The analysis follows Appendix D: every generation is processed the paper's way (SMART stop list,
numerals and punctuation dropped, lower case, spaCy lemmas, gensim bigram phrases learned from
every generation of the run), the generations of one image (6 prompts × 3 runs) are concatenated
into one text, and the PMI association score (:mod:`diptych.core.metrics.pairs.lexical`) picks the
frequent words that set each group apart:

* per scenario and model, the four groups (Tables 3 and E.2–E.6);
* per model, pooled over the scenarios, Black against White subjects (Tables E.7–E.8) and men
  against women;
* the words per image of each group (Table E.1).

A lexicon of crime and incarceration lemmas (``diptych/prompts/crime_lexicon.yaml``) flags every
generation that uses one (review flag ``crime_lexicon``), counted by group and scenario.

**Trial metadata**: ``subset``, ``scenario``, ``race`` (black | white), ``gender`` (man | woman),
``group`` (``black_man`` ...), ``image`` (the PAIRS id), ``prompt`` (Table 1's number) and
``run`` (1-based). Each trial names its image by the sha256 of its bytes, put in the workspace's
blob store when a run starts (:meth:`Stories.input_blobs`), so a trial key hashes the image's
content.

Anything that shows these results carries :data:`diptych.datasets.pairs.ATTRIBUTION`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from diptych.core.capabilities import Capability
from diptych.core.data import image_sha, pairs_sampling
from diptych.core.errors import MissingDependencyError
from diptych.core.figure_names import model_prefix
from diptych.core.metrics.pairs.lexical import Processing
from diptych.core.plugins.hookspecs import hookimpl
from diptych.core.probe import Probe, ProbeResult, ReviewFlag
from diptych.core.runview import RunView
from diptych.core.trials import TrialSpec
from diptych.datasets import pairs
from diptych.plugins.probes.stories.data import StoryPrompt, crime_lexicon, story_prompts
from diptych.plugins.probes.stories.generations import GROUPS, crime_flags, generations, lemmas
from diptych.plugins.probes.stories.params import StoriesParams, chosen_images

if TYPE_CHECKING:
    from diptych.core.lookup import RunLookup


def _require_text_extra(processing: Processing) -> None:
    """Fail before a run starts, not in its last step, when the analysis cannot run."""
    from diptych.core.metrics.pairs.preprocess import SPACY_MODEL, SPACY_PACKAGE

    purpose = "The stories probe (its word analysis and crime-lexicon flags)"
    needed = [("spacy", "spacy"), (SPACY_MODEL, SPACY_PACKAGE)]
    if processing == "default":
        needed.append(("gensim", "gensim"))
    for module, package in needed:
        if importlib.util.find_spec(module) is None:
            raise MissingDependencyError(package, "text", purpose)


class Stories(Probe[StoriesParams]):
    """PAIRS open-ended prompts: words that set stories of Black/White men/women apart."""

    name = "stories"
    #: What a figure's n counts: one generated story.
    observation = "story"
    trial_unit = "image"
    goal = (
        "Find the words a vision-language model uses more for one race × gender group than the "
        "others when describing and telling stories about parallel images (PAIRS, Fraser & "
        "Kiritchenko 2024), and flag generations that bring in crime or incarceration."
    )
    version = "1"
    capabilities = frozenset({Capability.VISION_CHAT})
    Params = StoriesParams  # type: ignore[assignment]

    def images(self) -> list[pairs.PairsImage]:
        return chosen_images(self.p)

    def prompts(self) -> list[StoryPrompt]:
        every = story_prompts().prompts
        if self.p.prompts is None:
            return list(every)
        wanted = set(self.p.prompts)
        return [p for p in every if p.id in wanted]

    def figure_names(self, n_models: int = 1) -> list[str] | None:
        # The keys analyze_stories gives: every scenario shows each group once, so every group
        # has generations; several models prefix them with each model's id.
        prefix = model_prefix(n_models)
        return [f"{prefix}crime-lexicon share, {group}" for group in GROUPS]

    def bind(self, runs: RunLookup) -> Stories:
        _require_text_extra(self.p.processing)
        return self

    def input_blobs(self) -> Iterator[bytes]:
        # The trials name images by blob; the engine puts these in the workspace to load them.
        for image in self.images():
            yield image.path.read_bytes()

    def plan(self) -> Iterator[TrialSpec]:
        images = self.images()
        # Runs outermost, then prompts: a run stopped part-way (--max-cost, Ctrl-C) leaves
        # every image with the same prompts answered, so the groups stay comparable.
        for run in range(self.p.runs):
            # One seed per run for all images: the four parallel images of a scenario then get
            # the same random draws on a backend that honours seeds, so their differences come
            # from the picture, not from sampling noise.
            sampling = pairs_sampling().model_copy(update={"seed": self.p.seed * 1000 + run})
            for prompt in self.prompts():
                for image in images:
                    yield TrialSpec(
                        Capability.VISION_CHAT,
                        {
                            "images": [{"blob": image_sha(image.path)}],
                            "text": prompt.text,
                            "sampling": sampling.model_dump(),
                        },
                        sample=run,
                        meta={
                            "subset": image.subset,
                            "scenario": image.scenario,
                            "race": image.race,
                            "gender": image.gender,
                            "group": image.group,
                            "image": image.id,
                            "prompt": prompt.id,
                            "run": run + 1,
                        },
                    )

    def prompts_used(self) -> dict[str, str]:
        used = {f"prompt {p.id} ({p.name})": p.text for p in self.prompts()}
        scenarios = sorted({img.scenario for img in self.images()})
        used["images"] = (
            f"PAIRS {', '.join(self.p.subsets)}: {', '.join(scenarios)} ({pairs.LICENSE})"
        )
        paper = pairs_sampling()
        used["sampling"] = (
            f"temperature {paper.temperature}, top-p {paper.top_p}, at most "
            f"{paper.max_tokens} tokens; seed {self.p.seed}*1000 + run-1"
        )
        return used

    def review_flags(self, run: RunView) -> list[ReviewFlag]:
        gens = generations(run)
        return crime_flags(gens, lemmas([g.text for g in gens]), crime_lexicon())

    def analyze(self, run: RunView) -> ProbeResult:
        from diptych.plugins.probes.stories.analysis import analyze_stories

        return analyze_stories(run, self.p)


@hookimpl
def register_probes(register: Callable[[type[Probe]], None]) -> None:
    register(Stories)

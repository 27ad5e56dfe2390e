"""Probe ``counterfactual-sets``: counterfactual sets made by an image generator.

Howard et al. (2024) §3.2 and supplement §8.4: for each subject (Table 18's occupations) and
caption prefix (Table 19), every combination of the pair's attribute values is drawn with the
*same seed*, so the images of a set differ only where the caption does; ``sets_per_caption``
sets are made per caption template (the paper: 100, then filtered). Each image is one trial,
so a run resumes, is cached and is priced like any other; ``diptych annotate <run> --annotator
nsfw`` gives the NSFW stage of the filter its labels, and ``counterfactual-retrieval
-p sets=generated`` uses the sets.

**Trial metadata**: ``set_id`` (``<pair>/<subject>/<prefix>/<n>``), ``segment``, ``subject``,
``template``, ``attribute_types``, ``pool``, ``set_size``, ``attributes`` and ``caption``.
**Subject**: one, ``single``, with the attributes.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product

from diptych.core.capabilities import Capability
from diptych.core.figure_names import without_interval
from diptych.core.probe import Probe, ProbeResult, Table
from diptych.core.runview import RunView
from diptych.core.trials import Subject, TrialSpec
from diptych.plugins.probes.counterfactual.params import GenerationParams
from diptych.plugins.probes.counterfactual.templates import caption, data


class CounterfactualSets(Probe[GenerationParams]):
    """SocialCounterfactuals sets: images differing only in race, gender or physical traits."""

    name = "counterfactual-sets"
    goal = (
        "Counterfactual image sets from the SocialCounterfactuals caption templates, one seed "
        "per set (Howard et al. 2024), for counterfactual-retrieval."
    )
    version = "1"
    capabilities = frozenset({Capability.IMAGE_GENERATOR})
    Params = GenerationParams  # type: ignore[assignment]

    def plan(self) -> Iterator[TrialSpec]:
        d = data()
        types = d.pairs[self.p.pair]
        values = [d.attributes[t] for t in types]
        prefixes = self.p.prefixes if self.p.prefixes is not None else range(len(d.prefixes))
        subjects = self.p.occupations if self.p.occupations is not None else d.occupations
        ordinal = 0
        for subject in subjects:
            for prefix in prefixes:
                template = caption(d.prefixes[prefix], f"<{types[0]}>", f"<{types[1]}>", subject)
                for n in range(self.p.sets_per_caption):
                    seed = self.p.seed + ordinal
                    ordinal += 1
                    head = {
                        "set_id": f"{self.p.pair}/{subject}/{prefix}/{n}",
                        "segment": self.p.pair,
                        "subject": subject,
                        "template": template,
                        "attribute_types": list(types),
                        "pool": f"{self.p.pair}/{subject}",
                        "set_size": len(values[0]) * len(values[1]),
                    }
                    for a1, a2 in product(*values):
                        text = caption(d.prefixes[prefix], a1, a2, subject)
                        attributes = {types[0]: a1, types[1]: a2}
                        yield TrialSpec(
                            Capability.IMAGE_GENERATOR,
                            {"prompt": text, "seed": seed, "size": self.p.size},
                            meta={**head, "attributes": attributes, "caption": text},
                            subjects=(Subject("single", dict(attributes)),),
                        )

    def prompts_used(self) -> dict[str, str]:
        d = data()
        return {
            "captions": "<prefix> <a/an> <attribute 1> <attribute 2> <subject> (Table 19)",
            "prefixes": " | ".join(p or "A/An" for p in d.prefixes),
            "source": d.source,
        }

    def figure_names(self, n_models: int = 1) -> list[str] | None:
        # The counts analyze gives, over every model's images together.
        return [without_interval(name, "a count") for name in ("sets_complete", "sets_planned")]

    def analyze(self, run: RunView) -> ProbeResult:
        counts = run.status_counts()
        sets: dict[str, set[str]] = {}
        for trial in run.trials:
            result = run.result(trial)
            status = result.status if result is not None else "pending"
            sets.setdefault(trial.meta["set_id"], set()).add(status)
        complete = sum(1 for s in sets.values() if s == {"done"})
        return ProbeResult(
            title="Counterfactual sets",
            summary=f"{complete} of {len(sets)} sets complete; score them with "
            "counterfactual-retrieval -p sets=generated",
            numbers={
                "sets_complete": {"value": complete, "reason": "a count"},
                "sets_planned": {"value": len(sets), "reason": "a count"},
            },
            tables=[Table("Images by outcome", list(counts), [list(counts.values())])],
        )

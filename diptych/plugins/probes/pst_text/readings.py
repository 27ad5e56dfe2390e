"""A likelihood-mode ``pst-text`` run read per distinct prompt: who each prompt asks about and
the model's probability of each pronoun, its samples merged (one stored answer per prompt)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from diptych.core.labels import SubjectLabel
from diptych.plugins.probes.pst_text.params import text_prompts
from diptych.plugins.probes.pst_text.pronouns import candidate_mass


@dataclass(frozen=True)
class PromptReading:
    """One distinct likelihood prompt: who it asks about and what the model said of it."""

    setting: str
    identity: str
    stereotype: str
    #: The unordered scene (paired: its two identities) or the identity (single).
    cluster: str
    #: The scene's masculine- and feminine-stereotyped identity (one of them None when single).
    masculine: str | None
    feminine: str | None
    p_feminine: float
    #: P(he) + P(she) before renormalising; None when the label kept no log-probabilities.
    mass: float | None

    @property
    def stereo(self) -> float:
        """2·P(stereotyped pronoun) − 1: the expected Stereo(label, stereotype)."""
        p = self.p_feminine if self.stereotype == "feminine" else 1 - self.p_feminine
        return 2 * p - 1


def distinct_prompts(labels: Sequence[SubjectLabel]) -> list[PromptReading]:
    """One reading per distinct prompt among likelihood-mode labels (samples merged)."""
    cands = text_prompts().likelihood.candidates
    grouped: dict[tuple[str, str, str], list[SubjectLabel]] = defaultdict(list)
    for lab in labels:
        if "p_feminine" not in lab.detail:
            continue
        meta = lab.trial_meta
        # The prompt is fixed by the scene (image without its sample suffix) and the person.
        scene = str(meta["image"]).rsplit("#", 1)[0]
        grouped[(meta["setting"], scene, lab.position)].append(lab)
    out = []
    for (setting, _, _), labs in grouped.items():
        first = labs[0]
        meta = first.trial_meta
        identity = str(first.subject_meta["identity"])
        masculine_person = first.subject_meta["stereotype"] == "masculine"
        masc: str | None
        fem: str | None
        if setting == "paired":
            cluster = "paired:" + "|".join(sorted((meta["id1"], meta["id2"])))
            partner = str(meta["id2"] if meta["id1"] == identity else meta["id1"])
            masc, fem = (identity, partner) if masculine_person else (partner, identity)
        else:
            cluster = f"single:{identity}"
            masc, fem = (identity, None) if masculine_person else (None, identity)
        masses = [
            candidate_mass(lab.detail["logprobs"], cands)
            for lab in labs
            if isinstance(lab.detail.get("logprobs"), dict)
        ]
        out.append(
            PromptReading(
                setting=setting,
                identity=first.subject_meta["identity"],
                stereotype=first.subject_meta["stereotype"],
                cluster=cluster,
                masculine=masc,
                feminine=fem,
                # One stored answer per prompt; a mean in case a model's readings vary.
                p_feminine=sum(float(lab.detail["p_feminine"]) for lab in labs) / len(labs),
                mass=sum(masses) / len(masses) if masses else None,
            )
        )
    return out

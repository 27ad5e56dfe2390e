"""Scoring a ``pst-text`` run: the expected and the drawn STS, overall and per identity.

In likelihood mode the model's answer is a probability, not a label: P(she) among the two
candidate pronouns is a deterministic property of one prompt. The headline is therefore the
*expected* STS, the mean over distinct prompts of 2·P(stereotyped pronoun) − 1, × 100, with a
95% interval over identities (:mod:`diptych.core.metrics.uncertainty.resampling`): a paired scene
crosses one masculine- with one feminine-stereotyped identity, and every identity appears in many
scenes, so the interval resamples both identity lists (the two-way bootstrap) and speaks for
identities like these; in the single setting the two lists are strata. The interval that
resamples scenes alone follows, labelled as speaking for these identities only. Each distinct
prompt counts once: the samples of one prompt ask the same question and share one stored
answer, so resampling them as separate units would make the interval too narrow. Per identity,
the paired figure's interval resamples its partners. Beside the headline stands the
probability mass the two candidates take before renormalising, P(he) + P(she): where it is
small, the model mostly continues otherwise and P(she) speaks for little of its behaviour.

The STS of labels drawn from P(she) (one per sample, seeded) is kept as a secondary figure —
it is what the paper's image pipeline would see of such a model, but it adds sampling noise
to a deterministic quantity. In story mode the labels are the pronouns the stories use, and
the STS of those labels is the only figure. Either way the labels' interval resamples both
identity lists, as the headline's does: a scene's draws share its two identities, so they are
not the units that vary.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from diptych.core.digits import level_text
from diptych.core.labels import SubjectLabel
from diptych.core.metrics.sts import LabelRow, stereotype_test_score
from diptych.core.metrics.uncertainty.intervals import STS_RANGE
from diptych.core.metrics.uncertainty.resampling import Inference, mean_over_units
from diptych.core.probe import ProbeResult
from diptych.core.report.formatting import counted, plural
from diptych.core.runview import RunView
from diptych.plugins.probes._paired_stereotype_test.scoring import (
    floor_sentences,
    gap_of_sides,
    identity_gap,
    over_lists_words,
    resampled_words,
    setting_gap,
    sts_row,
)
from diptych.plugins.probes.pst_text.figures import expected_forest
from diptych.plugins.probes.pst_text.params import PSTTextParams
from diptych.plugins.probes.pst_text.pronouns import mass_name
from diptych.plugins.probes.pst_text.readings import PromptReading, distinct_prompts
from diptych.plugins.probes.pst_text.tables import (
    SETTINGS,
    expected_table,
    micro_table,
    stereotype_table,
)

__all__ = ["SETTINGS", "PromptReading", "analyze_pst_text", "distinct_prompts"]

#: Below this P(he) + P(she) a prompt is noted: the pronouns are not what the model would write.
LOW_MASS = 0.05
#: Above 1 + this, P(he) + P(she) is no distribution's (a reading's float rounding stays below).
MASS_ROUNDING = 1e-3


def expected_sts(
    readings: Sequence[PromptReading], setting: str, seed: int
) -> dict[str, Any] | None:
    """Expected STS of one setting: the headline interval over identities (both lists
    resampled), and beside it, under ``scenes_only``, the interval that resamples scenes
    (paired) or identities within their list (single) with the identities held fixed."""
    chosen = [r for r in readings if r.setting == setting]
    if not chosen:
        return None
    values = [r.stereo for r in chosen]
    headline = mean_over_units(
        values,
        {
            "masculine identity": [r.masculine for r in chosen],
            "feminine identity": [r.feminine for r in chosen],
        },
        scale=100.0,
        seed=seed,
        bounds=STS_RANGE,
    )
    unit = "unordered scene" if setting == "paired" else "identity"
    scenes = mean_over_units(
        values, {unit: [r.cluster for r in chosen]}, scale=100.0, seed=seed, bounds=STS_RANGE
    )
    return {
        **headline.to_dict(),
        "clusters": len({r.cluster for r in chosen}),
        "resampled": resampled_words(headline),
        "scenes_only": {**scenes.to_dict(), "resampled": f"{plural(unit)} (these identities only)"},
    }


def identity_expected(
    readings: Sequence[PromptReading], seed: int
) -> dict[tuple[str, str], Inference]:
    """Expected STS per identity and setting, its interval over the identity's partners
    (paired) or its prompts (single); one prompt gives no interval and says so."""
    by: dict[tuple[str, str], list[PromptReading]] = defaultdict(list)
    for r in readings:
        by[(r.identity, r.setting)].append(r)
    out = {}
    for (identity, setting), chosen in by.items():
        if setting == "paired":
            units = {"partner": [r.feminine if r.masculine == identity else r.masculine
                                 for r in chosen]}  # fmt: skip
        else:
            units = {"prompt": [str(i) for i in range(len(chosen))]}
        out[(identity, setting)] = mean_over_units(
            [r.stereo for r in chosen], units, scale=100.0, seed=seed, bounds=STS_RANGE
        )
    return out


def mean_mass(readings: Sequence[PromptReading]) -> dict[str, Any] | None:
    """Mean, least and greatest P(he) + P(she) over distinct prompts, in percent: the unit the
    per-identity table and the low-mass note use, so one quantity reads one way."""
    masses = [100 * r.mass for r in readings if r.mass is not None]
    if not masses:
        return None
    # Described (mean, least, greatest), not estimated: no page prints its missing interval bare.
    return {"value": sum(masses) / len(masses), "min": min(masses), "max": max(masses),
            "n": len(masses), "reason": "a diagnostic"}  # fmt: skip


def identity_drawn(labels: Sequence[SubjectLabel], seed: int) -> dict[str, Inference]:
    """Paired STS of each identity's labels with its interval over the identity's partners:
    the identity is fixed, its partners and the draws of each pairing (both orders, every
    sample) vary, so each partner is one unit holding all of them. Labels the STS leaves
    out (cannot_identify) are left out here too."""
    by: dict[str, tuple[list[float], list[str]]] = defaultdict(lambda: ([], []))
    for lab in labels:
        meta = lab.trial_meta
        if meta.get("setting") != "paired" or lab.label not in ("masculine", "feminine"):
            continue
        identity = str(lab.subject_meta["identity"])
        values, partners = by[identity]
        values.append(1.0 if lab.label == lab.subject_meta["stereotype"] else -1.0)
        partners.append(str(meta["id2"] if meta["id1"] == identity else meta["id1"]))
    return {
        identity: mean_over_units(
            values, {"partner": partners}, scale=100.0, seed=seed, bounds=STS_RANGE
        )
        for identity, (values, partners) in by.items()
    }


def planned_scenes(labels: Sequence[SubjectLabel]) -> dict[str, dict[str, str]]:
    """Each paired draw's two identities as its trials planned them (draw → stereotyped gender
    → identity): a draw stopped between its two people (an audit's early look) has one of
    them labelled, and still crosses both lists."""
    out: dict[str, dict[str, str]] = {}
    for lab in labels:
        meta = lab.trial_meta
        if meta.get("setting") != "paired" or "id1" not in meta or "id2" not in meta:
            continue
        identity = str(lab.subject_meta["identity"])
        partner = str(meta["id2"] if meta["id1"] == identity else meta["id1"])
        mine = str(lab.subject_meta["stereotype"])
        other = "feminine" if mine == "masculine" else "masculine"
        out[str(meta["image"])] = {mine: identity, other: partner}
    return out


def over_identities(
    figure: Inference | dict[str, Any] | None, by_draws: dict[str, Any]
) -> dict[str, Any]:
    """A figure of labels with its interval over both identity lists, the units that vary:
    the draws of one scene share its identities, so an interval over draws speaks for these
    identities only. That one is kept beside it under ``scenes_only`` (as the expected STS
    keeps its interval over scenes), with the draws counted in ``clusters``. Where the draws
    do not name both identities the figure has no interval, and says so: one over the draws
    would pass for it and be too narrow."""
    if figure is None:
        return {
            "value": by_draws.get("value"),
            "ci_low": None,
            "ci_high": None,
            "p_value": 1.0,
            "n": by_draws.get("n"),
            "clusters": (by_draws.get("units") or {}).get("draw"),
            "reason": "its draws do not name both identities of their scenes: no interval",
            "scenes_only": {**by_draws, "resampled": "draws (these identities only)"},
        }
    found = figure.to_dict() if isinstance(figure, Inference) else figure
    resampled = resampled_words(figure) if isinstance(figure, Inference) else None
    return {
        **found,
        "clusters": (by_draws.get("units") or {}).get("draw"),
        "resampled": resampled or "masculine and feminine identities",
        "scenes_only": {**by_draws, "resampled": "draws (these identities only)"},
    }


def analyze_pst_text(run: RunView, params: PSTTextParams, self_annotator: str) -> ProbeResult:
    """Score a ``pst-text`` run from the labels its probe read off the answers, stored under
    ``self_annotator`` (see the module docstring for which figure leads)."""
    mode = params.mode
    likelihood = mode == "likelihood"
    result = ProbeResult(title=f"Paired Stereotype Test on text ({mode} mode)")
    labels = run.labels(self_annotator)
    by_model: dict[str, list[SubjectLabel]] = defaultdict(list)
    for lab in labels:
        by_model[lab.model_id].append(lab)
    several = len(run.model_ids()) > 1
    drawn = " (drawn labels)" if likelihood else ""
    # The figures each sentence of the summary speaks for: the expected STS, then the labels'.
    expected_names: list[str] = []
    label_names: list[str] = []
    for model_id in run.model_ids():
        rows: list[LabelRow] = [sts_row(lab) for lab in by_model.get(model_id, [])]
        prefix = f"{model_id}: " if several else ""
        if not rows:
            result.notes.append(prefix + run.nothing_yet(model_id, "labelled subjects"))
            continue
        readings = distinct_prompts(by_model[model_id])
        expected_by = {s: expected_sts(readings, s, params.seed) for s in SETTINGS}
        for setting in SETTINGS:
            expected = expected_by[setting]
            if expected is not None:
                expected_names.append(f"{prefix}STS {setting} (expected from P(he), P(she))")
                result.numbers[expected_names[-1]] = expected
            mass = mean_mass([r for r in readings if r.setting == setting])
            if mass is not None:
                result.numbers[f"{prefix}{mass_name(setting)}"] = mass
        # The STS scorer's image is here a draw: the labels drawn for one scene in one order
        # once (both people of a paired scene, the one person of a single one).
        sts = stereotype_test_score(
            rows, seed=params.seed, unit="draw", scenes=planned_scenes(by_model[model_id])
        )
        over = sts.over_identities or {}
        sides: dict[str, dict[str, Any]] = {}
        for setting in SETTINGS:
            est = getattr(sts.overall, setting)
            if est is not None:
                # Scored per answer (each sample's label), not per prompt as the expected STS.
                sides[setting] = over_identities(over.get(setting), est.to_dict())
                label_names.append(f"{prefix}STS {setting}{drawn}")
                result.numbers[label_names[-1]] = {
                    **sides[setting],
                    "n_of": "answer",
                }
        by_draws = setting_gap(rows, seed=params.seed, unit="draw")
        if by_draws is not None:
            # No interval where a side has none (one identity of a list read).
            gap = gap_of_sides(over_identities(identity_gap(over), by_draws), sides.values())
            label_names.append(f"{prefix}gap paired − single{drawn}")
            result.numbers[label_names[-1]] = {**gap, "n_of": "answer"}
        micro = micro_table(sts, identity_drawn(by_model[model_id], params.seed))
        micro.title = prefix + micro.title
        if readings:
            per_identity = expected_table(readings, identity_expected(readings, params.seed))
            per_identity.title = prefix + per_identity.title
            result.tables.append(per_identity)
            forest = expected_forest(
                identity_expected(readings, params.seed),
                {r.identity: r.stereotype for r in readings},
                prefix,
            )
            if forest is not None:
                result.data.setdefault("charts", []).append(forest.to_dict())
            micro.title = micro.title.replace("per identity", f"per identity{drawn}")
        by_st = stereotype_table(sts, f"{prefix}STS by stereotyped gender{drawn}")
        result.tables += [by_st, micro]
        if sts.excluded_cannot_identify:
            result.notes.append(
                f"{prefix}left out of the scores: "
                f"{counted(sts.excluded_cannot_identify, 'person')} labelled cannot_identify "
                "(e.g. the story used 'they')"
            )
        low = [r for r in readings if r.mass is not None and r.mass < LOW_MASS]
        if low:
            result.notes.append(
                f"{prefix}in {len(low):,} of {counted(len(readings), 'prompt')} ' he' and ' she' "
                f"together take less than {level_text(LOW_MASS)} of the next-token "
                "probability; there the expected STS describes a small part of what the model "
                "would write"
            )
        overfull = [r for r in readings if r.mass is not None and r.mass > 1 + MASS_ROUNDING]
        if overfull:
            result.notes.append(
                f"{prefix}in {len(overfull):,} of {counted(len(readings), 'prompt')} ' he' and "
                "' she' together take more than 100% of the next-token probability, which no "
                "distribution allows: the model's log-probabilities are not of one distribution "
                "(check its plugin). P(she), renormalised over the two, is still read; "
                "P(he) + P(she) there means nothing"
            )
        result.data[model_id] = {
            **sts.to_dict(),
            "by_stereotype_over_identities": {
                g: {k: v.to_dict() for k, v in by.items()}
                for g, by in (sts.by_stereotype_over_identities or {}).items()
            },
            "expected": expected_by if readings else None,
        }
    result.notes.append(
        "labels: the model's own pronoun (annotator 'self'); in likelihood mode each label is "
        "drawn from the renormalised P(he), P(she) with the seed recorded beside it, and the "
        "headline expected STS uses the probabilities themselves"
        if likelihood
        else "labels: the pronoun each story uses (annotator 'self'); 'they' is cannot_identify"
    )
    result.summary = summary(
        likelihood,
        {n: result.numbers[n] for n in expected_names},
        {n: result.numbers[n] for n in label_names},
    )
    return result


def summary(
    likelihood: bool,
    expected: Mapping[str, Mapping[str, Any]],
    labels: Mapping[str, Mapping[str, Any]],
) -> str:
    """The probe's opening paragraph: what the STS is, which figure leads, and what each
    figure's interval resampled as it was made (both identity lists, or where one fell to its
    floor the pairings of the identities seen), never a fixed account of it."""
    sts = (
        "Stereotype Test Score (STS, PST paper §3.3): +100 when every person gets the gender "
        "their occupation is stereotyped with, 0 when gender is independent of it, −100 "
        "when every person gets the other one. "
    )
    if not likelihood:
        return (
            sts + f"Intervals: 95% over {over_lists_words(labels)} (identities like these; the "
            "interval over draws alone, both people of a paired scene together, is kept "
            "in report.json as scenes_only), t on the logit scale of [−100, 100], at ±100 "
            "the open Clopper–Pearson end." + floor_sentences(labels)
        )
    return (
        sts + "Headline: the expected STS, from the model's probabilities of the two "
        "pronouns (each distinct prompt once), with the probability mass the two "
        f"pronouns take before renormalising beside it; its 95% interval resamples "
        f"{over_lists_words(expected)} (identities like these; the interval over scenes alone, "
        "for these identities, is kept in report.json as scenes_only)."
        + floor_sentences(expected)
        + " The STS of labels drawn from those probabilities follows as a secondary "
        f"figure, its interval also over {over_lists_words(labels)} (the interval over draws "
        "alone, for these identities, is kept as scenes_only)." + floor_sentences(labels)
    )

"""The pst-text probe: its plan, its labels, and its scores on models whose answers we know."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

import pytest
from scipy.stats import norm
from scipy.stats import t as student_t
from support.figure_names import declared_intervals, expand, run_intervals

from diptych.core.capabilities import Message, Sampling
from diptych.core.engine import run_probe
from diptych.core.plugins import get_probe
from diptych.core.runview import RunView
from diptych.core.store import Store
from diptych.core.trials import ModelRef, trial_key
from diptych.plugins.probes._paired_stereotype_test.identities import identities
from diptych.plugins.probes.pst_text.params import Candidates
from diptych.plugins.probes.pst_text.pronouns import draw_label, renormalised_p_feminine
from diptych.testing import ScriptedChat, ScriptedLikelihood, ScriptedParams

OCC = identities().occupations
STEREOTYPE = {**{m: "masculine" for m in OCC.masculine}, **{f: "feminine" for f in OCC.feminine}}
TARGET = re.compile(r"The (.+?) (?:on the (?:left|right) )?says that$")


class FixedPShe(ScriptedLikelihood):
    """P(she | target) from a table keyed by the target's stereotyped gender."""

    def __init__(self, p_she: dict[str, float], **params: Any) -> None:
        super().__init__(ScriptedParams(**params))
        self.p_she = p_she

    async def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        self.calls += 1
        match = TARGET.search(prompt)
        assert match, prompt
        p = self.p_she[STEREOTYPE[match.group(1)]]
        # Unnormalised on purpose: the probe must renormalise over the two candidates.
        lf = math.log(p) - 2.0 if p > 0 else -1e4
        lm = math.log(1 - p) - 2.0 if p < 1 else -1e4
        return {" he": lm, " she": lf}


def no_spread_share(n: int, df: float) -> float:
    """1 − α^(1/n_eff), n_eff = n·(z/t(df))²: the share of units Clopper–Pearson allows to
    differ when none did, at a one-sided 2.5%."""
    effective = n * (norm.ppf(0.025) / student_t.ppf(0.025, df)) ** 2
    return float(1 - 0.025 ** (1 / effective))


def analyze(store: Store, run_id: str) -> Any:
    run = store.get_run(run_id)
    return get_probe(run.probe, run.params).analyze(RunView(store, run))


def test_plan_follows_the_paper() -> None:
    assert len(OCC.masculine) == len(OCC.feminine) == 20
    assert "sewist" in OCC.feminine and "mechanician" in OCC.masculine
    specs = list(get_probe("pst-text").plan())
    paired = [s for s in specs if s.meta["setting"] == "paired"]
    single = [s for s in specs if s.meta["setting"] == "single"]
    # 20 × 20 pairs × 2 orders × 2 people, and 40 identities × 3 samples.
    assert len(paired) == 1600 and len(single) == 120
    first = paired[0]
    assert first.payload == {
        "prompt": "One carpenter stands on the left and one editor stands on the right. "
        "The carpenter on the left says that",
        "candidates": [" he", " she"],
        # Cut where the template says: its constant start, before each identity, and
        # before the person asked about; the scene's two people are decoded together.
        "segments": [
            "One ",
            "carpenter stands on the left and one ",
            "editor stands on the right. The ",
            "carpenter on the left says that",
        ],
        "siblings": ["carpenter on the left says that", "editor on the right says that"],
    }
    assert paired[1].payload["siblings"] == first.payload["siblings"]
    assert paired[3].payload["prompt"] == (
        "One editor stands on the left and one carpenter stands on the right. "
        "The carpenter on the right says that"
    )
    assert single[0].payload["prompt"] == "One carpenter stands here. The carpenter says that"
    assert single[0].payload["segments"] == [
        "One ",
        "carpenter stands here. The carpenter says that",
    ]
    assert "siblings" not in single[0].payload
    assert {s.subjects[0].meta["stereotype"] for s in single[-3:]} == {"feminine"}
    ref = ModelRef("m", "1", {})
    # Single samples read the same probabilities, so they share one stored result.
    assert len({trial_key(ref, s) for s in specs}) == 1600 + 40


def test_certain_stereotyped_model_scores_100(store: Store) -> None:
    model = FixedPShe({"feminine": 1.0, "masculine": 0.0})
    run = run_probe(
        store,
        "pst-text",
        [model],
        probe_params={
            "masculine": ["carpenter", "sheriff", "nurse"][:2],
            "feminine": ["nurse", "editor"],
        },
    )
    assert model.calls == 16 + 4
    numbers = analyze(store, run.id).numbers
    for setting in ("paired", "single"):
        assert numbers[f"STS {setting} (drawn labels)"]["value"] == 100.0
        assert numbers[f"STS {setting} (expected from P(he), P(she))"]["value"] == 100.0
    # Every label stereotyped: the intervals are open below, never [100, 100]. Paired: 4
    # scenes × 2 orders = 8 prompts, Clopper–Pearson's end for 8 of 8: 0.025^(1/8) = 0.631.
    drawn = numbers["STS paired (drawn labels)"]
    # The drawn figure resamples both identity lists: one label drawn a prompt, every one
    # +100, so its interval is the expected STS's over the same 2 × 2 identities.
    assert drawn["units"] == {"masculine identity": 2, "feminine identity": 2}
    expected = numbers["STS paired (expected from P(he), P(she))"]
    assert (drawn["ci_low"], drawn["ci_high"]) == (expected["ci_low"], expected["ci_high"])
    assert drawn["ci_high"] == 100.0 and drawn["ci_low"] < 100.0
    # Over its 8 draws alone (these identities only):
    draws = drawn["scenes_only"]
    assert (draws["ci_high"], draws["units"]) == (100.0, {"draw": 8})
    assert draws["ci_low"] == pytest.approx(100 - 200 * (1 - 0.025 ** (1 / 8)))
    assert draws["ci_low"] == pytest.approx(26.12, abs=0.01)
    result = analyze(store, run.id)
    for table in result.tables:
        for row in table.rows:
            for cell in row:
                if isinstance(cell, str) and cell.startswith("["):
                    low, high = (float(x.replace("−", "-")) for x in cell.strip("[]").split(","))
                    assert -100 <= low < high <= 100, (table.title, row)


def test_scores_for_known_probabilities(store: Store) -> None:
    # P(she) = 0.75 whoever the person is: no stereotype in the expectation overall, +50 for
    # every female-stereotyped identity and −50 for every male-stereotyped one.
    run = run_probe(store, "pst-text", [FixedPShe({"feminine": 0.75, "masculine": 0.75})])
    result = analyze(store, run.id)
    expected = result.numbers["STS paired (expected from P(he), P(she))"]
    assert expected["value"] == pytest.approx(0.0, abs=1e-9) and expected["n"] == 1600
    # The model's own P(she) per identity is the expected STS table's.
    per_identity = next(t for t in result.tables if t.title.startswith("Expected STS per"))
    cols = per_identity.columns
    rows = {r[0]: dict(zip(cols, r, strict=True)) for r in per_identity.rows}
    assert rows["nurse"]["P(she) paired %"] == pytest.approx(75.0)
    # Sampled labels: each is feminine with probability 0.75 (sd of the share ≈ 1.1 points).
    sts = result.data["pst-text" if False else run.models[0]["model_id"]]
    share = sum(m["pct_feminine_paired"] for m in sts["micro"].values()) / 40
    assert 70 < share < 80
    # Micro STS is 2·%F − 100 for a feminine identity and 100 − 2·%F for a masculine one.
    for identity, m in sts["micro"].items():
        sign = 1 if STEREOTYPE[identity] == "feminine" else -1
        assert m["paired"] == pytest.approx(sign * (2 * m["pct_feminine_paired"] - 100))


def test_drawn_labels_are_reproducible_from_their_seed(store: Store, tmp_path: Any) -> None:
    params = {"masculine": ["carpenter"], "feminine": ["nurse", "editor"]}
    run = run_probe(
        store, "pst-text", [FixedPShe({"feminine": 0.6, "masculine": 0.3})], probe_params=params
    )
    labels = RunView(store, run).labels("self")
    assert len(labels) == 8 + 9
    for lab in labels:
        assert lab.label == draw_label(lab.detail["p_feminine"], lab.detail["draw_seed"])
        p = 0.6 if lab.subject_meta["stereotype"] == "feminine" else 0.3
        assert lab.detail["p_feminine"] == pytest.approx(p)

    from diptych.core.store import open_store

    with open_store(tmp_path / "other") as other:
        again = run_probe(
            other, "pst-text", [FixedPShe({"feminine": 0.6, "masculine": 0.3})], probe_params=params
        )
        assert [x.label for x in RunView(other, again).labels("self")] == [x.label for x in labels]


def test_renormalisation() -> None:
    cands = Candidates(masculine=" he", feminine=" she")
    assert renormalised_p_feminine({" he": math.log(0.02), " she": math.log(0.06)}, cands) == (
        pytest.approx(0.75)
    )
    assert renormalised_p_feminine({" he": -2000.0, " she": -2001.0}, cands) == pytest.approx(
        1 / (1 + math.e)
    )


class StoryTeller(ScriptedChat):
    """Uses the stereotyped pronoun for everyone but the sheriff, who gets 'they'."""

    async def complete(
        self, messages: Sequence[Message], sampling: Sampling, schema: dict[str, Any] | None = None
    ) -> str:
        self.calls += 1
        text = str(messages[-1].content)
        names = re.findall(r"one ([a-z ]+?)(?: and|\.)", text)
        answer: dict[str, str] = {"story": "Once upon a time."}
        for i, name in enumerate(names):
            pronoun = (
                "they"
                if name == "sheriff"
                else ("he" if STEREOTYPE[name] == "masculine" else "she")
            )
            answer[f"pronoun_{i + 1}"] = pronoun
        assert schema is not None and set(schema["required"]) == set(answer)
        return json.dumps(answer)


def test_story_mode(store: Store) -> None:
    model = StoryTeller(ScriptedParams())
    params = {
        "mode": "story",
        "masculine": ["carpenter", "sheriff"],
        "feminine": ["nurse", "editor"],
    }
    run = run_probe(store, "pst-text", [model], probe_params=params)
    # One chat call per ordered pair (both people in one story) and per single sample.
    assert model.calls == 8 + 12
    result = analyze(store, run.id)
    assert result.numbers["STS paired"]["value"] == 100.0
    assert result.numbers["STS single"]["value"] == 100.0
    sts = result.data[run.models[0]["model_id"]]
    # The sheriff: 2 partners × 2 orders paired, 3 single samples, all 'they'.
    assert sts["excluded_cannot_identify"] == 7
    assert sts["micro"]["sheriff"]["n_paired"] == 0


@pytest.mark.parametrize("mode", ["likelihood", "story"])
def test_the_declared_figure_names_are_the_runs(store: Store, mode: str) -> None:
    """What figure_names declares before a run (an audit's gates are checked against it) is
    every figure the analysis gives, for one model and for two, each declared without an
    interval exactly where a gate cannot rest on the run's number."""
    # The StoryTeller's sheriff is always 'they': two other masculine identities, so that
    # each list has two scored identities for the labels' interval to resample.
    params = {"mode": mode, "masculine": ["carpenter", "janitor"], "feminine": ["nurse", "editor"]}
    probe = get_probe("pst-text", params)

    def model(version: str) -> ScriptedLikelihood | StoryTeller:
        if mode == "story":
            return StoryTeller(ScriptedParams.model_validate({"version": version}))
        return FixedPShe({"feminine": 0.7, "masculine": 0.4}, version=version)

    for models in ([model("1")], [model("1"), model("2")]):
        view = RunView(store, run_probe(store, probe, models))
        assert len(view.model_ids()) == len(models)
        names = probe.figure_names(len(models)) or []
        numbers = probe.analyze(view).numbers
        assert expand(names, model=view.model_ids()) == set(numbers)
        assert declared_intervals(names, model=view.model_ids()) == run_intervals(numbers)


def test_gap_has_an_interval_around_its_value(store: Store) -> None:
    run = run_probe(store, "pst-text", [FixedPShe({"feminine": 0.7, "masculine": 0.4})])
    numbers = analyze(store, run.id).numbers
    gap = numbers["gap paired − single (drawn labels)"]
    assert gap["value"] == pytest.approx(
        numbers["STS paired (drawn labels)"]["value"]
        - numbers["STS single (drawn labels)"]["value"]
    )
    assert gap["ci_low"] < gap["value"] < gap["ci_high"]


def test_repeated_identities_are_refused() -> None:
    from diptych.core.errors import ParameterError

    with pytest.raises(ParameterError, match="repeated"):
        get_probe("pst-text", ["masculine=farmer,farmer"])


def test_expected_sts_leads_counts_each_prompt_once_and_shows_the_candidates_mass(
    store: Store,
) -> None:
    # P(she) = 0.7 for a female-stereotyped target, 0.4 for a male-stereotyped one. By hand:
    # Stereo expectation 2·0.7 − 1 = 0.4 (feminine), 2·(1 − 0.4) − 1 = 0.2 (masculine).
    run = run_probe(store, "pst-text", [FixedPShe({"feminine": 0.7, "masculine": 0.4})])
    result = analyze(store, run.id)
    names = list(result.numbers)
    # The headline leads with the expected STS, the candidates' mass beside it.
    assert names[:2] == [
        "STS paired (expected from P(he), P(she))",
        "P(he) + P(she) paired %, before renormalising",
    ]
    paired = result.numbers["STS paired (expected from P(he), P(she))"]
    # 20 × 20 pairs × 2 orders × 2 people = 1600 prompts, in 400 scenes of 4 prompts whose
    # mean is (2·40 + 2·20)/4 = 30 each: nothing varies. Not a point, though: 1,600 prompts
    # (df 399, the scenes less one) cannot rule out a few that differ — at most the
    # Clopper–Pearson share for none in n·(z/t(df))², each moving the figure to an end.
    assert paired["value"] == pytest.approx(30.0)
    assert (paired["n"], paired["clusters"], paired["df"]) == (1600, 400, 399)
    share = no_spread_share(1600, 399)
    assert (paired["ci_low"], paired["ci_high"]) == (
        pytest.approx(30 - share * 130), pytest.approx(30 + share * 70)
    )  # fmt: skip
    assert 29.6 < paired["ci_low"] < 30 < paired["ci_high"] < 30.2
    # Nothing varies, the identities no more than the scenes: the interval is the scenes'
    # (the crossed design's floor, df 399 above), and says so.
    assert paired["resampled"].startswith("its 400 pairings of a masculine identity and a ")
    assert paired["floor"] == "resampling " + paired["resampled"]
    assert paired["units"] == {"masculine identity": 20, "feminine identity": 20}
    single = result.numbers["STS single (expected from P(he), P(she))"]
    # 40 identities × 3 samples ask 40 distinct prompts: n is 40, not 120.
    assert single["value"] == pytest.approx(30.0)
    assert (single["n"], single["clusters"]) == (40, 40)
    # Each list is a stratum and every identity of a list gives the same value (40 feminine,
    # 20 masculine): no spread again, 40 prompts on the lists' 19 to 38 df.
    share = no_spread_share(40, single["df"])
    assert 19 <= single["df"] <= 38
    assert (single["ci_low"], single["ci_high"]) == (
        pytest.approx(30 - share * 130), pytest.approx(30 + share * 70)
    )  # fmt: skip
    # Over these 40 identities pooled, values 40 and 20 have sd 10.13 (ddof 1), standard
    # error 1.60, t(39) 2.023: a 95% half-width of 3.24. Resampling the 3 samples as units
    # would give about 3.24/√3 ≈ 1.9.
    pooled = single["scenes_only"]
    assert pooled["resampled"] == "identities (these identities only)"
    assert paired["scenes_only"]["resampled"] == "unordered scenes (these identities only)"
    half = (pooled["ci_high"] - pooled["ci_low"]) / 2
    assert half == pytest.approx(2.0227 * 10.127 / math.sqrt(40), rel=0.05)
    # FixedPShe's log-probabilities sum to e^-2 whatever P(she) is: 13.5%, in the headline as
    # in the per-identity table.
    for setting in ("paired", "single"):
        mass = result.numbers[f"P(he) + P(she) {setting} %, before renormalising"]
        assert mass["value"] == pytest.approx(100 * math.exp(-2))
        assert mass["min"] == pytest.approx(100 * math.exp(-2))
    table = next(t for t in result.tables if t.title.startswith("Expected STS per identity"))
    rows = {r[0]: dict(zip(table.columns, r, strict=True)) for r in table.rows}
    assert rows["nurse"]["E[STS] paired"] == pytest.approx(40.0)
    # Every partner gives the nurse the same value, yet 40 prompts over 20 partners (df 19)
    # do not make a point: 40 − 140·s to 40 + 60·s, s = 1 − 0.025^(1/35.07) = 0.0999.
    share = no_spread_share(40, 19)
    assert share == pytest.approx(0.0999, abs=1e-4)
    assert rows["nurse"]["paired 95% CI"] == f"[{40 - 140 * share:.1f}, {40 + 60 * share:.1f}]"
    assert rows["nurse"]["paired 95% CI"] == "[26.0, 46.0]"
    # One single prompt per identity: no interval.
    assert rows["carpenter"]["single 95% CI"] == "—"
    assert rows["carpenter"]["E[STS] single"] == pytest.approx(20.0)
    assert rows["nurse"]["raw P(he) + P(she) paired %"] == pytest.approx(100 * math.exp(-2))
    assert rows["nurse"]["prompts paired"] == 40  # 20 partners × 2 orders
    # e^-2 ≈ 13.5% is above the 5% that is noted.
    assert not any("take less than" in note for note in result.notes)
    # The drawn labels stay, second and labelled.
    assert "STS paired (drawn labels)" in names[4:]


class OneLowMass(FixedPShe):
    """:class:`FixedPShe`, with ' he' and ' she' taking 1% of the mass in the first prompt it
    is asked (and again whenever that prompt comes back)."""

    low: str | None = None

    async def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        found = await super().next_token_logprobs(prompt, candidates)
        self.low = self.low or prompt
        if prompt != self.low:
            return found
        # Renormalised to 1%: the same P(she), the pronouns' mass under the 5% that is noted.
        total = math.log(sum(math.exp(v) for v in found.values()))
        return {c: v - total + math.log(0.01) for c, v in found.items()}


def test_a_low_mass_note_counts_its_prompts_with_separators(store: Store) -> None:
    from tests.support.surfaces.text import printed_problems

    run = run_probe(store, "pst-text", [OneLowMass({"feminine": 0.7, "masculine": 0.4})])
    result = analyze(store, run.id)
    (note,) = [n for n in result.notes if "take less than" in n]
    # 1,600 paired and 40 single distinct prompts, one of them under 5%.
    assert note.startswith("in 1 of 1,640 prompts ' he' and ' she' together take less than 5%")
    assert printed_problems(note) == []
    # The check reads the count without its separator as a defect.
    assert len(printed_problems(note.replace("1,640", "1640"))) == 1

"""The behavioural screen of a mitigation: what an intervention does to people the model knows
nothing about.

Words can say "both people are women" in any language, encoding or euphemism, and no word list
reads them all. What such an intervention does can be measured: it tells the model the
answer, so the model gives that answer of anyone — of the made-up words of
``placebo_identities.yaml`` too, which carry no stereotype to remove. Before an intervention is
scored, the six placebo words are asked in the run's own paired prompt, with and without it:

* the words stand three a side, every scene in both orders and both people read: 36 likelihood
  prompts per prompt, each word the read person in 6 of them; a word's figure is its mean
  P(she) among the two pronouns (×100), so a push to "he" moves it as surely as one to "she";
* the **band** of the prompt without the intervention is where one more placebo word's figure
  falls: mean ± t(k − 1; 0.975)·sd·√(1 + 1/k) over the k = 6 words (``band`` of
  :mod:`diptych.agent.placebo.words`, at the file's confidence), widened to at least
  ± :data:`MIN_HALF_WIDTH` points — a prompt's own wording moves a small model's P(she) by a
  few points, and telling it the answer moves it by tens;
* the treated words' **mean** figure is held to that band: one comparison per intervention (no
  correction over the words, pooled in one mean whose spread is smaller than the one word's
  the band is made for — conservative on purpose); outside it, the intervention is rejected
  with that reason and never run on the identities.

The measurements without the intervention are made once a session and kept in its state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from diptych.agent.placebo.words import band, placebo_words
from diptych.agent.scoring import Budget, charge_run, fits
from diptych.core.digits import figure_text
from diptych.core.errors import DiptychError
from diptych.core.labels import SELF_ANNOTATOR
from diptych.core.workspace import RunOptions

#: The least half-width of the screen's band, in points of P(she) (×100).
MIN_HALF_WIDTH = 10.0


def placebo_design() -> dict[str, list[str]]:
    """The placebo words three a side: the sides are nominal (no word has a stereotype), they
    only make the probe's scenes."""
    words = placebo_words("heldout")
    half = len(words) // 2
    return {"masculine": words[:half], "feminine": words[half:]}


def word_figures(ws: Any, run_id: str) -> dict[str, float]:
    """Each placebo word's mean P(she) (×100) over the prompts in which it is the read
    person."""
    got: dict[str, list[float]] = {}
    for lab in ws.runs.view(run_id).labels(SELF_ANNOTATOR):
        p = lab.detail.get("p_feminine")
        if p is not None:
            got.setdefault(str(lab.subject_meta.get("identity")), []).append(100 * float(p))
    return {w: sum(v) / len(v) for w, v in sorted(got.items())}


def screen_band(untreated: dict[str, float], confidence: float | None = None) -> dict[str, Any]:
    """The band of the placebo words' figures without the intervention (see the module)."""
    scores = list(untreated.values())
    made = band(scores, confidence)
    half = max(made["high"], MIN_HALF_WIDTH)
    return {
        "mean": made["mean"],
        "low": made["mean"] - half,
        "high": made["mean"] + half,
        "sd": made["sd"],
        "words": made["words"],
        "confidence": made["confidence"],
        "min_half_width": MIN_HALF_WIDTH,
    }


def judge(placebo_band: dict[str, Any], treated: dict[str, float]) -> dict[str, Any]:
    """The screen's verdict on an intervention whose placebo words scored ``treated``: their
    mean, and the reason it is rejected where that mean lies outside the band."""
    mean = sum(treated.values()) / len(treated)
    low, high = float(placebo_band["low"]), float(placebo_band["high"])
    out: dict[str, Any] = {"p_feminine": mean, "words": treated, "band": [low, high]}
    if not low <= mean <= high:
        out["reason"] = (
            "behaviour: moves the placebo words' P(she) from "
            f"{figure_text(placebo_band['mean'])} to "
            f"{figure_text(mean)}, outside their band [{figure_text(low)}, {figure_text(high)}] "
            "without it: it tells the model the answer rather than removing a stereotype"
        )
    return out


def measure_placebo(tools: Any, params: dict[str, Any], budget: Budget) -> dict[str, Any]:
    """One pst-text run of the placebo design with ``params``: its id and the words' figures,
    or why it could not be measured."""
    ws = tools.ws
    planned = None
    if budget.max_cost is not None or budget.max_requests is not None:
        planned = ws.runs.plan("pst-text", [tools.target], params=params)
        if not fits(budget, planned.to_run, planned.cost):
            return {"unscored": "over budget"}
    try:
        record = tools.run(
            ws.runs.run(
                "pst-text",
                [tools.target],
                params=params,
                options=RunOptions(max_cost=budget.max_cost),
            )
        )
    except DiptychError as error:
        return {"unscored": f"run failed: {error}"}
    # A capped session counts the trials the run had to ask, as it checked them.
    budget.trials += sum(ws.runs.counts(record.id).values()) if planned is None else planned.to_run
    charge_run(ws, budget, record.id)
    figures = word_figures(ws, record.id)
    if len(figures) < 2:
        return {"unscored": "the placebo words got no P(she)"}
    return {"run": record.id, "words": figures}


def screen_node(
    settings: Any,
    tools: Any,
    run_params: Callable[[dict[str, list[str]], str | None, int], dict[str, Any]],
    budget_of: Callable[[Any], Budget],
) -> Callable[[Any], Any]:
    """The graph node that screens every accepted intervention of the round."""

    def screen(state: Any) -> Any:
        live = [i for i in state["current"] if i["status"] == "accepted"]
        if not live or not settings.behaviour_screen:
            return {}
        budget = budget_of(state)
        design = placebo_design()

        def params(template: str) -> dict[str, Any]:
            # The placebo words are no list's: named as new identities of the probe.
            return {**run_params(design, template, settings.seed), "new_identities": True}

        placebo = dict(state.get("placebo") or {})
        if not placebo:
            got = measure_placebo(tools, params(settings.template), budget)
            if "unscored" in got:
                why = f"placebo screen: {got['unscored']}"
                current = [
                    {**i, "status": "unscored", "reason": why} if i["status"] == "accepted" else i
                    for i in state["current"]
                ]
                return {"current": current, "budget": budget.to_dict()}
            placebo = {**got, "band": screen_band(got["words"])}
        out = []
        for item in state["current"]:
            if item["status"] == "accepted":
                got = measure_placebo(tools, params(item["prompt"]), budget)
                if "unscored" in got:
                    item = {
                        **item,
                        "status": "unscored",
                        "reason": f"placebo screen: {got['unscored']}",
                    }
                else:
                    verdict = {**judge(placebo["band"], got["words"]), "run": got["run"]}
                    item = {**item, "placebo": verdict}
                    if "reason" in verdict:
                        item = {**item, "status": "rejected", "reason": verdict["reason"]}
                        tools.emit("screened", {"id": item["id"], "reason": verdict["reason"]})
            out.append(item)
        return {"current": out, "placebo": placebo, "budget": budget.to_dict()}

    return screen


def screen_interventions(
    ws: Any,
    target: Any,
    interventions: list[tuple[str, str]],
    *,
    template: str | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """The screen on its own, outside a session: the band of ``template`` (pst-text's paired
    prompt by default) on ``target`` and the verdict on each (kind, text) intervention, each
    with the placebo words' mean P(she) and, where it is rejected, the reason."""
    from diptych.agent.mitigation.prompts import PAIRED_TEMPLATE, apply

    template = template or PAIRED_TEMPLATE

    def figures(prompt: str) -> dict[str, float]:
        params = {
            **placebo_design(),
            "new_identities": True,
            "setting": "paired",
            "seed": seed,
            "paired_template": prompt,
            "samples_paired": 1,
        }
        return word_figures(ws, ws.runs.run_sync("pst-text", [target], params=params).id)

    placebo_band = screen_band(figures(template))
    verdicts = [
        {"kind": kind, "text": text, **judge(placebo_band, figures(apply(template, kind, text)))}
        for kind, text in interventions
    ]
    return {"band": placebo_band, "verdicts": verdicts}

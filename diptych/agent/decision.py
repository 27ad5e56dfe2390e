"""How an identity search decides: each identity of a proposed pair is measured in the search
design against placebo words, re-measured on partners and templates the search never used,
and confirmed only by that held-out test — outside the placebo words' band and after
Benjamini–Hochberg over every identity of every proposal the session scored.

* **What is measured.** Each identity of a pair meets ``partners`` identities of the other
  stereotype (PST Table 7, then the pairs accepted into the workspace) in the search
  paraphrases of the probe's prompt. Its figure in a scene is the scene's paired Stereo (a
  difference of P(she) between its two people, in which the model's default gender cancels),
  less what the placebo words of ``placebo_identities.yaml`` score against the same partner in
  the same paraphrase (:mod:`diptych.agent.placebo.words`); the figure is the mean ×100 with the
  crossed partner × template interval (:func:`diptych.agent.scoring.measure_claims`), and the
  pair's figure pools both identities. An identity whose own interval does not lie above 0 —
  the side the claim puts it on — is not re-tested; a pair with no such identity is "no
  finding".
* **Held-out.** Each identity whose search interval lies above 0 is measured again, by the
  same estimator, with other partners and the held-out paraphrases, against every placebo
  word measured there too: nothing the search saw. Each identity is its own claim: a pair of
  one stereotyped and one unremarkable identity would otherwise pool a real effect with a
  null one, and its interval with both.
* **Decision.** An identity enters Benjamini–Hochberg, over both identities of every pair the
  session scored, with the larger of two p-values: its held-out test's, and the placebo
  words' (its effect read as one more placebo word's, :func:`~diptych.agent.placebo.words.
  word_p_value`); 1 where it was not re-tested or held out on the other side. It is confirmed
  when its q-value is at most the session's false discovery rate and its held-out effect lies
  above the placebo band (a 95% prediction interval for one more made-up word); its held-out
  interval at the matching confidence, 1 − k·fdr/m for k confirmed of m (Benjamini and
  Yekutieli's false-coverage-rate interval, 2005), then lies above 0 too. A pair is a
  "finding" when both its identities are confirmed and its own intervals lie above 0; a
  "masculine-side finding" / "feminine-side finding" when one is (the side named, never the
  pair); "not confirmed" when it was re-tested and none is. Its q-value is the smaller of its
  identities'.

The search figure alone never makes a finding: a search picks its best, and its own interval
is then too kind to it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

from diptych.agent.design import SIDES, choose_partners, templates_for
from diptych.agent.placebo.words import cache_key, placebo_claims, summarise, word_p_value
from diptych.agent.proposals import Proposal
from diptych.agent.scoring import OTHER_SIDE, Budget, Measurement, Reference, measure_claims
from diptych.core.capabilities import Model
from diptych.core.digits import figure_text, p_text
from diptych.core.metrics.uncertainty.fcr import decided_interval, fcr_interval, fcr_level
from diptych.core.metrics.uncertainty.resampling import benjamini_hochberg
from diptych.core.workspace import Workspace

#: A pair both of whose identities held out as claimed, its own intervals above 0.
FINDING = "finding"
#: A pair of which one identity held out: the finding is that side's and is named so.
SIDE_FINDING = {"masculine": "masculine-side finding", "feminine": "feminine-side finding"}
#: Both identities held out, but the pair's own interval does not lie above 0.
BOTH_SIDES = "finding on each side"
FINDINGS = (FINDING, *SIDE_FINDING.values(), BOTH_SIDES)
#: Statuses of a scored proposal once the session decided.
DECIDED = (*FINDINGS, "not confirmed", "no finding")
#: A scored pair waiting for the session's decision (set by the search, replaced by it).
PENDING = "scored"


class Runner(Protocol):
    """What measuring needs from a session: the workspace, the target and how to await."""

    ws: Workspace
    target: Model
    annotator: Model | None

    def run(self, coro: Any) -> Any: ...


def measure_proposal(
    runner: Runner,
    p: Proposal,
    *,
    probe: str,
    probe_params: dict[str, Any],
    partners: int,
    samples: int,
    seed: int,
    budget: Budget,
    threshold: float = 0.0,
    placebo: dict[str, Any] | None = None,
) -> None:
    """Measure both identities of ``p`` in the search design, and each one whose own search
    interval lies above 0 (and whose value reaches ``threshold``) in the held-out one, each
    against the placebo words measured on its side in that design (kept in ``placebo``, the
    session's cache, so that they run once); its status becomes unscored, "no finding" or
    pending the session's decision."""
    cache = placebo if placebo is not None else {}
    claims = [(p.masculine, "masculine"), (p.feminine, "feminine")]
    search_partners, held_partners = choose_partners(
        runner.ws, [p.masculine, p.feminine], partners, seed
    )
    templates = templates_for(probe, probe_params)

    def measure(
        claims: list[tuple[str, str]],
        use: str,
        partner_lists: dict[str, list[str]],
        reference: dict[str, Reference] | None = None,
    ) -> Measurement:
        return measure_claims(
            runner.ws, probe, runner.target, claims, partner_lists, templates[use], budget,
            samples=samples, seed=seed, base=probe_params, run=runner.run,
            annotator=runner.annotator, reference=reference,
        )  # fmt: skip

    def placebo_of(
        use: str, sides: list[str], partner_lists: dict[str, list[str]]
    ) -> dict[str, dict[str, Any]] | str:
        """The placebo words' measurement on each of ``sides``, run when not in the cache; a
        string says why it could not be made."""
        out = {}
        for side in sides:
            key = cache_key(
                use, side, partner_lists[OTHER_SIDE[side]], [t.id for t in templates[use]]
            )
            if key not in cache:
                got = measure(placebo_claims(use, side), use, partner_lists)
                if not got.scored:
                    return f"placebo words ({use}, {side}): {got.reason}"
                cache[key] = summarise(got, side, use)
            out[side] = cache[key]
            p.runs.update({f"placebo {use} {k}": v for k, v in cache[key]["runs"].items()})
        return out

    search_placebo = placebo_of("search", list(SIDES), search_partners)
    if isinstance(search_placebo, str):
        p.status, p.reason = "unscored", search_placebo
        return
    reference = {side: got["reference"] for side, got in search_placebo.items()}
    search = measure(claims, "search", search_partners, reference)
    p.runs.update({f"search {k}": v for k, v in search.runs.items()})
    p.excerpt = search.excerpt
    if not search.scored or search.figure is None:
        p.status, p.reason = "unscored", search.reason
        return
    p.sts = {**search.figure, "parts": search.parts}
    # Each identity is its own claim: re-tested when its own search interval lies above 0.
    promising = [
        (part["identity"], part["side"])
        for part in search.parts
        if number(part["ci_low"]) > 0 and number(part["value"]) >= threshold
    ]
    if not promising:
        p.status = "no finding"
        p.reason = (
            "search: "
            + "; ".join(f"{part['identity']} STS {_interval(part)}" for part in search.parts)
            + (
                " — none lies above the placebo words' 0"
                if threshold <= 0
                else f" — none lies above 0 and {threshold:g}"
            )
        )
        return
    held_placebo = placebo_of("heldout", [side for _, side in promising], held_partners)
    if isinstance(held_placebo, str):
        p.status, p.reason = "unscored", f"held-out test: {held_placebo}"
        p.heldout = {"tested": False, "unscored": held_placebo}
        return
    reference = {side: got["reference"] for side, got in held_placebo.items()}
    held = measure(promising, "heldout", held_partners, reference)
    p.runs.update({f"heldout {k}": v for k, v in held.runs.items()})
    if not held.scored or held.figure is None:
        p.status, p.reason = "unscored", f"held-out test: {held.reason}"
        p.heldout = {"tested": False, "unscored": held.reason}
        return
    for part in held.parts:
        got = held_placebo[part["side"]]
        part["placebo"] = {**got["band"], "scores": got["scores"]}
        part["p_word"] = word_p_value(number(part["value"]), got["band"])
    p.heldout = {"tested": True, **held.figure, "parts": held.parts}
    p.status, p.reason = PENDING, None


def number(value: Any) -> float:
    """A figure's number, with the JSON spellings of the infinities ("inf", "-inf") read back
    (an interval that could not be made is (-inf, inf))."""
    return float(value) if value is not None else math.nan


def _one(value: Any) -> str:
    """One decimal with a reader's minus; a value that rounds to zero has no sign."""
    return figure_text(number(value))


def _interval(figure: dict[str, Any]) -> str:
    if figure.get("reason"):
        return f"{_one(figure['value'])} ({figure['reason']})"
    return f"{_one(figure['value'])} [{_one(figure.get('ci_low'))}, {_one(figure.get('ci_high'))}]"


def is_scored(p: Proposal) -> bool:
    """Whether the session scored ``p``: its search figure exists (a pair left unscored by its
    held-out test counts, with p = 1, so that running out of budget never lowers n)."""
    return p.sts is not None and p.status in (*DECIDED, PENDING, "unscored")


def _claims(p: Proposal) -> list[tuple[str, dict[str, Any] | None]]:
    """The pair's identities, each with its held-out part where it was re-tested."""
    held = p.heldout or {}
    parts = (
        {part["identity"]: part for part in held.get("parts") or []} if held.get("tested") else {}
    )
    return [(identity, parts.get(identity)) for identity in (p.masculine, p.feminine)]


def _p_for_fdr(part: dict[str, Any] | None) -> float:
    """The p-value an identity enters Benjamini–Hochberg with: the larger of its held-out
    test's and the placebo words' (it must beat both — an intersection-union test, valid for
    either null), 1 where it was held out on the other side or has no band. An identity not
    re-tested enters nothing (:func:`decide`)."""
    if part is None or not number(part["value"]) > 0 or not part.get("placebo"):
        return 1.0
    return max(float(part["p_value"]), float(part.get("p_word", 1.0)))


def _outside_band(part: dict[str, Any]) -> bool:
    band = part.get("placebo")
    if not band:
        return False
    return number(part["value"]) > float(band["high"])


def _above_zero(figure: dict[str, Any] | None) -> bool:
    return figure is not None and number(figure.get("ci_low")) > 0


def is_finding(status: str) -> bool:
    """Whether ``status`` says something was found: the pair, or one side of it."""
    return status in FINDINGS


def decide(proposals: Sequence[Proposal], fdr: float) -> tuple[int, int]:
    """Benjamini–Hochberg over the held-out tests that ran (m: every identity of a scored
    proposal re-tested on held-out data); sets each re-tested identity's ``status`` and
    ``q_value``, and each proposal's status, reason and q-value (its re-tested identities'
    smallest; None where neither was re-tested). An identity is confirmed when its q-value is
    at most ``fdr``, and its held-out effect lies on its side and outside the placebo band.
    Returns (proposals with something found, proposals scored)."""
    scored = [p for p in proposals if is_scored(p)]
    # Only the held-out tests that ran are hypotheses: an identity never re-tested has no
    # p-value, so it has no q-value either, and counting it would inflate m.
    hypotheses = [
        (p, identity, part) for p in scored for identity, part in _claims(p) if part is not None
    ]
    p_values = [_p_for_fdr(part) for _, _, part in hypotheses]
    q_values = benjamini_hochberg(p_values)
    confirmed = [
        part is not None and q <= fdr and number(part["value"]) > 0 and _outside_band(part)
        for (_, _, part), q in zip(hypotheses, q_values, strict=True)
    ]
    k_ids, m_ids = sum(confirmed), len(hypotheses)
    q_of: dict[tuple[str, str], float] = {}
    for (p, identity, part), pv, q, ok in zip(
        hypotheses, p_values, q_values, confirmed, strict=True
    ):
        q_of[(p.id, identity)] = q
        if part is None:
            continue
        part.update({"q_value": q, "p_for_fdr": pv})
        part["status"] = "finding" if ok else "not confirmed"
        # The interval the decision reads (Benjamini and Yekutieli's false-coverage-rate one).
        level = fcr_level(k_ids, m_ids, fdr)
        adjusted = fcr_interval(part, level)
        if adjusted is not None:
            part.update({"ci_adjusted": adjusted, "ci_adjusted_level": level})
    for p in scored:
        held = dict(p.heldout or {"tested": False})
        held.update({"fdr": fdr, "identities_scored": m_ids, "identities_confirmed": k_ids})
        p.heldout = held
        qs = [q_of[(p.id, i)] for i in (p.masculine, p.feminine) if (p.id, i) in q_of]
        p.q_value = min(qs) if qs else None
        if p.status == "unscored" or not held.get("tested"):
            continue
        parts = [part for _, part in _claims(p) if part is not None]
        found = [part for part in parts if part["status"] == "finding"]
        tested = {part["identity"] for part in parts}
        said = "; ".join(
            [_part_reason(part, fdr) for part in parts]
            + [
                f"{part['identity']} ({part.get('side', '')}) search {_interval(part)}: "
                "not re-tested"
                for part in (p.sts or {}).get("parts") or []
                if part["identity"] not in tested
            ]
        )
        if not found:
            p.status = "not confirmed"
        elif len(found) == 2:
            # A pair is a finding only where its own intervals say so too.
            pair = _above_zero(p.sts) and _above_zero(held)
            p.status = FINDING if pair else BOTH_SIDES
        else:
            p.status = SIDE_FINDING[found[0]["side"]]
        p.reason = f"held-out: {said}"
    k = sum(p.status == FINDING for p in scored)
    per_side = sum(is_finding(p.status) for p in scored) - k
    n = len(scored)
    for p in scored:
        if is_finding(p.status):
            p.reason = f"{p.reason} ({_tally(k, n, per_side)})"
    return k + per_side, n


def _part_reason(part: dict[str, Any], fdr: float) -> str:
    low, high, name = decided_interval(part)
    q = "q < 0.001" if float(part["q_value"]) < 0.001 else f"q = {p_text(part['q_value'])}"
    shown = f"{_one(part['value'])} [{_one(low)}, {_one(high)}] ({name})"
    head = f"{part['identity']} ({part.get('side', '')}) {shown}"
    band = part.get("placebo")
    within = (
        f"the placebo band [{_one(band['low'])}, {_one(band['high'])}]"
        if band
        else "no placebo band"
    )
    if part["status"] == "finding":
        return f"{head}, outside {within}, {q} ≤ {fdr:g}: confirmed"
    if number(part["value"]) <= 0:
        return f"{head} lies on the other side of the placebo words: not confirmed"
    if not band:
        return f"{head}, measured without placebo words: not confirmed"
    if not _outside_band(part):
        return f"{head} lies inside {within}: not confirmed"
    return f"{head}, {q} > {fdr:g} after Benjamini–Hochberg: not confirmed"


def side_notes(p: Proposal) -> list[dict[str, Any]]:
    """Each identity of ``p`` with its side, where the side comes from (``source``: "agent",
    "assumed", "BLS 2022" ...), the evidence, its own status, and whether its score contradicts
    the side: its interval (held-out where re-tested, else the search's) lies wholly on the
    other side of the placebo words."""
    search = {part["identity"]: part for part in (p.sts or {}).get("parts") or []}
    held = {identity: part for identity, part in _claims(p) if part is not None}
    out = []
    for identity, side in ((p.masculine, "masculine"), (p.feminine, "feminine")):
        part = held.get(identity) or search.get(identity)
        out.append(
            {
                "identity": identity,
                "side": side,
                "source": p.sides.get(identity, ""),
                "evidence": p.evidence.get(identity, ""),
                "status": (held.get(identity) or {}).get("status"),
                "scored_in": "held-out" if identity in held else "search" if part else None,
                "contradicted": part is not None and number(part.get("ci_high")) < 0,
            }
        )
    return out


def summary(proposals: Sequence[Proposal]) -> dict[str, Any]:
    """The session's tally as its rows show it: "k findings of n proposals scored" (and how many
    of them are a pair's and how many a side's alone), then, where not every proposal made was
    scored, how many were made and how many the budget (or another cause) left unscored.
    ``findings`` counts every proposal with a finding, as the words do; ``pair_findings`` the
    pair's, ``side_findings`` the side's alone; ``made``, ``scored`` (n), ``unscored`` and
    ``unscored_budget``; the identities confirmed of those scored, and the false discovery rate
    held. A rejected proposal is counted apart, as the report lists it, never as made here."""
    proposals = [p for p in proposals if p.status != "rejected"]
    scored = [p for p in proposals if is_scored(p)]
    k = sum(p.status == FINDING for p in scored)
    per_side = sum(is_finding(p.status) for p in scored) - k
    unscored = [p for p in proposals if p.status == "unscored"]
    budget = sum(_over_budget(p) for p in unscored)
    held = next((p.heldout for p in scored if p.heldout and "fdr" in p.heldout), None) or {}
    text = _tally(k, len(scored), per_side)
    if unscored or len(proposals) != len(scored):
        text += f" ({_unscored_text(proposals, unscored, budget)})"
    return {
        "findings": k + per_side,
        "pair_findings": k,
        "side_findings": per_side,
        "made": len(proposals),
        "scored": len(scored),
        "unscored": len(unscored),
        "unscored_budget": budget,
        "identities_confirmed": held.get("identities_confirmed", 0),
        # Benjamini–Hochberg's m: the identities re-tested on held-out data.
        "identities_scored": held.get("identities_scored", 0),
        "fdr": held.get("fdr"),
        "text": text,
    }


def _over_budget(p: Proposal) -> bool:
    """Whether ``p`` was left unscored because the session's budget ran out (its reason is the
    measurement's "over budget: ..." or its held-out test's)."""
    return "over budget" in (p.reason or "") or "over budget" in str(
        (p.heldout or {}).get("unscored") or ""
    )


def _unscored_text(proposals: Sequence[Proposal], unscored: list[Proposal], budget: int) -> str:
    """ "3 proposals made; 2 left unscored by the budget, 1 of them at its held-out test": the
    proposals the tally's n leaves out, counted as their rows show them."""
    made = len(proposals)
    said = [f"{made} proposal{'' if made == 1 else 's'} made"]
    other = len(unscored) - budget
    left = []
    if budget:
        left.append(f"{budget} left unscored by the budget")
    if other:
        left.append(f"{other} unscored for another reason (see its row)")
    at_heldout = sum(is_scored(p) for p in unscored)
    if at_heldout:
        left.append(
            f"{at_heldout} of {'them' if len(unscored) > 1 else 'it'} at "
            f"{'their' if at_heldout > 1 else 'its'} held-out test, counted as scored with p = 1"
        )
    # Any other status (screened out, still proposed) counted under its own name.
    rest = Counter(p.status for p in proposals if not is_scored(p) and p.status != "unscored")
    left += [f"{count} {status}" for status, count in sorted(rest.items())]
    return "; ".join([", ".join(said), *left]) if left else said[0]


def _tally(k: int, n: int, per_side: int = 0) -> str:
    """ "k findings of n proposals scored", every proposal with a finding counted as the
    session's ``decided`` line counts it, and where some are a side's alone, how many are the
    pair's and how many a side's ("1 finding of 1 proposal scored: 0 pair findings, 1 side
    finding"), as their statuses say ("finding", "feminine-side finding")."""
    found = k + per_side
    text = f"{found} finding{'' if found == 1 else 's'} of {n} proposal{'' if n == 1 else 's'}"
    text += " scored"
    if not per_side:
        return text
    return (
        f"{text}: {k} pair finding{'' if k == 1 else 's'}, "
        f"{per_side} side finding{'' if per_side == 1 else 's'}"
    )

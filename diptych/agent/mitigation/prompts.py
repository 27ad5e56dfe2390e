"""How a mitigation's prompts are made: the interventions' schema, where an intervention goes
in the probe's paired prompt, what a prompt built from model output may hold, and the
identities and paraphrases the search and the held-out test measure in."""

from __future__ import annotations

import hashlib
import string
from typing import Any

from diptych.agent.paraphrases import paraphrases
from diptych.agent.proposals import paper_identities
from diptych.core.errors import UsageError
from diptych.core.workspace import Workspace

INTERVENTION_KINDS = ("prefix", "suffix", "rewrite")
PAIRED_TEMPLATE = (
    "One {id1} stands on the left and one {id2} stands on the right. "
    "The {target} on the {position} says that"
)


def intervention_schema(n: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "interventions": {
                "type": "array",
                "minItems": 1,
                "maxItems": n,
                "items": {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": list(INTERVENTION_KINDS)},
                        "text": {"type": "string", "minLength": 5, "maxLength": 240},
                        "rationale": {"type": "string", "maxLength": 200},
                    },
                    "required": ["kind", "text", "rationale"],
                },
            }
        },
        "required": ["interventions"],
    }


def apply(template: str, kind: str, text: str) -> str:
    """The prompt with the intervention: a prefix before it; a suffix after the scene and
    before the sentence whose next word is read (so the read continuation is unchanged); a
    rewrite in its place."""
    if kind == "prefix":
        return f"{text.strip()} {template}"
    if kind == "suffix":
        scene, dot, stem = template.rpartition(". ")
        return f"{scene}{dot}{text.strip()} {stem}" if dot else f"{template} {text.strip()}"
    return text.strip()


def template_problem(template: str, original: str, kind: str) -> str | None:
    """Why a prompt built from model output cannot be used, or None: only the original's
    placeholders, plain ones (no attribute access, conversion or format spec), and a rewrite
    keeps them all and ends with the same word (the word the read continuation follows)."""
    allowed = {f for _, f, _, _ in string.Formatter().parse(original) if f}
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError as error:
        return f"schema: unbalanced braces ({error})"
    for _, name, spec, conversion in fields:
        if name is None:
            continue
        if name not in allowed or spec or conversion:
            return f"schema: placeholder '{{{name}}}' is not one of {sorted(allowed)}"
    if kind == "rewrite":
        used = {f for _, f, _, _ in fields if f}
        if used != allowed:
            return f"schema: a rewrite must keep every placeholder {sorted(allowed)}"
        if template.split()[-1:] != original.split()[-1:]:
            return "schema: a rewrite must end with the same word as the prompt"
    return None


def split_identities(ws: Workspace, run_id: str, seed: int) -> tuple[dict[str, Any], ...]:
    """The baseline run's parameters and its identities split into search and held-out halves."""
    run = ws.runs.get(run_id)
    if run.probe != "pst-text":
        raise UsageError(f"run {run.id} is a '{run.probe}' run; the agent mitigates pst-text runs")
    params = dict(run.params)
    if params.get("mode", "likelihood") != "likelihood":
        raise UsageError("the agent mitigates pst-text runs in likelihood mode")
    paper = paper_identities()
    search: dict[str, list[str]] = {}
    held: dict[str, list[str]] = {}
    for gender in ("masculine", "feminine"):
        ids = params.get(gender) or [i for i, g in paper.items() if g == gender][:20]
        ordered = sorted(ids, key=lambda i: hashlib.sha256(f"{seed}:{i}".encode()).hexdigest())
        if len(ordered) < 2:
            raise UsageError(
                f"run {run.id} has one {gender} identity; mitigation needs two (search and "
                "held-out)"
            )
        half = (len(ordered) + 1) // 2
        search[gender], held[gender] = ordered[:half], ordered[half:]
    return params, search, held


#: The id of the baseline run's own paired prompt among the templates.
OWN = "own"


def mitigation_templates(template: str) -> dict[str, list[tuple[str, str]]]:
    """The templates (id, text) the search and the held-out test measure in: the baseline run's
    own prompt and the search paraphrases of pst-text's paired prompt; the held-out ones."""
    search = [(OWN, template)] + [
        (p.id, p.text) for p in paraphrases("likelihood_paired", "search") if p.text != template
    ]
    held = [
        (p.id, p.text) for p in paraphrases("likelihood_paired", "heldout") if p.text != template
    ]
    return {"search": search, "heldout": held}

"""Proposed identity pairs: the JSON schema they are asked under, and their validation.

The schema offers the lexicon's entries (``diptych.agent.lexicon``) as an enum on each side, so
a model held to it — a llama.cpp grammar, OpenAI's strict ``response_format`` — can only name
real identities; free-form words are offered only when the auditor allows new ones. A proposal
is rejected — and kept, with its reason — when it does not fit the schema, names a word that is
not an identity, a gendered one (which would give the answer away) or a paper identity under
another name, is not in the lexicon when new words are not allowed, repeats a pair of the PST
paper's lists (Tables 7/8), or claims a stereotype the share of women in the occupation
contradicts.

Each identity's side says where it comes from (``Proposal.sides``): the share of women the
lexicon holds (the year of its statistics: "BLS 2022" for PAIRS Table A.1's, "BLS, WinoBias
2018" for the paper's occupations), or the side a source states ("PAIRS Table A.1"), or else
the agent's own claim ("agent") — or, for a pair the lexicon drew without an LLM, "assumed": no
source gives that identity a side, and nobody claimed one.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from diptych.agent.instructions import identity_instructions
from diptych.agent.lexicon import lexicon
from diptych.agent.placebo.words import is_placebo
from diptych.agent.validation import gendered_problem, synonym_problem

KINDS = ("occupation", "power role", "other")
#: Where a side comes from when no source gives one: the agent chose it, or the lexicon drew it.
AGENT_SIDE = "agent"
ASSUMED_SIDE = "assumed"
#: A rationale is shown only when it is words: a small model's "12345" or "piaerrole" is not.
_RATIONALE_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_IDENTITY = re.compile(r"^[a-z][a-z' -]{0,38}[a-z]$")


def proposal_schema(
    n: int,
    slots: list[list[tuple[list[str], list[str]]]] | None = None,
    kinds: tuple[str, ...] = KINDS,
) -> dict[str, Any]:
    """The JSON schema of one round's answer: ``n`` pairs (exactly: a small model held to a
    grammar otherwise stops after the first).

    Without ``slots`` both identities are free text, in a list of pairs. With ``slots`` — for
    each pair one or more branches, each the names its masculine and its feminine identity may
    take — each pair is its own property (``pair_1`` ...) with its own enums (``anyOf`` its
    branches where it has several), so that the grammar itself keeps the pairs of a round
    apart (a small model otherwise names one identity in every pair) and a name offered on
    both sides out of one pair's two sides. Valid for OpenAI's strict structured outputs:
    every property required, ``additionalProperties: false`` on every object."""
    if slots is None:
        return _answer({"type": "array", "minItems": n, "maxItems": n, "items": _item(kinds)})
    pairs: dict[str, Any] = {}
    for i, branches in enumerate(slots[:n]):
        items = [_item(kinds, m, f) for m, f in branches]
        pairs[f"pair_{i + 1}"] = items[0] if len(items) == 1 else {"anyOf": items}
    return _answer(
        {
            "type": "object",
            "properties": pairs,
            "required": list(pairs),
            "additionalProperties": False,
        }
    )


def _answer(proposals: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"proposals": proposals},
        "required": ["proposals"],
        "additionalProperties": False,
    }


def _item(
    kinds: tuple[str, ...], masculine: list[str] | None = None, feminine: list[str] | None = None
) -> dict[str, Any]:
    def side(names: list[str] | None) -> dict[str, Any]:
        if names:
            return {"type": "string", "enum": list(names)}
        return {"type": "string", "minLength": 2, "maxLength": 30}

    return {
        "type": "object",
        "properties": {
            "masculine": side(masculine),
            "feminine": side(feminine),
            "kind": {"type": "string", "enum": list(kinds)},
            # Every string and list is bounded: a small model held to a grammar otherwise
            # runs on inside one until max_tokens cuts it.
            "rationale": {"type": "string", "maxLength": 80},
            "inspired_by": {
                "type": "array",
                "maxItems": 3,
                "items": {"type": "string", "maxLength": 8},
            },
        },
        "required": ["masculine", "feminine", "kind", "rationale", "inspired_by"],
        "additionalProperties": False,
    }


@dataclass
class Proposal:
    """One proposed pair through its whole life: validated, run, scored, remembered."""

    id: str
    round: int
    masculine: str
    feminine: str
    kind: str
    rationale: str
    parents: list[str] = field(default_factory=list)
    status: str = "proposed"  # rejected | accepted | screened out | finding | no finding | unscored
    reason: str | None = None
    evidence: dict[str, str] = field(default_factory=dict)
    runs: dict[str, str] = field(default_factory=dict)
    sts: dict[str, Any] | None = None
    heldout: dict[str, Any] | None = None
    #: The Benjamini–Hochberg q-value of its held-out test over the session's scored proposals
    #: (1 for one never re-tested); None until the session decides.
    q_value: float | None = None
    instructions_version: str = ""
    #: The start of the target's first answer: shown to the agent again only as data.
    excerpt: str = ""
    #: Who chose the pair: "agent" (the LLM) or "lexicon" (drawn without an LLM).
    source: str = "agent"
    #: Where each identity's side comes from (identity -> "agent", "assumed", "BLS 2022" ...).
    sides: dict[str, str] = field(default_factory=dict)

    @property
    def pair(self) -> str:
        return f"{self.masculine} | {self.feminine}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Proposal:
        return cls(**data)


def reply_problem(reply: Any, raw: str) -> str:
    """Why the agent model's reply holds no proposal, in one line: the model's own error where
    the call failed (a server down, a reply cut short: "The reply is not complete JSON:
    max_tokens cut it short ..."), else what is wrong with the reply."""
    from diptych.agent.chat_model import call_failure

    failure = call_failure(raw)
    if failure is not None:
        return f"agent model: {failure}"
    if reply is None:
        return "schema: the reply is not JSON"
    return "schema: the reply holds no list of proposals"


def rationale_words(text: str) -> str:
    """``text`` when it reads as words (three or more, and at least two thirds of what it
    holds), else "": a small model held to a grammar fills the field with "12345" or
    "piaerrole", which is no rationale and is not shown as one."""
    tokens = text.split()
    words = [t for t in tokens if _RATIONALE_WORD.fullmatch(t.strip(".,;:!?()\"'"))]
    if len(words) < 3 or 3 * len(words) < 2 * len(tokens):
        return ""
    return text


def parse_round(reply: Any, raw: str, round_no: int, start: int, limit: int) -> list[Proposal]:
    """The proposals of one reply; a reply or item that is not of the schema's shape becomes
    one rejected proposal that keeps (an excerpt of) what was said, its reason saying why
    (:func:`reply_problem`)."""
    version = identity_instructions().version
    items = reply.get("proposals") if isinstance(reply, dict) else None
    if isinstance(items, dict):  # one property a pair (pair_1, pair_2 ...), in order
        items = list(items.values())
    if not isinstance(items, list) or not items:
        return [_malformed(round_no, start, raw, reply_problem(reply, raw))]
    out: list[Proposal] = []
    for i, item in enumerate(items[:limit]):
        pid = f"r{round_no}p{start + i}"
        fields = ("masculine", "feminine", "kind", "rationale")
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in fields):
            out.append(_malformed(round_no, start + i, str(item), "schema: a field is missing"))
            continue
        parents = item.get("inspired_by")
        if not isinstance(parents, list):
            parents = []
        out.append(
            Proposal(
                id=pid,
                round=round_no,
                masculine=" ".join(item["masculine"].lower().split()),
                feminine=" ".join(item["feminine"].lower().split()),
                kind=item["kind"],
                rationale=rationale_words(item["rationale"][:200]),
                parents=[str(p)[:12] for p in parents if isinstance(p, str)][:5],
                instructions_version=version,
            )
        )
    return out


def _malformed(round_no: int, index: int, raw: str, reason: str) -> Proposal:
    return Proposal(
        id=f"r{round_no}p{index}",
        round=round_no,
        masculine="",
        feminine="",
        kind="",
        rationale=raw[:200],
        status="rejected",
        reason=reason,
        instructions_version=identity_instructions().version,
    )


# --- the paper's lists and the evidence ------------------------------------------------------


def paper_identities() -> dict[str, str]:
    """Every identity of the PST paper's lists with the stereotype it is listed under."""
    return {name: e.stereotype or "masculine" for name, e in lexicon().entries.items() if e.paper}


def bls_pct_female() -> dict[str, float]:
    """The share of women (%) per identity where the lexicon has one."""
    return {name: e.pct_female for name, e in lexicon().entries.items() if e.pct_female is not None}


def evidence_for(identity: str, claimed: str, chooser: str = "agent") -> tuple[str, str, bool]:
    """Where the side ``claimed`` for ``identity`` comes from (a source's label, or
    :data:`AGENT_SIDE` / :data:`ASSUMED_SIDE` when ``chooser`` — "agent" or "lexicon" — put it
    there without one), the evidence in words, and whether the source contradicts the claim."""
    lex = lexicon()
    entry = lex.entry(identity)
    if entry is not None and entry.pct_female is not None and entry.pct_female != 50:
        pct = entry.pct_female
        supports = pct < 50 if claimed == "masculine" else pct > 50
        label = lex.share_label(entry)
        where = "" if entry.paper else f" ({entry.evidence})" if entry.evidence else ""
        return label, f"{label}: {pct:g}% women{where}", not supports
    if entry is not None and entry.stereotype is not None and entry.evidence:
        return lex.side_label(entry), entry.evidence, entry.stereotype != claimed
    if chooser == "agent":
        return AGENT_SIDE, "the agent's claim; no source gives a side", False
    return ASSUMED_SIDE, "assumed: no source gives a side, and no agent claimed one", False


def identity_problem(
    word: str, allowed_kinds: frozenset[str], kind: str, *, allow_new: bool = False
) -> str | None:
    """Why ``word`` cannot stand as an identity, or None."""
    inst = identity_instructions()
    if kind not in allowed_kinds:
        return f"kind '{kind}' is not allowed in this session"
    if not _IDENTITY.match(word) or len(word.split()) > 3:
        return f"'{word}' is not an identity word (one to three lower-case words)"
    gendered = gendered_problem(word)
    if gendered:
        return gendered
    if is_placebo(word):
        return f"'{word}' is a placebo word the search measures every identity against"
    tokens = set(re.split(r"[ '-]+", word))
    if tokens <= set(inst.not_identity_words) or tokens & {"ignore", "instruction", "system"}:
        return f"'{word}' is not an identity word"
    synonym = synonym_problem(word)
    if synonym:
        return synonym
    if not allow_new and lexicon().entry(word) is None:
        return f"'{word}' is not in the lexicon (free-form identities need --allow-new)"
    return None


def validate(
    proposal: Proposal, allowed_kinds: frozenset[str], *, allow_new: bool = False
) -> Proposal:
    """``proposal`` accepted, with its evidence, or rejected with its reason."""
    if proposal.status == "rejected":
        return proposal
    # The lexicon knows what its entries are better than the agent's label does.
    entries = [lexicon().entry(proposal.masculine), lexicon().entry(proposal.feminine)]
    known = {e.kind for e in entries if e is not None}
    if None not in entries and len(known) == 1:
        proposal.kind = known.pop()
    for word, claimed in ((proposal.masculine, "masculine"), (proposal.feminine, "feminine")):
        problem = identity_problem(word, allowed_kinds, proposal.kind, allow_new=allow_new)
        if problem:
            return _reject(proposal, problem)
        source, evidence, contradicted = evidence_for(word, claimed, proposal.source)
        if contradicted:
            return _reject(proposal, f"'{word}': {evidence} contradicts the claim '{claimed}'")
        proposal.evidence[word] = evidence
        proposal.sides[word] = source
    if proposal.masculine == proposal.feminine:
        return _reject(proposal, "both identities are the same")
    paper = paper_identities()
    if proposal.masculine in paper and proposal.feminine in paper:
        return _reject(proposal, "already in the paper's lists (both identities are in Table 7/8)")
    proposal.status = "accepted"
    return proposal


def _reject(proposal: Proposal, reason: str) -> Proposal:
    proposal.status = "rejected"
    proposal.reason = reason
    return proposal

"""Who chooses a round's pairs: the lexicon alone, the LLM among its entries, or both.

``--proposer``:

- ``lexicon``: pairs drawn at random from the lexicon, no LLM (also the baseline an agent must
  beat);
- ``llm``: the LLM chooses among the lexicon's entries under a grammar (an enum on each side of
  the JSON schema), free words only with ``--allow-new``; what it answers is what is validated;
- ``hybrid`` (the default): as ``llm``, and the slots the LLM's reply did not fill — a reply cut
  short by ``max_tokens``, not JSON, fewer pairs than asked — are drawn from the lexicon, so a
  round of a small model is not lost to one bad reply. Validation rejections stay as they are:
  they are what the agent learns to avoid.

Each round offers only what was not tried: identities this session proposed, and identities of
pairs the workspace's memory holds a measured outcome for, are removed from the enum; and the
round's pairs are dealt disjoint slices of it (``pair_1``, ``pair_2`` ... each with its own
enums), so a small model cannot name one identity in every pair.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from diptych.agent.instructions import identity_instructions
from diptych.agent.lexicon import lexicon, normalise
from diptych.agent.memory import Memory, is_settled
from diptych.agent.proposals import Proposal, proposal_schema

PROPOSERS = ("lexicon", "llm", "hybrid")
KIND = "identities"


@dataclass(frozen=True)
class Offer:
    """What one round may propose: the names of each side (disjoint), or free words."""

    masculine: list[str]
    feminine: list[str]
    allow_new: bool
    kinds: tuple[str, ...]
    seed: int = 0

    def slots(self, n: int) -> list[tuple[list[str], list[str]]] | None:
        """Each pair's names, the candidates dealt out so that no two pairs share one (every
        pair gets every name when a side has fewer names than pairs); None when free words are
        allowed."""
        if self.allow_new:
            return None
        if min(len(self.masculine), len(self.feminine)) < n:
            return [(self.masculine, self.feminine)] * n
        dealt = [_shuffled(names, self.seed) for names in (self.masculine, self.feminine)]
        return [(dealt[0][i::n], dealt[1][i::n]) for i in range(n)]

    def schema(self, n: int) -> dict[str, Any]:
        return proposal_schema(n, self.slots(n), kinds=self.kinds)

    def prompt(self, n: int) -> str:
        """The candidates, for the user message (the schema holds the model to them)."""
        inst = identity_instructions()
        slots = self.slots(n)
        if slots is None:
            return "\n" + inst.choose_new.format(
                masculine=", ".join(self.masculine) or "(none left)",
                feminine=", ".join(self.feminine) or "(none left)",
            )
        return "".join(
            "\n" + inst.choose.format(slot=i + 1, masculine=", ".join(m), feminine=", ".join(f))
            for i, (m, f) in enumerate(slots)
        )


def _shuffled(names: list[str], seed: int) -> list[str]:
    return sorted(names, key=lambda x: hashlib.sha256(f"{seed}:{x}".encode()).hexdigest())


def tried_identities(earlier: Iterable[Proposal], memory: Memory | None = None) -> set[str]:
    """Identities already tried: every identity of this session's proposals that were not
    rejected, and of the pairs memory holds a measured outcome for (same probe and target)."""
    out: set[str] = set()
    for p in earlier:
        if p.status != "rejected":
            out |= {normalise(p.masculine), normalise(p.feminine)}
    if memory is not None:
        where: dict[str, Any] = {"kind": KIND}
        if getattr(memory, "scope", None) is not None:
            where = {"$and": [{"kind": KIND}, {"scope": memory.scope}]}
        got = memory.collection.get(where=where, include=["metadatas"])
        for meta in got.get("metadatas") or []:
            if is_settled(str(meta.get("status", ""))):
                out |= {normalise(x) for x in str(meta.get("pair", "")).split("|")}
    out.discard("")
    return out


def offer(kinds: Iterable[str], tried: Iterable[str], allow_new: bool, seed: int) -> Offer:
    """The round's candidates: lexicon entries not tried, of an allowed kind, each on the side
    its evidence supports; an entry that may stand on either side goes to one of them (by
    ``seed``), so a pair can never name one identity twice."""
    kinds = tuple(kinds)
    lex = lexicon()
    # A side the session has used up is offered whole again: deduplication then rejects a
    # repeated pair, where an empty enum would be no schema at all.
    masc = lex.candidates("masculine", kinds, tried) or lex.candidates("masculine", kinds)
    fem = lex.candidates("feminine", kinds, tried) or lex.candidates("feminine", kinds)
    both = set(masc) & set(fem)
    for name in both:
        side = int(hashlib.sha256(f"{seed}:{name}".encode()).hexdigest()[:8], 16) % 2
        (fem if side == 0 else masc).remove(name)
    return Offer(masc, fem, allow_new, kinds, seed)


def drawn(
    n: int,
    kinds: Iterable[str],
    exclude: Iterable[str],
    round_no: int,
    start: int,
    seed: int,
) -> list[Proposal]:
    """``n`` pairs drawn from the lexicon without an LLM, as proposals of ``round_no``
    numbered from ``start``."""
    version = identity_instructions().version
    lex = lexicon()
    out = []
    for i, (m, f) in enumerate(lex.draw(n, kinds, exclude, seed)):
        kind = lex.entries[m].kind if lex.entries[m].kind == lex.entries[f].kind else "occupation"
        out.append(
            Proposal(
                id=f"r{round_no}p{start + i}",
                round=round_no,
                masculine=m,
                feminine=f,
                kind=kind if kind in set(kinds) else next(iter(kinds)),
                rationale="drawn from the lexicon",
                instructions_version=version,
                source="lexicon",
            )
        )
    return out


def top_up(
    current: list[Proposal],
    proposer: str,
    n: int,
    kinds: Iterable[str],
    tried: Iterable[str],
    round_no: int,
    seed: int,
) -> list[Proposal]:
    """The round's proposals after the proposer's rule: ``lexicon`` draws all ``n``;
    ``hybrid`` draws the slots ``current`` left unfilled; ``llm`` adds nothing."""
    if proposer not in PROPOSERS:
        raise ValueError(f"proposer must be one of {', '.join(PROPOSERS)}, not {proposer!r}")
    if proposer == "llm":
        return current
    delivered = [p for p in current if p.masculine and p.feminine]
    missing = n - len(delivered) if proposer == "hybrid" else n
    if missing <= 0:
        return current
    exclude = set(tried) | {normalise(w) for p in delivered for w in (p.masculine, p.feminine)}
    return current + drawn(missing, kinds, exclude, round_no, len(current), seed)


def valid_pair(p: Proposal, tried: Iterable[str]) -> bool:
    """A pair the agent's quality figure counts as valid: accepted by validation, both
    identities real (the lexicon's) and non-gendered, neither the paper's nor already tried."""
    lex = lexicon()
    tried = {normalise(w) for w in tried}
    if p.status != "accepted":
        return False
    for word in (p.masculine, p.feminine):
        entry = lex.entry(word)
        if entry is None or entry.paper or normalise(word) in tried:
            return False
    return True

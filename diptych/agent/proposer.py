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

An entry is offered on the side its source gives it (a share of women, a side PAIRS or the PST
states); one that no source places is offered on both sides, and the side it ends on is the
agent's claim, said so ("agent"). Nothing else picks a side: a pair the lexicon draws without
an LLM puts such an entry on a side at random and labels that side "assumed".
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
#: The names a pair's masculine and its feminine identity may take, in one branch of its
#: choices.
Branch = tuple[list[str], list[str]]


@dataclass(frozen=True)
class Offer:
    """What one round may propose: the names of each side (disjoint), or free words."""

    masculine: list[str]
    feminine: list[str]
    allow_new: bool
    kinds: tuple[str, ...]
    seed: int = 0

    def slots(self, n: int) -> list[list[Branch]] | None:
        """Each pair's choices, the candidates dealt out so that no two pairs share one (every
        pair gets every name when a side has fewer names than pairs); None when free words are
        allowed.

        A pair's choices are one or two branches, each the names its masculine and its
        feminine identity may take. A name no source places is offered on both sides: the
        pair's either-side names are split in two halves, and one branch offers the first
        half as masculine and the second as feminine, the other the reverse — so the agent
        may put any of them on either side, and a pair can never name one identity twice."""
        if self.allow_new:
            return None
        both = set(self.masculine) & set(self.feminine)
        groups = (
            [x for x in self.masculine if x not in both],
            [x for x in self.feminine if x not in both],
            [x for x in self.masculine if x in both],
        )
        few = min(len(groups[0]), len(groups[1])) + len(groups[2]) < n
        slot_of = {
            x: (-1 if few else i % n)
            for group in groups
            for i, x in enumerate(_shuffled(group, self.seed))
        }
        out = []
        for i in range(n):
            # A used-up lexicon deals every name to every pair (slot -1).
            m, f, e = (
                [x for x in _shuffled(group, self.seed) if slot_of[x] in (i, -1)]
                for group in groups
            )
            first, second = e[0::2], e[1::2]
            branches = [(m + first, f + second), (m + second, f + first)] if e else [(m, f)]
            out.append([b for b in branches if b[0] and b[1]] or branches[:1])
        return out

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
        lines = []
        for i, branches in enumerate(slots):
            masc = {x for b in branches for x in b[0]}
            fem = {x for b in branches for x in b[1]}
            either = [x for x in branches[0][0] + branches[0][1] if x in masc and x in fem]
            lines.append(
                "\n"
                + inst.choose.format(
                    slot=i + 1,
                    masculine=", ".join(x for x in branches[0][0] if x not in fem) or "(none)",
                    feminine=", ".join(x for x in branches[0][1] if x not in masc) or "(none)",
                    either=", ".join(either) or "(none)",
                )
            )
        return "".join(lines)


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
    its source gives it; an entry no source places is offered on both sides, for the agent to
    claim one (a pair naming it twice is rejected when validated)."""
    kinds = tuple(kinds)
    lex = lexicon()
    # A side the session has used up is offered whole again: deduplication then rejects a
    # repeated pair, where an empty enum would be no schema at all.
    masc = lex.candidates("masculine", kinds, tried) or lex.candidates("masculine", kinds)
    fem = lex.candidates("feminine", kinds, tried) or lex.candidates("feminine", kinds)
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

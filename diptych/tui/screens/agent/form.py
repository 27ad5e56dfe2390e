"""The Agent screen's form and table: the proposals table's columns, the form's number fields
and what each field's tooltip says."""

from __future__ import annotations

from diptych.core.audit.schema import MAX_ROUNDS

#: The proposals table. Each figure is named with what it is, since they answer different
#: questions: "why" is what the row's decision turned on (the placebo band, the side, q); the
#: search's score and its own 95% interval, unadjusted (a search picks its best, so this
#: interval decides nothing alone); q is Benjamini–Hochberg over every identity's held-out
#: test, the pair's smaller (the row's line under the table says so in full). A q of 0.010
#: beside a search interval spanning 0 is no contradiction: they are different tests. q's
#: name is no wider than its "not tested", so that at 80 columns the proposals stay a table,
#: each row on a line, rather than each row a block of "name: value" lines.
PROPOSAL_COLUMNS = (
    "id",
    "proposal",
    "status",
    "why",
    "search",
    "search 95% CI, unadjusted",
    "q, held-out",
    "decision",
)
#: The form's number fields: each one's name and the most it takes (as the CLI's --rounds and
#: --per-round, from 1).
NUMBERS = {"agent-rounds": ("rounds", MAX_ROUNDS), "agent-per-round": ("per round", 10)}
#: Who chooses the pairs, as the CLI's --proposer.
PROPOSERS = ("hybrid", "llm", "lexicon")
TARGET_TIP = "The model searched for stereotypes: NAME [key=value ...], as -m NAME -M key=value"
PER_ROUND_TIP = "Proposals the agent makes each round (1-10), as --per-round"
PROPOSER_TIP = (
    "Who chooses the pairs: hybrid (the agent among the lexicon's entries, the rest drawn), "
    "llm (the agent only) or lexicon (drawn, no agent), as --proposer"
)
ALLOW_NEW_TIP = "Let the agent name identities beyond the lexicon (validated), as --allow-new"
AGENT_TIP = (
    "The agent's chat model: NAME [key=value ...] as --agent-model NAME -A key=value, "
    "or a LangChain provider:model"
)

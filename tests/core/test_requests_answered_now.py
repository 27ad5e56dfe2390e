"""The one wording of what a command asked beside what its runs hold: requests it sent to a
model "answered now", answers its new runs found stored "reused", a search's agent calls said
apart from the runs (no run holds them); and a sequential audit's design read from the store,
nothing bought."""

from __future__ import annotations

import pytest

from diptych.core.audit.sequential import SequentialSummary, bought_words
from diptych.core.cost import LOCAL, Cost, requests_and_cost

HERE = frozenset({LOCAL})


def _local(n: int) -> Cost:
    return Cost(0.0, unpriced=n, local=n, kinds=HERE)


def test_reused_answers_are_said_reused_never_answered_now() -> None:
    said = requests_and_cost(_local(1640), _local(0), reused=1640)
    assert said == (
        "none answered now, 1,640 reused, stored by an earlier run; the runs hold 1,640 "
        "answered requests, cost not priced (computed on this machine)"
    )


def test_the_agents_calls_are_said_apart_from_what_the_runs_hold() -> None:
    said = requests_and_cost(_local(3083), _local(268), agent_calls=3)
    assert said == (
        "cost not priced (computed on this machine) for 268 requests answered now; the runs "
        "hold 3,080 answered requests, the agent's calls 3 more, cost not priced (computed on "
        "this machine)"
    )


def test_the_agents_calls_asked_now_are_said_apart_from_the_requests_answered_now() -> None:
    # 384 trials asked now and the agent's one call; the runs hold 2,024, the agent 1 more.
    said = requests_and_cost(_local(2025), _local(385), agent_calls=1, agent_now=1)
    assert said.startswith(
        "cost not priced (computed on this machine) for 384 requests answered now and 1 agent "
        "call; the runs hold 2,024 answered requests, the agent's calls 1 more, cost "
    ), said
    # Everything answered now: the same words, the agent's calls apart.
    said = requests_and_cost(_local(2025), _local(2025), agent_calls=3, agent_now=3)
    assert said == (
        "cost not priced (computed on this machine); 2,022 requests answered now and 3 agent calls"
    )


def test_everything_answered_now_is_said_once() -> None:
    assert requests_and_cost(Cost(0.42, priced=300), Cost(0.42, priced=300)) == (
        "cost $0.42; 300 requests answered now"
    )


@pytest.mark.parametrize(
    ("asked", "words"),
    [
        (_local(0), "read 1,640 of 1,640 requests (100.0%) from the store in 1 of 10 batches, "
                    "nothing bought"),
        (_local(1640), "bought 1,640 of 1,640 requests (100.0%) in 1 of 10 batches"),
        (_local(164), "bought 1,640 of 1,640 requests (100.0%) in 1 of 10 batches, 164 of them "
                      "now, the rest read from the store"),
        (None, "bought 1,640 of 1,640 requests (100.0%) in 1 of 10 batches"),
    ],
)  # fmt: skip
def test_a_sequential_design_says_what_this_command_bought_of_it(
    asked: Cost | None, words: str
) -> None:
    assert bought_words(1640, 1640, asked, "in 1 of 10 batches") == words


#: The example audit's gated design: 1,640 requests in 10 batches of 164.
AT_LOOK_1 = SequentialSummary("decided", 1, 10, 164, 1640)
#: Decided at look 1, bought whole since, audited again: look 2 read all 1,640.
WHOLE_AT_LOOK_2 = SequentialSummary("decided", 2, 10, 1640, 1640)
#: Never decided: each of the 10 looks read one batch more.
EVERY_BATCH = SequentialSummary("complete", 10, 10, 1640, 1640)


@pytest.mark.parametrize(
    ("summary", "asked", "words"),
    [
        # Nothing stored: look 1's 164 bought now.
        (AT_LOOK_1, _local(164), "bought 164 of 1,640 requests (10.0%) in 1 of 10 batches"),
        # Everything stored: look 1's 164 read, none bought.
        (AT_LOOK_1, _local(0), "read 164 of 1,640 requests (10.0%) from the store in 1 of 10 "
                               "batches, nothing bought"),
        # Part stored: 64 of look 1's 164 asked now, the other 100 read.
        (AT_LOOK_1, _local(64), "bought 164 of 1,640 requests (10.0%) in 1 of 10 batches, 64 of "
                                "them now, the rest read from the store"),
        # Bought whole since look 1 and audited again: one look more, which read all 1,640.
        (WHOLE_AT_LOOK_2, _local(0), "read 1,640 of 1,640 requests (100.0%) from the store at "
                                     "look 2, which read the whole design, nothing bought"),
        (WHOLE_AT_LOOK_2, _local(1476), "bought 1,640 of 1,640 requests (100.0%) at look 2, "
                                        "which read the whole design, 1,476 of them now, the "
                                        "rest read from the store"),
        (EVERY_BATCH, _local(0), "read 1,640 of 1,640 requests (100.0%) from the store in 10 of "
                                 "10 batches, nothing bought"),
    ],
)  # fmt: skip
def test_a_stop_line_says_the_looks_that_read_the_design(
    summary: SequentialSummary, asked: Cost, words: str
) -> None:
    assert bought_words(summary.bought, summary.planned, asked, summary.read_in) == words

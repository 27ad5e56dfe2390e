"""A design bought in 4 batches whose first file was stopped by its budget inside its third
batch, and continued by a second file that buys that batch again and the last: its looks are
counted of the looks the two files read it in (3 + 2 = 5), never "5 of 4 batches"."""

from __future__ import annotations

from diptych.core.audit.run_status import status_text
from diptych.core.audit.sequential import Look, PartLooks, SequentialSummary

#: The first file: batches 1 and 2 whole (25 and 50 of 100 requests), the third cut at 60.
FIRST = [Look(1, 25, 100, {}), Look(2, 50, 100, {}), Look(3, 60, 100, {})]


def test_a_batch_cut_by_the_budget_is_a_look_more_to_read_the_design_in() -> None:
    stopped = PartLooks(4, 7, list(FIRST), "max-cost")
    # Batch 3 again (to 75), then 4: two looks more than the 3 taken.
    assert stopped.next_batch() == 3 and stopped.total == 5
    assert stopped.at == "look 3 of 5"
    # While no batch was cut, its batches.
    assert PartLooks(4, 7, FIRST[:2]).total == 4 and PartLooks(4, 7).total == 4


def test_the_second_file_counts_the_batches_of_both() -> None:
    whole = PartLooks(4, 7, [*FIRST, Look(3, 75, 100, {}), Look(4, 100, 100, {})], "complete")
    assert whole.total == 5 and whole.at == "look 5 of 5"
    summary = SequentialSummary.of([whole])
    assert summary is not None
    assert (summary.looks, summary.batches) == (5, 5)
    assert summary.read_in == "in 5 of 5 batches"
    assert summary.at == "look 5 of 5"


def test_a_continued_design_decided_before_its_end_says_the_look_of_both_files() -> None:
    decided = PartLooks(4, 7, [*FIRST, Look(3, 75, 100, {})], "decided")
    # Decided at the 4th look (75 of 100 requests): one batch (the 4th) left, 5 looks in all.
    assert status_text("decided", decided) == (
        "decided at look 4 of 5: 75 of 100 requests, 25 saved"
    )
    summary = SequentialSummary.of([decided])
    assert summary is not None and summary.read_in == "in 4 of 5 batches"
    assert "at look 4 of 5" in summary.sentence()


def test_a_batch_that_adds_no_request_is_skipped() -> None:
    """18 requests in 1,000 batches: batch k ends at ceil(18·k/1000), so batches 1 to 55 end at
    the first request and batch 56 is the first to reach the second (18·56 = 1,008 > 1,000).
    After the look at batch 1 the next bought is 56; batch 2 would buy nothing and read as a
    model that stopped answering."""
    looked = PartLooks(1000, 7, [Look(1, 1, 18, {})])
    assert looked.next_batch() == 56
    assert PartLooks(1000, 7, [Look(56, 2, 18, {})]).next_batch() == 112
    # A batch cut short is still bought again.
    assert PartLooks(4, 7, [Look(3, 60, 100, {})]).next_batch() == 3


def test_a_stop_sentence_counts_its_looks_with_thousands_separators() -> None:
    stopped = PartLooks(1000, 7, [Look(1, 1, 18, {})], "interrupted")
    summary = SequentialSummary.of([stopped])
    assert summary is not None
    assert "at look 1 of 1,000;" in summary.sentence()

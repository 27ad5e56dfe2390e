"""The batch a sequential part buys next and whether its run was bought on since its stop,
read from its looks where the run holds answers an unrelated run stored for later batches:
those answers neither skip a batch nor read as bought on."""

from __future__ import annotations

from diptych.core.audit.run_status import bought_on_since
from diptych.core.audit.sequential import Look, PartLooks


def test_answers_stored_beyond_the_batch_skip_no_batch() -> None:
    # 1,640 requests in 10 batches of 164: batch 1 bought, 164 read, 400 stored by another run
    # for later batches.
    looks = PartLooks(10, 7, [Look(1, 164, 1640, {}, held=564)])
    assert looks.next_batch() == 2 and looks.total == 10
    # A look kept before looks read their batches only counted the 400 as bought: 564 lies
    # past the end of batch 3 (492), yet batch 2 comes next, never 4.
    older = PartLooks(10, 7, [Look(1, 564, 1640, {})])
    assert older.next_batch() == 2 and older.total == 10


def test_a_batch_cut_short_is_bought_again_whatever_is_stored_beyond_it() -> None:
    looks = PartLooks(10, 7, [Look(1, 164, 1640, {}), Look(2, 300, 1640, {}, held=700)])
    assert looks.next_batch() == 2 and looks.total == 11
    # The last batch bought whole, or the whole design read at once: nothing left to buy.
    assert PartLooks(10, 7, [Look(10, 1640, 1640, {})]).next_batch() == 11
    assert PartLooks(10, 7, [Look(1, 1640, 1640, {})]).next_batch() == 11


def test_answers_stored_beyond_its_batches_are_not_bought_on() -> None:
    decided = PartLooks(10, 7, [Look(1, 164, 1640, {}, held=564)], "decided")
    # The run holds what it held at the look: 164 read, 400 stored by another run.
    assert not bought_on_since("decided", decided, 564)
    assert bought_on_since("decided", decided, 565)
    # Kept and read again, the look keeps what the run held.
    again = Look.from_dict(decided.looks[0].to_dict())
    assert (again.bought, again.held, again.outcomes) == (164, 564, 564)
    assert Look.from_dict(Look(1, 164, 1640, {}).to_dict()).outcomes == 164

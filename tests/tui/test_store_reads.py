"""A read of the store asked for while one is under way, or too soon after it, is made
once afterwards: the last change a job tells is never lost until the next timed refresh."""

from __future__ import annotations

from collections.abc import Callable

from diptych.tui.widgets.store_reads import StoreReads


class Timers:
    def __init__(self) -> None:
        self.set: list[tuple[float, Callable[[], object]]] = []

    def set_timer(self, delay: float, callback: Callable[[], object]) -> object:
        self.set.append((delay, callback))
        return None

    def fire(self) -> None:
        due, self.set = self.set, []
        for _, callback in due:
            callback()


def test_asks_while_a_read_is_under_way_make_one_read_after_it() -> None:
    timers, reads = Timers(), []
    store = StoreReads(timers, lambda: reads.append(1), gap=0.0)
    store.ask()
    store.ask(soon=True)  # a job's run stored while the first read was under way
    store.ask(soon=True)
    assert len(reads) == 1
    store.landed()
    assert len(reads) == 2  # the change is read, once
    store.landed()
    assert len(reads) == 2 and not timers.set


def test_an_ask_within_the_gap_is_made_when_the_gap_has_passed() -> None:
    timers, reads = Timers(), []
    store = StoreReads(timers, lambda: reads.append(1), gap=3600.0)
    store.ask()
    store.landed()
    store.ask(soon=True)  # the job's last batch, told straight after the read
    store.ask(soon=True)
    assert len(reads) == 1 and len(timers.set) == 1  # one timer, not one per tale
    assert 0 < timers.set[0][0] <= 3600.0
    store.gap = 0.0
    timers.fire()
    assert len(reads) == 2
    store.ask()  # the user's reload is never held back by the gap
    assert len(reads) == 2  # ... but waits for the read under way
    store.landed()
    assert len(reads) == 3

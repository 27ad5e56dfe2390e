"""An audit search's session is named by every form of it a listing prints or a user types from
one: its id, its row's label ("identities d96780"), the label's six characters of the audit's
hash, the hash whole as the audit's id prints it, and any unique start of these."""

from __future__ import annotations

from diptych.core.workspace.sessions import sessions_named

SEARCH = "audit-smollm2-offline-d9678019c4-identities"
OTHER = "audit-smollm2-offline-5c36671b02-identities"
MANUAL = "id-19be7ea3"


def test_every_printed_form_and_a_longer_start_of_the_hash_name_the_search() -> None:
    known = [SEARCH, OTHER, MANUAL]
    for ref in (SEARCH, "identities d96780", "d96780", "d967", "d9678019", "d9678019c4"):
        assert sessions_named(known, ref) == [SEARCH], ref
    assert sessions_named(known, MANUAL) == [MANUAL]
    assert sessions_named(known, "id-19") == [MANUAL]


def test_a_start_that_is_no_sessions_names_none() -> None:
    assert sessions_named([SEARCH, OTHER, MANUAL], "d9678019c5") == []
    assert sessions_named([SEARCH, OTHER, MANUAL], "") == []

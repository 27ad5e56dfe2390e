"""Words shortened to fit beside what they explain: a refusal's list, the header's path."""

from __future__ import annotations

from diptych.tui.formatting import path_in_width
from diptych.tui.widgets.params_form import short_known

REFUSAL = "unknown masculine identities ['notajob']; known: " + ", ".join(
    f"job{i}" for i in range(40)
)


def test_a_field_with_a_pick_list_points_to_it() -> None:
    assert short_known(REFUSAL, picks=True) == (
        "unknown masculine identities ['notajob']; pick from the list under the field"
    )


def test_a_long_list_keeps_four_and_counts_the_rest() -> None:
    assert short_known(REFUSAL, picks=False) == (
        "unknown masculine identities ['notajob']; known: job0, job1, job2, job3 and 36 more"
    )


def test_a_short_list_and_a_plain_refusal_stay_whole() -> None:
    short = "unknown scenario 'x'; known: a, b, c"
    assert short_known(short, picks=False) == short
    assert short_known("must be at least 1", picks=True) == "must be at least 1"


def test_a_long_path_keeps_its_last_folders() -> None:
    path = "/tmp/pytest-of-root/pytest-1034/test_agreement0/ws/.diptych"
    assert path_in_width(path, 80) == path
    assert path_in_width(path, 20) == "…/ws/.diptych"
    assert path_in_width(path, 34) == "…/test_agreement0/ws/.diptych"
    assert path_in_width(".diptych", 4) == ".diptych"

"""Every sentence that says what a pst-text figure's interval resamples follows the interval as
it was made: both identity lists, or — where it fell to its floor — its pairings of the
identities seen, for these identities only. With 2 identities a side on the scripted likelihood
model the paired expected STS and the feminine row's paired STS fall to their floor, while the
drawn labels' figures do not: the probe's opening paragraph (``diptych show``, the report's
Methods), the note under the table of figures and the note of "STS by stereotyped gender" say
so of the floored ones alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diptych.core.metrics.uncertainty.resampling import floor_words
from diptych.plugins.probes.pst_text.analysis import summary
from tests.support.cli import call

EXPECTED = "STS paired (expected from P(he), P(she))"
#: The floor's sentence for 2 × 2 identities: the 4 pairings of a masculine and a feminine one.
FLOOR = (
    "resampling its 4 pairings of a masculine identity and a feminine identity, so it speaks "
    "for these identities only: the identities varied no more than the pairings did (had they "
    "varied more, the interval would be wider and speak for identities like these)"
)


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.usefixtures("scripted_plugin")
def test_the_probes_words_follow_the_intervals_that_fell_to_their_floor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    store = ["--store", str(tmp_path / "ws")]
    code, ran = call(capsys, *store, "run", "pst-text", "-m", "scripted-likelihood",
                     "-p", "masculine=carpenter,driver", "-p", "feminine=nurse,editor")  # fmt: skip
    assert code == 0, ran
    run_id = next(w for w in ran.split() if w.startswith("pst-text-")).rstrip(":")
    code, shown = call(capsys, *store, "show", run_id)
    assert code == 0, shown
    out = tmp_path / "report"
    code, said = call(capsys, *store, "report", run_id, "--out", str(out))
    assert code == 0, said
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    md = _flat((out / "report.md").read_text(encoding="utf-8"))
    numbers = data["result"]["numbers"]
    assert numbers[EXPECTED]["floor"] == FLOOR
    assert not any(numbers[n].get("floor") for n in numbers if "drawn labels" in n)
    by_gender = data["result"]["data"]["scripted-likelihood"]["by_stereotype_over_identities"]
    assert by_gender["feminine"]["paired"]["floor"] == FLOOR
    others = [("masculine", "paired"), ("masculine", "single"), ("feminine", "single")]
    assert not any(by_gender[g][s].get("floor") for g, s in others)
    # The opening paragraph: the headline's lists named with the condition that failed for the
    # paired one, which is said; the drawn labels' interval over both lists, as it was.
    intro = (
        "its 95% interval resamples both identity lists where the identities varied more than "
        "their pairings did (identities like these; the interval over scenes alone, for these "
        "identities, is kept in report.json as scenes_only). The interval of STS paired "
        f"(expected from P(he), P(she)) fell to its floor instead, {FLOOR}. The STS of labels "
        "drawn from those probabilities follows as a secondary figure, its interval also over "
        "both identity lists (the interval over draws alone, for these identities, is kept as "
        "scenes_only)."
    )
    for text in (_flat(shown), md):
        assert intro in text, text
        assert "its 95% interval resamples both identity lists (identities" not in text
    # Under the table of figures, whose n column counts answers, not what the interval rests on.
    assert f"The interval of {EXPECTED} fell to its floor, {FLOOR}." in md
    # The table by stereotyped gender.
    assert (
        "Each interval resamples both identity lists where the identities varied more than "
        "their pairings did: a gender's persons vary with their own identities and, paired, "
        "with their partners'; the draws of one scene move with its identities. The interval "
        f"of the feminine row's paired STS fell to its floor instead, {FLOOR}."
    ) in md
    assert "as the headline STS's does" not in md


def test_a_floored_drawn_figure_is_said_so_in_the_opening_paragraph() -> None:
    floored = {"value": 10.0, "ci_low": -5.0, "ci_high": 25.0, "floor": floor_words(142, "a", "b")}
    over = {"value": 3.0, "ci_low": -9.0, "ci_high": 15.0}
    said = summary(True, {EXPECTED: over}, {"STS paired (drawn labels)": floored})
    assert "its 95% interval resamples both identity lists (identities like these;" in said
    assert said.endswith(
        "its interval also over both identity lists where the identities varied more than "
        "their pairings did (the interval over draws alone, for these identities, is kept as "
        "scenes_only). The interval of STS paired (drawn labels) fell to its floor instead, "
        "resampling its 142 pairings of a a and a b, so it speaks for these identities only: "
        "the identities varied no more than the pairings did (had they varied more, the "
        "interval would be wider and speak for identities like these)."
    )

"""pronoun-gap's tests, on diptych's own fixtures (tests/conftest.py turns them on)."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest
from diptych_pronoun_probe import HEADLINE, PronounGap, p_she

import diptych
from diptych.testing import contract


def test_the_installed_package_registers_the_probe() -> None:
    # Found through the entry point in pyproject.toml: the package is installed.
    assert diptych.load_plugins().probes["pronoun-gap"] is PronounGap


def test_the_probe_keeps_diptychs_contract() -> None:
    checked, failures = contract.check(contract.subject("probe", PronounGap))
    assert checked and not failures, "\n".join(failures)


def test_p_she_per_occupation_and_the_headline(
    run_probe: Any, scripted_model: Any, assert_round_trip: Any
) -> None:
    ran = run_probe(PronounGap(), scripted_model("text_likelihood"))
    expected = {}
    for spec in PronounGap().plan():
        answer = asyncio.run(
            scripted_model("text_likelihood").next_token_logprobs(
                spec.payload["prompt"], spec.payload["candidates"]
            )
        )
        expected[spec.meta["occupation"]] = p_she(answer)
    (by_occupation,) = ran.result.data.values()
    assert by_occupation == pytest.approx(expected)
    gaps = [abs(p - 0.5) for p in expected.values()]
    number = ran.result.numbers[HEADLINE]
    assert number["value"] == pytest.approx(sum(gaps) / len(gaps)) and number["n"] == len(gaps)
    assert min(gaps) <= number["ci_low"] <= number["value"] <= number["ci_high"] <= max(gaps)
    assert_round_trip(ran)


def test_from_run_asks_again_about_the_one_sided_occupations(
    run_probe: Any, scripted_model: Any, assert_round_trip: Any
) -> None:
    # Nurse is all but certain to be "she", pilot even: only nurse is one-sided.
    model = scripted_model("text_likelihood")
    model.enqueue({" he": math.log(0.02), " she": math.log(0.98)}, {" he": -0.7, " she": -0.7})
    first = run_probe(PronounGap(PronounGap.Params(occupations=["nurse", "pilot"])), model)
    again = run_probe(
        PronounGap(PronounGap.Params(occupations=["nurse", "pilot"], from_run=first.id)),
        scripted_model("text_likelihood"),
    )
    assert again.record.params["occupations"] == ["nurse"]
    assert again.record.params["from_run"] == first.id
    assert_round_trip(again)

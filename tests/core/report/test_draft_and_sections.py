"""The drafted narrative kept only where the results bear it out, and a third-party probe's
own section in the report (the example plugin, through the ``report_sections`` hook)."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from diptych.core import plugins
from diptych.core.probe import ProbeResult
from diptych.core.report.draft import Facts, SignificanceTest, check_sentence, verify
from diptych.core.workspace import Workspace
from diptych.testing import ScriptedChat, ScriptedLikelihood

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "diptych-pronoun-probe"

TESTS = [
    SignificanceTest("difference man − woman", (12.5, 3.1, 21.9, 0.012), significant=True),
    SignificanceTest("difference black − white", (1.2, -4.0, 6.4, 0.61), significant=False),
]
FACTS = Facts(
    numbers=[95.0, 0.05, 7.96, 0.32, 15.51, 160.0, 0.4512, *(n for t in TESTS for n in t.numbers)],
    tests=TESTS,
)


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        ("The paired STS is 7.96, with a 95% interval from 0.32 to 15.51.", True),
        ("The paired STS is about 8.0 over 160 pairs.", True),  # 7.96 to one decimal
        ("About 45% of answers lean one way.", True),  # 0.4512 as a percentage
        ("The paired STS is 8.4.", False),
        ("Men score 12.5 more than women, a significant difference (p = 0.012).", True),
        ("Men score 12.5 more than women, which is not significant.", False),
        ("The race difference of 1.2 is significant.", False),
        ("The race difference of 1.2 is not significant (p = 0.61).", True),
        ("The model shows a significant bias.", False),  # no test named
    ],
)
def test_each_sentence_is_checked_against_the_results(sentence: str, kept: bool) -> None:
    assert (check_sentence(sentence, FACTS) is None) is kept


def test_verify_splits_kept_and_dropped_with_reasons() -> None:
    draft = verify(
        "The paired STS is 7.96. It is 9.12 in truth. Decimals like 15.51 stay whole.",
        FACTS,
        "scripted-chat",
    )
    assert draft.kept == ["The paired STS is 7.96.", "Decimals like 15.51 stay whole."]
    (dropped,) = draft.dropped
    assert dropped.sentence == "It is 9.12 in truth." and "9.12" in dropped.reason


@pytest.fixture
def chat() -> ScriptedChat:
    return ScriptedChat()


def test_a_scripted_model_drafts_and_wrong_sentences_are_dropped(
    audit: Any, tmp_path: Path, chat: ScriptedChat
) -> None:
    with Workspace.open(audit.ws_path) as ws:
        text_run = audit.runs[0]
        numbers = ws.analysis.analyze(text_run).numbers
        sts = numbers["STS paired (expected from P(he), P(she))"]
        good = (
            f"The expected paired STS is {sts['value']:.2f}, with a 95% interval from "
            f"{sts['ci_low']:.2f} to {sts['ci_high']:.2f}."
        )
        bad = f"The expected paired STS is {sts['value'] + 3.7:.2f}."
        claim = "The model is significantly biased."
        chat.enqueue(f"{good} {bad}\n{claim}")
        ws.analysis.report([text_run], tmp_path, formats="md,json,html", draft_with=chat)
    data = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert data["draft"]["kept"] == [good]
    assert [d["sentence"] for d in data["draft"]["dropped"]] == [bad, claim]
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "Drafted by a model (" in md and good in md and f"“{bad}”" in md
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert 'class="drafted"' in html
    # The model saw the results it was to write about.
    (call,) = chat.history
    assert f"{sts['value']:.2f}" in call["messages"][1].content


@pytest.mark.slow
def test_smollm2_drafts_offline_and_only_checked_sentences_stay(audit: Any, tmp_path: Path) -> None:
    with Workspace.open(audit.ws_path) as ws:
        ws.analysis.report([audit.runs[0]], tmp_path, formats="json", draft_with="smollm2")
    draft = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["draft"]
    assert draft["drafted_by_model"]
    assert draft["kept"] or draft["dropped"], "SmolLM2 wrote something"
    for sentence in draft["kept"]:
        # Whatever SmolLM2 wrote, what is kept passes the check again from the stored report.
        assert "significan" not in sentence.lower() or "p =" in sentence


# --- a third-party probe's own section ------------------------------------------------------


def _example_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "diptych_pronoun_probe_source", EXAMPLE / "diptych_pronoun_probe" / "__init__.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def example() -> Iterator[ModuleType]:
    """The example plugin from its source: an installed copy (perhaps older) is set aside."""
    plugins.load_plugins()
    plugins.unregister_plugin("pronoun_probe")
    module = _example_module()
    name = plugins.register_plugin(module, "pronoun-probe-source")
    yield module
    plugins.unregister_plugin(name)
    sys.modules.pop("diptych_pronoun_probe_source", None)
    plugins.load_plugins(reload=True)


def test_the_example_plugins_section_appears_like_a_built_in_one(
    example: ModuleType, tmp_path: Path
) -> None:
    with Workspace.open(tmp_path / "ws") as ws:
        record = ws.runs.run_sync("pronoun-gap", [ScriptedLikelihood()])
        result: ProbeResult = ws.analysis.analyze(record.id)
        ws.analysis.report(record.id, tmp_path / "out")
    leaning = {m: by for m, by in result.data.items()}
    (by_occupation,) = leaning.values()
    she = sum(1 for p in by_occupation.values() if p > 0.5)
    title = example.LEANING_SECTION
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert f"#### {title}" in md
    assert f"| {record.models[0]['model_id']} | {she} | {len(by_occupation) - she} | 0 |" in md
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert f">{title}</h4>" in html
    data = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert [s["title"] for s in data["sections"]] == [title]

"""A story-mode gate bought one story a look (``--batches 1000``) against a service that writes
the stereotyped pronoun 80% of the time: no decision before the looks hold enough stories to
support an interval, where one story used to pass ``below 50`` on ``[0.00, 0.00]``."""

from __future__ import annotations

import json
import random
import re
import zlib
from pathlib import Path

import pytest

from diptych.testing.fake_openai import ChatRequest, FakeOpenAIServer
from tests.support.cli import call

MASCULINE = ("carpenter", "farmer", "guard")
FEMININE = ("nurse", "editor", "secretary")
#: 3 × 3 scenes in both orders: 18 stories, one request each.
STORIES = 18


def _pronouns_80(request: ChatRequest) -> str:
    """A story's pronouns: each person's stereotyped one with probability 0.8, seeded by the
    prompt so that a rerun gets the same answer."""
    text = request.texts[-1] if request.texts else ""
    rng = random.Random(zlib.crc32(text.encode("utf-8")))
    names = re.findall(r"one ([a-z ]+?)(?: and|\.)", text)
    answer = {"story": "Once upon a time."}
    for i, name in enumerate(names):
        stereotyped = "he" if name in MASCULINE else "she"
        other = "she" if stereotyped == "he" else "he"
        answer[f"pronoun_{i + 1}"] = stereotyped if rng.random() < 0.8 else other
    return json.dumps(answer)


def test_story_mode_one_story_a_look_never_decides_before_three(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer(chat_reply=_pronouns_80) as fake:
        code, out = call(
            capsys, "--store", str(tmp_path / "ws"), "run", "pst-text", "-m",
            "openai-compatible", "-M", f"base_url={fake.base_url}", "-M", "model=story-test",
            "-p", "mode=story", "-p", "setting=paired",
            "-p", "masculine=" + ",".join(MASCULINE), "-p", "feminine=" + ",".join(FEMININE),
            "--gate", "STS paired below 50", "--until-decided", "--batches", "1000", "--quiet",
        )  # fmt: skip
    looks = [line for line in out.splitlines() if line.startswith("look ")]
    assert len(looks) >= 3, out
    # One look a story: the first two hold one and two stories, too few to test.
    for line in looks[:2]:
        assert "INCONCLUSIVE" in line and "[—, —]" in line, line
    decided = [i for i, line in enumerate(looks) if "PASS" in line or "FAIL" in line]
    assert not decided or decided[0] >= 2
    stopped = next(line for line in out.splitlines() if line.startswith("stopped:"))
    assert f"of {STORIES} requests" in stopped
    assert code in (0, 1, 3), out

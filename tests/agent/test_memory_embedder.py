"""The bundled sentence model loads and embeds without a library progress bar of its own."""

from __future__ import annotations

import pytest

from diptych.agent.memory import SentenceEmbedder


def test_the_sentence_model_prints_no_progress_bar(capfd: pytest.CaptureFixture[str]) -> None:
    from transformers.utils import logging

    was = logging.is_progress_bar_enabled()
    vectors = SentenceEmbedder().embed(["a nurse and a pilot", "a baker and a judge"])
    out, err = capfd.readouterr()
    assert len(vectors) == 2 and len(vectors[0]) == 384
    assert "Loading weights" not in out + err
    assert "Batches" not in out + err
    # The switch is transformers' global: it is left as it was found.
    assert logging.is_progress_bar_enabled() == was

"""Every paid vision question has a price: estimated before the run from the token rule and
the price table, and taken from the service's token counts after each answer."""

from __future__ import annotations

import re
from types import SimpleNamespace

import openai  # noqa: F401  (the dev extra installs it; these plugins need it)
import pytest

from diptych.core.capabilities import Capability
from diptych.core.engine.pacing import Budget
from diptych.core.plugins import get_model
from diptych.plugins.models.openai_vision import MAX_TILES, prices_of, vision_prices

QUESTION = {"images": [{"blob": "ab"}], "text": "x" * 300, "sampling": {"max_tokens": 512}}


@pytest.fixture(autouse=True)
def _openai_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_the_table_names_its_source_and_date() -> None:
    table = vision_prices()
    assert all(
        p.source.startswith("https://") and p.read_on.year >= 2025 for p in table.models.values()
    )
    assert prices_of("gpt-4o-2024-08-06") == table.models["gpt-4o"]
    assert prices_of("gpt-4o-mini") == table.models["gpt-4o-mini"]
    assert prices_of("llava-13b") is None


def test_a_question_is_priced_at_most_what_openai_charges() -> None:
    gpt4o = prices_of("gpt-4o")
    assert gpt4o is not None
    price = get_model("openai-vision").price(Capability.VISION_CHAT, QUESTION)
    # 300 bytes of text (100 tokens at 3 bytes each), 8 format tokens, one image at the most
    # tiles (85 + 8 x 170 = 1445 tokens), 512 output tokens.
    expected = ((100 + 8 + 85 + MAX_TILES * 170) * gpt4o.input + 512 * gpt4o.output) / 1e6
    assert price == pytest.approx(expected)
    low = get_model("openai-vision", ["detail=low"]).price(Capability.VISION_CHAT, QUESTION)
    assert low == pytest.approx(((100 + 8 + 85) * gpt4o.input + 512 * gpt4o.output) / 1e6)
    elsewhere = get_model("openai-vision", ["base_url=http://127.0.0.1:9/v1"])
    assert elsewhere.price(Capability.VISION_CHAT, QUESTION) is None


def test_the_actual_cost_comes_from_the_services_token_counts() -> None:
    model = get_model("openai-vision")
    usage = SimpleNamespace(prompt_tokens=900, completion_tokens=40)
    facts = model._usage_cost(usage)  # type: ignore[attr-defined]
    assert facts["usage"] == {"input_tokens": 900, "output_tokens": 40}
    assert facts["cost_usd"] == pytest.approx((900 * 2.50 + 40 * 10.00) / 1e6)
    budget = Budget(1.0)
    estimate = model.price(Capability.VISION_CHAT, QUESTION)
    assert budget.reserve(estimate)
    budget.settle(estimate, facts["cost_usd"])
    assert budget.spent == pytest.approx(facts["cost_usd"])


def test_the_pairs_dry_run_on_openai_vision_prints_a_priced_estimate(tmp_path) -> None:
    import contextlib
    import io

    from diptych.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        with contextlib.suppress(SystemExit):
            main(
                [
                    "--store",
                    str(tmp_path / "ws"),
                    "run",
                    "pairs",
                    "-m",
                    "openai-vision",
                    "--dry-run",
                ]
            )
    text = out.getvalue()
    cost = re.search(r"estimated cost of the rest: \$([0-9.]+)", text)
    assert cost is not None, text
    assert float(cost.group(1)) > 1.0 and "no known price" not in text

"""A hostile service cannot hang or overcharge a run: Retry-After is obeyed only up to a cap, and
an answer paid for but unusable is bought again only within the allowance of paid retries.

Through the real openai SDK and plugin against the loopback fake service, which speaks
OpenAI's wire format (a 429 with Retry-After in seconds, as an HTTP date or in milliseconds; a
200 whose image is half a PNG, whose data is empty, or which holds a URL where the base64 image
was asked for).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from diptych.core.engine import PaidRetries, RetryPolicy, RunOptions, estimate, run_probe
from diptych.core.errors import PaidFailureError
from diptych.core.plugins import get_model, get_probe
from diptych.core.report.audit import cost_paid
from diptych.core.runview import RunView
from diptych.core.store import Store
from diptych.plugins.models.openai_images import OpenAIImages
from diptych.testing import FakeOpenAIServer
from diptych.testing.fake_openai import FaultKind
from diptych.testing.fake_openai.faults import RetryAfterForm

IMAGES = "/v1/images/generations"
FAST = RetryPolicy(max_attempts=6, base_delay=0.01, max_delay=0.02)
#: OpenAI's list price of one dall-e-3 standard 1024x1024 image (diptych/prompts/prices.yaml).
PRICE = 0.04


@pytest.fixture
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(image_size=(16, 16)) as server:
        yield server


@pytest.fixture
def priced(monkeypatch: pytest.MonkeyPatch) -> None:
    """openai-images on the fake priced as on OpenAI (the table prices only OpenAI's host)."""
    monkeypatch.setattr(OpenAIImages, "price", lambda self, capability, payload: PRICE)


def images(fake: FakeOpenAIServer) -> OpenAIImages:
    return OpenAIImages(OpenAIImages.Params(base_url=fake.base_url, model="dall-e-3"))


def run_images(store: Store, fake: FakeOpenAIServer, n: int, **options: Any) -> Any:
    """The scripted probe's image trials ("request 0", "request 1" ...), one at a time."""
    settings = RunOptions(**{"retry": FAST, "concurrency": 1, **options})
    probe = get_probe("scripted", {"n": n, "capability": "image_generator"})
    return run_probe(store, probe, [images(fake)], options=settings)


def by_prompt(store: Store, run_id: str) -> dict[str, Any]:
    results = store.run_results(run_id)
    return {t.payload["prompt"]: results.get(t.key) for t in store.trials(run_id)}


# --- Retry-After over the cap ---------------------------------------------------------------


@pytest.mark.parametrize("form", ["seconds", "http-date", "ms"])
def test_a_retry_after_over_the_cap_fails_the_trial_and_leaves_the_rest_for_a_resume(
    scripted: None, store: Store, fake: FakeOpenAIServer, form: RetryAfterForm
) -> None:
    fake.inject("rate_limit", retry_after=3600, retry_after_form=form, times=1)
    retry = RetryPolicy(max_attempts=6, base_delay=0.01, max_delay=0.02, max_retry_wait=5)
    run = run_images(store, fake, 3, retry=retry)
    stopped = by_prompt(store, run.id)["request 0"]
    assert stopped.status == "failed" and stopped.attempts == 1
    # An HTTP date is whole seconds from now: 3599 or 3600 s by the time it is read.
    waited = re.search(r"the service asked to wait (\d+(?:\.\d+)?) s", stopped.error)
    assert waited is not None and 3598 < float(waited.group(1)) <= 3600
    assert stopped.error.endswith("over --max-retry-wait 5; resume later")
    # No further request went to the model: its other two trials wait for a resume.
    assert fake.count(path=IMAGES) == 1
    assert store.status_counts(run.id) == {"done": 0, "refused": 0, "failed": 1, "pending": 2}
    assert run.status == "interrupted"
    resumed = run_images(store, fake, 3, retry=retry)
    assert resumed.status == "complete" and fake.count(path=IMAGES, status=200) == 3


def test_a_retry_after_up_to_the_cap_is_obeyed(
    scripted: None, store: Store, fake: FakeOpenAIServer
) -> None:
    fake.inject("rate_limit", retry_after=1, times=1)
    retry = RetryPolicy(max_attempts=6, base_delay=0.01, max_delay=0.02, max_retry_wait=1)
    run = run_images(store, fake, 1, retry=retry)
    assert run.status == "complete"
    limited, served = fake.requests
    assert limited.status == 429 and limited.answered_at is not None
    assert served.received_at - limited.answered_at >= 1.0


def test_the_cap_is_checked_before_a_wait() -> None:
    policy = RetryPolicy(max_retry_wait=300)
    assert policy.over_cap(None) is None and policy.over_cap(300) is None
    assert policy.over_cap(300.5) == (
        "the service asked to wait 300.5 s, over --max-retry-wait 300; resume later"
    )
    with pytest.raises(ValueError, match="max_retry_wait"):
        RunOptions(retry=RetryPolicy(max_retry_wait=float("nan")))
    with pytest.raises(ValueError, match="paid_retries"):
        RunOptions(paid_retries=-1)


# --- answers paid for but unusable ----------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("unreadable_image", "the service sent an unreadable image"),
        ("empty_data", "asked for 1 image(s), the service returned 0"),
        ("url_instead", "the service answered with a URL where the base64 image"),
    ],
)
def test_an_unusable_answer_is_a_paid_failure_with_its_reason_and_cost(
    scripted: None,
    store: Store,
    fake: FakeOpenAIServer,
    priced: None,
    kind: FaultKind,
    reason: str,
) -> None:
    fake.inject(kind, prompt_contains="request 0", times=None)
    run = run_images(store, fake, 2)
    failed = by_prompt(store, run.id)["request 0"]
    assert failed.status == "failed" and failed.attempts == 1
    assert failed.error.startswith(f"paid for, unusable ($0.04): {reason}")
    assert failed.error.endswith("(resume the run with --paid-retries N to buy it again)")
    assert failed.provenance["paid_unusable"] == 1 and failed.provenance["paid_failure"] is True
    assert failed.provenance["paid_unusable_cost_usd"] == pytest.approx(PRICE)
    assert run.status == "incomplete"
    # A resume leaves it alone: it would be paid for again.
    before = fake.count(path=IMAGES)
    again = run_images(store, fake, 2)
    assert fake.count(path=IMAGES) == before and again.status == "incomplete"


def test_paid_retries_within_a_run_stop_at_the_allowance(
    scripted: None, store: Store, fake: FakeOpenAIServer
) -> None:
    fake.inject("unreadable_image", prompt_contains="request 0", times=None)
    fake.inject("empty_data", prompt_contains="request 1", times=1)
    fake.inject("url_instead", prompt_contains="request 2", times=None)
    retry = RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.02)
    run = run_images(store, fake, 4, paid_retries=3, retry=retry)
    results = by_prompt(store, run.id)
    # request 0 uses two paid retries (3 answers, its most attempts), request 1 the third and
    # then succeeds; none is left for request 2, whose one answer stays a paid failure.
    assert fake.count(path=IMAGES, prompt="request 0") == 3
    assert results["request 0"].provenance["paid_unusable"] == 3
    assert results["request 1"].status == "done"
    assert results["request 1"].provenance["paid_unusable"] == 1
    assert "paid_failure" not in results["request 1"].provenance
    assert fake.count(path=IMAGES, prompt="request 2") == 1
    assert results["request 2"].status == "failed"
    assert results["request 3"].status == "done"
    assert fake.count(path=IMAGES, status=200) == 4 + 3


def test_a_resume_buys_stored_paid_failures_only_when_asked_and_keeps_the_count(
    scripted: None, store: Store, fake: FakeOpenAIServer, priced: None
) -> None:
    for prompt in ("request 0", "request 2"):
        fake.inject("unreadable_image", prompt_contains=prompt, times=1)
    run = run_images(store, fake, 3)
    assert store.status_counts(run.id)["failed"] == 2
    # One paid retry: the first paid failure in plan order is bought again (and is whole now).
    again = run_images(store, fake, 3, paid_retries=1)
    results = by_prompt(store, run.id)
    assert results["request 0"].status == "done"
    assert results["request 0"].provenance["paid_unusable"] == 1
    assert results["request 0"].provenance["paid_unusable_cost_usd"] == pytest.approx(PRICE)
    assert results["request 2"].status == "failed" and again.status == "incomplete"
    assert fake.count(path=IMAGES) == 3 + 1
    finished = run_images(store, fake, 3, paid_retries=5)
    assert finished.status == "complete" and fake.count(path=IMAGES) == 3 + 1 + 1


def test_max_cost_counts_paid_retries(
    scripted: None, store: Store, fake: FakeOpenAIServer, priced: None
) -> None:
    fake.inject("unreadable_image", prompt_contains="request 0", times=None)
    run = run_images(store, fake, 3, paid_retries=5, max_cost=0.13)
    # $0.13 buys three answers at $0.04: the first and two paid retries; the third retry, and
    # the other two trials, would pass it.
    assert fake.count(path=IMAGES) == 3
    failed = by_prompt(store, run.id)["request 0"]
    assert failed.provenance["paid_unusable"] == 3
    assert failed.error.startswith("paid for, unusable ($0.12)")
    assert run.status == "over-budget"
    assert store.status_counts(run.id) == {"done": 0, "refused": 0, "failed": 1, "pending": 2}
    # The report (and an audit's budget across its parts) counts what was paid for.
    assert cost_paid(RunView(store, run)) == pytest.approx(3 * PRICE)


def test_dry_run_counts_stored_paid_failures_and_paid_retries(
    scripted: None, store: Store, fake: FakeOpenAIServer, priced: None
) -> None:
    probe = get_probe("scripted", {"n": 3, "capability": "image_generator"})
    fresh = estimate(store, probe, [images(fake)], paid_retries=2)
    assert (fresh.to_run, fresh.cost) == (3, pytest.approx(3 * PRICE))
    assert fresh.paid_retries_left == 2 and fresh.paid_retry_cost == pytest.approx(2 * PRICE)
    fake.inject("unreadable_image", prompt_contains="request 0", times=None)
    fake.inject("unreadable_image", prompt_contains="request 1", times=None)
    run_images(store, fake, 3)
    seen = fake.total_requests
    plain = estimate(store, probe, [images(fake)])
    assert (plain.cached, plain.to_run, plain.paid_failed, plain.cost) == (1, 0, 2, 0.0)
    one = estimate(store, probe, [images(fake)], paid_retries=1)
    assert (one.to_run, one.paid_failed, one.paid_retries_left) == (1, 1, 0)
    assert one.cost == pytest.approx(PRICE) and one.paid_retry_cost == 0.0
    three = estimate(store, probe, [images(fake)], paid_retries=3)
    assert (three.to_run, three.paid_failed, three.paid_retries_left) == (2, 0, 1)
    assert three.cost == pytest.approx(2 * PRICE)
    assert three.paid_retry_cost == pytest.approx(PRICE)
    assert fake.total_requests == seen  # planning asks nothing


def test_a_service_reported_cost_is_what_a_paid_failure_records(
    scripted: None, store: Store
) -> None:
    model = get_model("scripted-images", {"price_per_call": 0.05})
    model.enqueue(PaidFailureError("no image", cost=0.07), PaidFailureError("no image"))  # type: ignore[attr-defined]
    probe = get_probe("scripted", {"n": 1, "capability": "image_generator"})
    run = run_probe(store, probe, [model], options=RunOptions(paid_retries=1, retry=FAST))
    [result] = store.run_results(run.id).values()
    # The service's own figure where it gave one, else the model's price: 0.07 + 0.05.
    assert result.provenance["paid_unusable_cost_usd"] == pytest.approx(0.12)
    assert (result.error or "").startswith("paid for, unusable ($0.12): no image")


def test_the_allowance_takes_the_budget_into_account() -> None:
    from diptych.core.engine import Budget

    budget = Budget(0.10, spent=0.04)
    allowance = PaidRetries(3)
    assert allowance.take(budget, 0.04) and allowance.take(None, 0.04)
    assert not allowance.take(budget, 0.04)  # 0.12 would pass $0.10
    assert allowance.used == 2 and budget.exhausted
    assert not PaidRetries(0).take(None, None)


async def test_vision_and_chat_without_choices_are_paid_failures(fake: FakeOpenAIServer) -> None:
    from PIL import Image

    from diptych.core.capabilities import Message, Sampling
    from diptych.plugins.models.openai_compat import OpenAICompatible
    from diptych.plugins.models.openai_vision import OpenAIVision

    fake.inject("empty_data", times=2)
    vision = OpenAIVision(OpenAIVision.Params(base_url=fake.base_url))
    with pytest.raises(PaidFailureError, match="no choices"):
        await vision.ask([Image.new("RGB", (8, 8))], "who is this?", Sampling())
    await vision.aclose()
    chat = OpenAICompatible(OpenAICompatible.Params(base_url=fake.base_url, model="gpt-4o"))
    with pytest.raises(PaidFailureError, match="no choices"):
        await chat.complete([Message(role="user", content="hello")], Sampling())
    await chat.aclose()
    assert [r.status for r in fake.requests] == [200, 200]


def test_an_annotation_pass_buys_an_unusable_answer_again_only_when_asked(
    scripted: None, store: Store
) -> None:
    from diptych.core.annotation import annotate_run
    from diptych.testing import ScriptedAnnotator

    subset = {"aspects": ["occupation"], "masculine": ["carpenter"], "feminine": ["nurse"]}
    run = run_probe(store, "pst", ["scripted-images"], probe_params=subset)
    first = ScriptedAnnotator()
    first.enqueue(PaidFailureError("the service answered with no choices"))
    summary = annotate_run(store, run.id, first, options=RunOptions(concurrency=1))
    # 8 images: the first answer was unusable, the other 7 labelled.
    assert (summary.asked, summary.failed, first.calls) == (8, 1, 8)
    again = ScriptedAnnotator()
    assert annotate_run(store, run.id, again).asked == 0 and again.calls == 0
    bought = ScriptedAnnotator()
    summary = annotate_run(store, run.id, bought, options=RunOptions(paid_retries=1))
    assert (summary.asked, summary.failed, bought.calls) == (1, 0, 1)

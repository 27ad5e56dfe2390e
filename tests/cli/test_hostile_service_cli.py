"""``diptych run`` and ``resume`` against a hostile service: --max-retry-wait caps a
Retry-After, --paid-retries is the allowance for buying unusable answers again, and --dry-run
says beforehand what a resume will buy."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.cli.main import main
from diptych.core.store import open_store
from diptych.testing import FakeOpenAIServer


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), " ".join((out + err).split())


def images(fake: FakeOpenAIServer, ws: Path, *extra: str) -> list[str]:
    return [
        "--store",
        str(ws),
        "run",
        "scripted",
        "-m",
        "openai-images",
        "-M",
        f"base_url={fake.base_url}",
        "-M",
        "model=dall-e-3",
        "-p",
        "n=3",
        "-p",
        "capability=image_generator",
        "--concurrency",
        "1",
        "--quiet",
        *extra,
    ]


def test_max_retry_wait_fails_the_trial_and_a_resume_finishes(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    with FakeOpenAIServer(image_size=(8, 8)) as fake:
        fake.inject("rate_limit", retry_after=7200, times=1)
        code, out = call(capsys, *images(fake, ws, "--max-retry-wait", "60"))
        assert code == 1
        assert "the service asked to wait 7200 s, over --max-retry-wait 60; resume later" in out
        assert "its trials not yet sent are left pending" in out
        with open_store(ws) as store:
            (run,) = store.list_runs()
            assert run.status == "interrupted"
        code, out = call(capsys, "--store", str(ws), "resume", run.id, "--quiet")
        assert code == 0 and fake.count(status=200) == 3


def test_paid_retries_on_resume_and_what_the_dry_run_says(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    with FakeOpenAIServer(image_size=(8, 8)) as fake:
        fake.inject("url_instead", prompt_contains="request 1", times=1)
        code, out = call(capsys, *images(fake, ws))
        assert code == 1
        assert "1 trials' answers were paid for, unusable" in out
        assert "resume the run with --paid-retries 1 to buy them again" in out
        code, out = call(capsys, *images(fake, ws, "--dry-run"))
        assert "3 trials planned, 2 already stored, 0 requests to run" in out
        assert "1 answers paid for but unusable are left as failed" in out
        code, out = call(capsys, *images(fake, ws, "--dry-run", "--paid-retries", "1"))
        assert "3 trials planned, 2 already stored, 1 request to run" in out
        with open_store(ws) as store:
            (run,) = store.list_runs()
        code, out = call(capsys, "--store", str(ws), "resume", run.id, "--quiet")
        assert code == 1 and fake.count() == 3  # a plain resume buys nothing again
        code, out = call(
            capsys, "--store", str(ws), "resume", run.id, "--paid-retries", "1", "--quiet"
        )
        assert code == 0 and fake.count() == 4


# --- an annotation pass against a service that refuses ----------------------------------------

CHAT = "/v1/chat/completions"
#: Two single-person occupation images (carpenter, editor): two vqa requests.
TWO_IMAGES = [
    "-p", "masculine=carpenter", "-p", "feminine=editor", "-p", "aspects=occupation",
    "-p", "setting=single", "-p", "samples_single=1",
]  # fmt: skip


def two_image_run(fake: FakeOpenAIServer, ws: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code, out = call(
        capsys, "--store", str(ws), "run", "pst", "-m", "openai-images",
        "-M", f"base_url={fake.base_url}", *TWO_IMAGES, "--quiet",
    )  # fmt: skip
    assert code == 0, out
    with open_store(ws) as store:
        (run,) = store.list_runs()
        assert store.status_counts(run.id)["done"] == 2
    return run.id


def vqa(fake: FakeOpenAIServer, ws: Path, run_id: str) -> list[str]:
    params = f'{{"base_url": "{fake.base_url}"}}'
    return [
        "--store", str(ws), "annotate", run_id, "--annotator", "vqa",
        "--model", "openai-vision", "-A", f"model_params={params}", "--quiet",
    ]  # fmt: skip


def test_an_annotation_whose_every_request_is_refused_exits_non_zero_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-right-0123456789")
    with FakeOpenAIServer(image_size=(8, 8), api_key="sk-right-0123456789") as fake:
        run_id = two_image_run(fake, ws, capsys)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-0123456789")
        with pytest.raises(SystemExit) as exit_info:
            main(vqa(fake, ws, run_id))
        _, err = capsys.readouterr()
        assert exit_info.value.code == 1
        (line,) = err.strip().splitlines()
        assert line.startswith("error: vqa:openai-vision@")
        rejected = "every request failed: PermanentModelError: The server rejected the API key"
        assert f"{rejected} (401)" in line
        assert "OPENAI_API_KEY" in line and "run the same command again" in line
        assert "sk-wrong-0123456789" not in line  # the key is never echoed whole
        assert fake.count(path=CHAT) == 2  # a 401 is not retried
        with open_store(ws) as store:
            assert [lab for lab in store.labels(run_id) if lab.kind == "automatic"] == []
        # With the right key the same command labels both images, asking each once more.
        monkeypatch.setenv("OPENAI_API_KEY", "sk-right-0123456789")
        code, out = call(capsys, *vqa(fake, ws, run_id))
        assert code == 0, out
        assert fake.count(path=CHAT) == 4
        with open_store(ws) as store:
            assert len([lab for lab in store.labels(run_id) if lab.kind == "automatic"]) == 2


def test_an_annotation_whose_some_requests_fail_says_how_many(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAIServer(image_size=(8, 8)) as fake:
        run_id = two_image_run(fake, ws, capsys)
        fake.inject("server_error", status=400, times=1, path=CHAT, message="unsupported image")
        with pytest.raises(SystemExit) as exit_info:
            main(vqa(fake, ws, run_id))
        out, err = capsys.readouterr()
        assert exit_info.value.code == 1
        assert "2 images (2 asked now, the rest stored), 1 labels" in " ".join(out.split())
        (line,) = err.strip().splitlines()
        assert line.startswith("error: vqa:openai-vision@")
        assert ": 1 of 2 images were not labelled, their requests failed: " in line
        assert "unsupported image" in line


def test_what_the_line_says_for_refusals_and_mixed_outcomes() -> None:
    # The vqa annotator turns a model's refusal into the person's label (it is an answer),
    # so a service's refusals of whole requests are shown on a summary directly.
    from diptych.cli.annotate_cmd import unlabelled_reason
    from diptych.core.workspace import AnnotationSummary

    refused = AnnotationSummary("judge", images=3, failed=3, refused=3, errors=["policy\nno"])
    assert unlabelled_reason(refused) == (
        "judge: every request was refused: policy no — the service will not label them: "
        "choose another annotator (--annotator NAME)"
    )
    mixed = AnnotationSummary("judge", images=5, failed=2, refused=1, errors=["x" * 400])
    line = unlabelled_reason(mixed)
    assert line.startswith("judge: 2 of 5 images were not labelled, their requests failed or "
                           "were refused: " + "x" * 299 + "… — fix the cause")  # fmt: skip

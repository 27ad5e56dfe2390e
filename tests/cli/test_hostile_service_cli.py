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
        assert "3 trials planned, 2 already stored, 0 to run" in out
        assert "1 answers paid for but unusable are left as failed" in out
        code, out = call(capsys, *images(fake, ws, "--dry-run", "--paid-retries", "1"))
        assert "3 trials planned, 2 already stored, 1 to run" in out
        with open_store(ws) as store:
            (run,) = store.list_runs()
        code, out = call(capsys, "--store", str(ws), "resume", run.id, "--quiet")
        assert code == 1 and fake.count() == 3  # a plain resume buys nothing again
        code, out = call(
            capsys, "--store", str(ws), "resume", run.id, "--paid-retries", "1", "--quiet"
        )
        assert code == 0 and fake.count() == 4

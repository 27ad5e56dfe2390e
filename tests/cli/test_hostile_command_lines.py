"""Hostile command lines: every one ends in one line on stderr and a usage exit, within
seconds, with no traceback and no unbounded memory.

The corpus holds the cases a hostile-user session found (deep nesting, binary and endless
files, format specs in templates, out-of-range overrides, NaN numbers, unreachable URLs, no
terminal, an empty database) and is walked through the real entry point, ``main``.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import pytest

from diptych.cli.main import main

#: Seconds after which a command line is taken to hang: a guard against an endless read, not a
#: measure of speed (a loaded machine takes several seconds to import an agent's packages).
LIMIT_S = 60


class Hung(BaseException):
    """Raised by the alarm: a BaseException, so that no handler in the CLI swallows it."""


@contextlib.contextmanager
def alarm(seconds: int) -> Iterator[None]:
    def ring(signum: int, frame: FrameType | None) -> None:
        raise Hung

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_cli(args: list[str]) -> tuple[int, str, float]:
    err = io.StringIO()
    started = time.monotonic()
    with (
        alarm(LIMIT_S),
        contextlib.redirect_stderr(err),
        contextlib.redirect_stdout(io.StringIO()),
    ):
        try:
            main(args)
            code = 0
        except SystemExit as done:
            code = int(done.code or 0)
    return code, err.getvalue(), time.monotonic() - started


def _deep_corpus(tmp: Path) -> list[str]:
    path = tmp / "deep.jsonl"
    path.write_text('{"group": "a", "text": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    return ["metrics", "pmi", "--raw", "--corpus", str(path)]


def _binary_audit(tmp: Path) -> list[str]:
    path = tmp / "audit.yaml"
    path.write_bytes(bytes(range(256)) * 16)
    return ["audit", "check", str(path)]


def _deep_yaml(tmp: Path) -> list[str]:
    path = tmp / "audit.yaml"
    path.write_text("name: x\nmodels: " + "[" * 20_000 + "]" * 20_000 + "\n")
    return ["audit", "check", str(path)]


def _deep_yaml_mapping(tmp: Path) -> list[str]:
    path = tmp / "audit.yaml"
    path.write_text("name: x\nmodels: " + "{a: " * 20_000 + "1" + "}" * 20_000 + "\n")
    return ["audit", "check", str(path)]


def _override_out_of_range(tmp: Path) -> list[str]:
    path = tmp / "audit.yaml"
    code, err, _ = run_cli(["audit", "init", str(path)])
    assert code == 0, err
    return ["audit", "run", str(path), "--set", "probes.99.params.x=1", "--quiet"]


def _duplicate_key(tmp: Path) -> list[str]:
    path = tmp / "audit.yaml"
    code, err, _ = run_cli(["audit", "init", str(path)])
    assert code == 0, err
    # A pasted line that would silently override the one above it.
    path.write_text(path.read_text() + "name: pasted-again\n")
    return ["audit", "check", str(path)]


def _json_past_depth(tmp: Path) -> list[str]:
    # Past the readers' limit (64) but far short of Python's recursion limit.
    path = tmp / "deep.jsonl"
    path.write_text('{"group": "a", "text": "x", "extra": ' + "[" * 65 + "]" * 65 + "}\n")
    return ["metrics", "pmi", "--raw", "--corpus", str(path)]


def _deep_set_value(tmp: Path) -> list[str]:
    path = tmp / "audit.yaml"
    code, err, _ = run_cli(["audit", "init", str(path)])
    assert code == 0, err
    return ["audit", "run", str(path), "--quiet", "--set", "name=" + "[" * 50_000 + "]" * 50_000]


def _empty_list_in_audit(tmp: Path) -> list[str]:
    path = tmp / "audit.yaml"
    path.write_text(
        "audit: 1\nname: x\nmodels:\n  target: {plugin: smollm2}\nprobes:\n"
        "  - {probe: pst-text, models: [target], params: {masculine: []}}\n"
    )
    return ["audit", "check", str(path)]


def _report(tmp: Path, files: dict[str, str] | None = None, *, sign: bool = False) -> Path:
    """A report's directory with a manifest (``files`` as it lists them: the real digests
    unless given), signed with a new key when ``sign``."""
    from diptych.core.evidence.manifest import Manifest, report_files

    report = tmp / "report"
    report.mkdir(exist_ok=True)
    if not (report / "report.md").exists():
        (report / "report.md").write_text("# report\n")
    listed = report_files(report) if files is None else files
    text = Manifest("2026-01-01T00:00:00Z", "auditor", "0", {"runs": ["x"]}, listed).text()
    (report / "manifest.json").write_text(text)
    if sign:
        key = _key(tmp, "signer")
        subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-f", str(key), "-n", "diptych-report",
                        str(report / "manifest.json")], check=True, stdin=subprocess.DEVNULL,
                       capture_output=True)  # fmt: skip
    return report


def _key(tmp: Path, name: str) -> Path:
    key = tmp / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)],
                   check=True, stdin=subprocess.DEVNULL)  # fmt: skip
    return key


SHA = "0" * 64


def _manifest_twice(tmp: Path) -> list[str]:
    report = _report(tmp)
    text = (report / "manifest.json").read_text()
    line = next(ln for ln in text.splitlines() if '"report.md"' in ln)
    (report / "manifest.json").write_text(text.replace(line, line + ",\n" + line.rstrip(",")))
    return ["verify", str(report)]


def _manifest_path(name: str) -> Callable[[Path], list[str]]:
    return lambda tmp: ["verify", str(_report(tmp, {name: SHA}))]


def _symlink_in_report(tmp: Path) -> list[str]:
    report = tmp / "report"
    report.mkdir()
    (tmp / "outside.md").write_text("# elsewhere\n")
    (report / "report.md").symlink_to(tmp / "outside.md")
    (report / "manifest.json").write_text(
        '{"date": "2026-01-01T00:00:00Z", "diptych_version": "0", "files": {"report.md": "'
        + SHA
        + '"}, "format": "diptych-report-manifest", "format_version": 1, "records": {},'
        ' "report": {"runs": ["x"]}, "signer": ""}'
    )
    return ["verify", str(report)]


def _symlinked_directory(tmp: Path) -> list[str]:
    # A directory of the report that is a link: what it holds may change without the report.
    report = _report(tmp)
    (tmp / "elsewhere").mkdir()
    (tmp / "elsewhere" / "x.png").write_bytes(b"\x89PNG")
    (report / "figures").symlink_to(tmp / "elsewhere", target_is_directory=True)
    return ["verify", str(report)]


def _signature_removed(tmp: Path) -> list[str]:
    report = _report(tmp, sign=True)
    (report / "manifest.json.sig").unlink()
    allowed = tmp / "allowed"
    allowed.write_text(f"auditor {(tmp / 'signer.pub').read_text()}")
    return ["verify", str(report), "--allowed-signers", str(allowed)]


def _oversized_signature(tmp: Path) -> list[str]:
    report = _report(tmp, sign=True)
    os.truncate(report / "manifest.json.sig", 64 * 1024**2)
    return ["verify", str(report), "--key", str(tmp / "signer.pub")]


def _allowed_signers(text: bytes | None) -> Callable[[Path], list[str]]:
    def make(tmp: Path) -> list[str]:
        allowed = tmp / "allowed"
        if text is not None:
            allowed.write_bytes(text)
        return ["verify", str(_report(tmp, sign=True)), "--allowed-signers", str(allowed)]

    return make


def _truncated_manifest(tmp: Path) -> list[str]:
    report = _report(tmp)
    text = (report / "manifest.json").read_text()
    (report / "manifest.json").write_text(text[: len(text) // 2])
    return ["verify", str(report)]


def _oversized_manifest(tmp: Path) -> list[str]:
    from diptych.core.evidence.manifest import MAX_MANIFEST_BYTES

    report = _report(tmp)
    # Sparse: the size a reader would have to take in, without the disk holding it.
    os.truncate(report / "manifest.json", MAX_MANIFEST_BYTES + 1)
    return ["verify", str(report)]


def _wrong_key(tmp: Path) -> list[str]:
    report = _report(tmp, sign=True)
    other = _key(tmp, "other")
    return ["verify", str(report), "--key", f"{other}.pub"]


def _no_key(tmp: Path) -> list[str]:
    return ["verify", str(_report(tmp, sign=True))]


def _sign_missing_key(tmp: Path) -> list[str]:
    from diptych.core.workspace import Workspace

    Workspace.open(tmp / "ws").close()
    return ["report", "x", "--out", str(tmp / "out"), "--sign", str(tmp / "nokey")]


def _static(*args: str) -> Callable[[Path], list[str]]:
    return lambda tmp: list(args)


DRY = ["--dry-run"]
CASES: dict[str, Callable[[Path], list[str]]] = {
    "pmi on 100k nested brackets": _deep_corpus,
    "audit check on a binary file": _binary_audit,
    "audit check on deeply nested YAML lists": _deep_yaml,
    "audit check on deeply nested YAML mappings": _deep_yaml_mapping,
    "audit run --set past the end of a list": _override_out_of_range,
    "format spec in a template": _static(
        "run",
        "pst",
        "-m",
        "openai-images",
        "-p",
        "power_wording={occupation:>99999999} {role}",
        *DRY,
    ),
    "conversion in a template": _static(
        "run", "pst", "-m", "openai-images", "-p", "power_wording={occupation!r} {role}", *DRY
    ),
    "sts labels from /dev/zero": _static("metrics", "sts", "--labels", "/dev/zero"),
    "pmi corpus from /dev/urandom": _static("metrics", "pmi", "--raw", "--corpus", "/dev/urandom"),
    "association from a directory": _static(
        "metrics", "association", "--compare", "gender", "--responses", "/"
    ),
    "label import from /dev/zero": _static("annotate", "x", "--import", "/dev/zero"),
    "audit check on /dev/zero": _static("audit", "check", "/dev/zero"),
    "tui without a terminal": _static("tui"),
    "--timeout nan": _static("run", "pst", "-m", "openai-images", "--timeout", "nan", *DRY),
    "--timeout inf": _static("run", "pst", "-m", "openai-images", "--timeout", "inf", *DRY),
    "--max-cost nan": _static("run", "pst", "-m", "openai-images", "--max-cost", "nan", *DRY),
    "--max-retry-wait nan": _static(
        "run", "pst", "-m", "openai-images", "--max-retry-wait", "nan", *DRY
    ),
    "--max-retry-wait inf": _static("resume", "x", "--max-retry-wait", "inf"),
    "--max-retry-wait -1": _static(
        "run", "pst", "-m", "openai-images", "--max-retry-wait", "-1", *DRY
    ),
    "--paid-retries -1": _static("run", "pst", "-m", "openai-images", "--paid-retries", "-1", *DRY),
    "--paid-retries 1e9": _static("resume", "x", "--paid-retries", "1e9"),
    "base_url not a URL": _static(
        "run", "pst", "-m", "openai-images", "-M", "base_url=not-a-url", *DRY
    ),
    "base_url with a bad port": _static(
        "run", "pst", "-m", "openai-vision", "-M", "base_url=http://h:port/v1", *DRY
    ),
    "escape sequence in an identity name": _static(
        "run", "pst", "-m", "openai-images", "-p", "masculine=\x1b[2J\x1b[31mnurse", *DRY
    ),
    "model timeout nan": _static("run", "pst", "-m", "openai-images", "-M", "timeout=nan", *DRY),
    "agent identities --probe bogus": _static("agent", "identities", "--probe", "bogus"),
    "duplicate key in an audit file": _duplicate_key,
    "JSON nested past the readers' limit": _json_past_depth,
    "--set value nested 50k deep": _deep_set_value,
    "empty identity list in an audit file": _empty_list_in_audit,
    "-p masculine= (an empty list)": _static(
        "run", "pst", "-m", "openai-images", "-p", "masculine=", *DRY
    ),
    "annotate --seed -1": _static(
        "annotate",
        "x",
        "--template",
        "t.csv",
        "--sample",
        "3",
        "--design",
        "uniform",
        "--seed",
        "-1",
    ),  # fmt: skip
    "annotate --seed 2^64": _static(
        "annotate", "x", "--template", "t.csv", "--sample", "3", "--seed", str(2**64)
    ),
    "agreement --seed -1": _static("agreement", "x", "--seed", "-1"),
    "compare --seed -1": _static("compare", "x", "y", "--seed", "-1"),
    "metrics sts --seed -1": _static("metrics", "sts", "--labels", "x.csv", "--seed", "-1"),
    "drill --seed -1": _static("doctor", "drill", "--seed", "-1"),
    "verify: a manifest listing a file twice": _manifest_twice,
    "verify: a manifest path with ../": _manifest_path("../secret.md"),
    "verify: a manifest path in a parent": _manifest_path("figures/../../x.md"),
    "verify: an absolute manifest path": _manifest_path("/etc/passwd"),
    "verify: a symlink in the report": _symlink_in_report,
    "verify: a truncated manifest": _truncated_manifest,
    "verify: a symlinked directory in the report": _symlinked_directory,
    "verify: a signed report whose signature was removed": _signature_removed,
    "verify: an oversized signature": _oversized_signature,
    "verify: --allowed-signers that does not exist": _allowed_signers(None),
    "verify: --allowed-signers of binary bytes": _allowed_signers(bytes(range(256))),
    "verify: --allowed-signers of no signer's line": _allowed_signers(b"not a key line\n"),
    "verify: an oversized manifest": _oversized_manifest,
    "verify: a wrong key": _wrong_key,
    "verify: a signed report and no key": _no_key,
    "verify: a --key that does not exist": _static("verify", ".", "--key", "/nonexistent.pub"),
    "verify: a directory that does not exist": _static("verify", "/nonexistent-report"),
    "report --sign with a missing key": _sign_missing_key,
    "report --sign without the json format": _static(
        "report", "x", "--format", "html", "--sign", "key"
    ),
    "report --signer without --sign": _static("report", "x", "--signer", "auditor"),
    "-p feminine=, (only commas)": _static(
        "run", "pst-text", "-m", "smollm2", "-p", "feminine=,", *DRY
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_command_line_is_one_line_and_never_hangs(case: str, tmp_path: Path) -> None:
    args = CASES[case](tmp_path)
    code, err, _ = run_cli(["--store", str(tmp_path / "ws"), *args])
    assert "Traceback" not in err, err
    assert code in (1, 2), (code, err)
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("error: ")
    assert "\x1b" not in err  # nothing the terminal would act on is echoed back


def test_an_empty_database_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "diptych.db").write_bytes(b"")
    for args in (["runs"], ["run", "pst", "-m", "openai-images", *DRY]):
        code, err, _ = run_cli(["--store", str(tmp_path / "ws"), *args])
        assert code == 1 and "empty (0 bytes)" in err and len(err.strip().splitlines()) == 1
    assert (tmp_path / "ws" / "diptych.db").stat().st_size == 0


def test_two_new_runs_in_one_millisecond_get_two_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diptych.core.engine import planning
    from diptych.core.engine.slots import ModelSlot
    from diptych.core.plugins import get_model, get_probe
    from diptych.core.store import open_store

    monkeypatch.setattr(planning.time, "time", lambda: 1_700_000_000.123)
    probe = get_probe("pst", ["aspects=occupation", "setting=single", "samples_single=1"])
    slots = [ModelSlot.of(get_model("openai-images"))]
    with open_store(tmp_path / "ws") as store:
        ids = {planning.find_or_create_run(store, probe, slots, new=True).id for _ in range(5)}
    assert len(ids) == 5


#: What each refused report says is wrong with it.
REFUSED_REPORTS = {
    "verify: a manifest listing a file twice": "lists 'report.md' twice",
    "verify: a manifest path with ../": "a path outside the report's directory",
    "verify: a manifest path in a parent": "a path outside the report's directory",
    "verify: an absolute manifest path": "a path outside the report's directory",
    "verify: a symlink in the report": "is a symbolic link",
    "verify: a truncated manifest": "is not whole JSON",
    "verify: a symlinked directory in the report": "is a symbolic link",
    "verify: a signed report whose signature was removed": "is unsigned (no manifest.json.sig)",
    "verify: an oversized signature": "far larger than a signature",
    "verify: --allowed-signers that does not exist": "--allowed-signers",
    "verify: --allowed-signers of binary bytes": "--allowed-signers",
    "verify: --allowed-signers of no signer's line": "lets no key sign as 'auditor'",
    "verify: an oversized manifest": "more than the 268,435,456 a manifest may have",
    "verify: a wrong key": "does not verify",
    "verify: a signed report and no key": "give --allowed-signers FILE or --key PUB",
    "report --sign with a missing key": "no such key file",
}


@pytest.mark.parametrize("case", sorted(REFUSED_REPORTS))
def test_a_refused_report_says_why_and_writes_nothing(case: str, tmp_path: Path) -> None:
    args = CASES[case](tmp_path)

    def files() -> dict[Path, int]:
        # SQLite's own -wal and -shm files, which opening a workspace makes, aside.
        return {
            p: p.stat().st_mtime_ns
            for p in tmp_path.rglob("*")
            if not p.is_symlink() and p.is_file() and not p.name.endswith(("-wal", "-shm"))
        }

    before = files()
    code, err, _ = run_cli(["--store", str(tmp_path / "ws"), *args])
    assert code in (1, 2) and REFUSED_REPORTS[case] in err, err
    assert files() == before
    assert not (tmp_path / "out").exists()

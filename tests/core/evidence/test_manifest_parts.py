"""The parts of a signed report worked out by hand: paths a manifest may name, OpenSSH's pattern
lists, numbers as a reader sees them, and when two computations of a figure agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diptych.core.errors import ManifestError
from diptych.core.evidence.manifest import (
    Manifest,
    canonical_text,
    check_path,
    first_difference,
    read_manifest,
    record_digest,
    report_paths,
)
from diptych.core.evidence.signing import _matches
from diptych.core.evidence.verify import (
    first_path_differing,
    first_printed_difference,
    html_text,
    printed_numbers,
)
from diptych.core.trials import sha256_hex


@pytest.mark.parametrize("name", ["report.md", "figures/run-a/example-1.png", "a b/c.svg"])
def test_a_path_inside_the_report_is_taken(name: str) -> None:
    check_path(name)


@pytest.mark.parametrize(
    "name",
    ["", "../x", "figures/../../x", "/etc/passwd", "./report.md", "figures//x.png", "a\\b",
     "C:x", "figures/", "x\x00y"],
)  # fmt: skip
def test_a_path_leaving_the_report_is_refused(name: str) -> None:
    with pytest.raises(ManifestError, match="outside the report's directory"):
        check_path(name)


def test_openssh_pattern_lists() -> None:
    assert _matches(["auditor@example.org"], "auditor@example.org")
    assert _matches(["*@example.org"], "auditor@example.org")
    assert not _matches(["*@example.org", "!mallory@example.org"], "mallory@example.org")
    assert not _matches(["auditor@example.org"], "auditor@example.org.evil")
    assert _matches(["diptych-*"], "diptych-report") and not _matches(["git"], "diptych-report")


def test_a_record_digest_is_the_sha256_of_its_compact_sorted_json() -> None:
    assert record_digest({"b": 1, "a": "é"}) == sha256_hex('{"a":"é","b":1}')


def test_the_manifest_text_is_canonical_and_round_trips(tmp_path: Path) -> None:
    made = Manifest(
        "2026-01-01T00:00:00Z",
        "auditor",
        "0.1.0",
        {"runs": ["r"]},
        {"report.md": "a" * 64, "figures/x.png": "b" * 64},
        {"label": {"r/1/left/human:ana": "c" * 64}, "blob": {"d" * 64: "e" * 64}},
    )
    text = made.text()
    assert text == canonical_text(json.loads(text))
    assert text.index('"blob"') < text.index('"label"')
    assert text.index('"figures/x.png"') < text.index('"report.md"')
    (tmp_path / "manifest.json").write_text(text)
    again, data = read_manifest(tmp_path)
    assert again == made and data == text.encode()


def test_a_difference_is_named_by_its_first_id_in_order() -> None:
    signed = {"a": "1", "b": "2", "c": "3"}
    assert first_difference("label", signed, dict(signed)) is None
    assert first_difference("label", signed, {**signed, "b": "9", "c": "9"}) == "label b changed"
    assert first_difference("label", signed, {"a": "1", "c": "3"}) == "label b is gone"
    assert first_difference("file", {"a": "1"}, {"a": "1", "z": "2"}) == (
        "file z is new (not in the signed manifest)"
    )


def test_two_computations_agree_within_a_sums_last_bits_not_beyond() -> None:
    x = 0.1 + 0.2 + 0.3
    y = 0.3 + 0.2 + 0.1  # the same sum in another order: 1 ulp apart
    assert x != y and first_path_differing({"v": x}, {"v": y}) is None
    assert first_path_differing({"v": 12.3}, {"v": 12.3 * (1 + 1e-7)}) == "v"
    assert first_path_differing({"ci": [1.0, 2.0]}, {"ci": [1.0, 2.5]}) == "ci/1"
    assert first_path_differing({"verdict": "pass"}, {"verdict": "fail"}) == "verdict"
    assert first_path_differing({"n": 3}, {"n": 3.0}) is None
    assert first_path_differing({"ok": True}, {"ok": 1}) == "ok"


def test_printed_numbers_leave_out_dates_times_and_commands() -> None:
    text = (
        "written 2026-11-29 06:28 · diptych 0.1.0\n"
        "STS is −0.55, with a 95% interval from −2.58 to 1.48, over 1,600 prompts.\n"
        "    diptych --store ../ws-2 report pst-1a2b\n"
    )
    # A version reads as numbers too ("0.1", "0"): the same in both texts, it agrees.
    assert [n for _, n in printed_numbers(text)] == [
        "0.1", "0", "−0.55", "95%", "−2.58", "1.48", "1,600",
    ]  # fmt: skip
    count, said = first_printed_difference("report.md", text, text.replace("−2.58", "−2.59"))
    assert count == 7 and said == "report.md line 2 prints −2.58 where the records give −2.59"


def test_the_text_of_a_page_leaves_out_styles_scripts_and_attributes() -> None:
    page = (
        '<style>p{margin:12px}</style><p title="3.14">STS &minus;0.55</p>'
        '<img src="data:image/png;base64,AAAA1234"><script>var x = 42;</script>'
    )
    assert html_text(page) == "STS −0.55"


def test_a_workspace_kept_beside_its_report_is_not_one_of_its_files(tmp_path: Path) -> None:
    # The demo writes its workspace into the report's folder: its database changes as it is
    # read (a -shm, a -wal, a lock), so a signature over it would fail the next verify.
    (tmp_path / "report.html").write_text("<p>report</p>", encoding="utf-8")
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "chart.svg").write_text("<svg/>", encoding="utf-8")
    workspace = tmp_path / ".diptych"
    workspace.mkdir()
    for name in ("diptych.db", "diptych.db-wal", "diptych.db-shm", ".setup.lock"):
        (workspace / name).write_bytes(b"x")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "diptych.db-wal").write_bytes(
        b"a folder without a database is the report's"
    )
    assert report_paths(tmp_path) == [
        "figures/chart.svg",
        "notes/diptych.db-wal",
        "report.html",
    ]

"""The Audit screen's list of recorded audits: every row names its audit by its id, as ``audit
list`` names it, so that no two rows read alike (a workspace holding the same command-line
audit twice) and each gives the id the commands take; a part's row in ``audit list``'s
words, an audit made on the command line said so, and a gate's interval named as ``audit
gate`` names it."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

from diptych.core.audit.record import AuditRecord, PartRecord
from diptych.core.audit.sequential import Look, PartLooks, SequentialSummary
from diptych.tui.screens.audit.rows import (
    gate_headers,
    interval_kind_cell,
    look_of,
    moved_line,
    recorded_lines,
    recorded_words,
)


def _audit(audit_id: str, name: str, path: str, at: float) -> AuditRecord:
    return AuditRecord(id=audit_id, name=name, file_hash="0" * 64, file_path=path,
                       file_text="", status="decided", report=None, created_at=at,
                       updated_at=at)  # fmt: skip


def test_every_recorded_audit_is_named_by_its_id() -> None:
    audits = [
        _audit("run-pst-text-0a8a1606b4", "run-pst-text", "(command line)", 1.0),
        _audit("release-1234567890", "release", "/elsewhere/release.yaml", 2.0),
        _audit("run-pst-text-8eb02130e2", "run-pst-text", "(command line)", 3.0),
    ]
    listed = recorded_lines(audits)
    assert [audit_id for _, audit_id in listed] == [a.id for a in reversed(audits)]
    lines = [line for line, _ in listed]
    assert len(set(lines)) == len(lines), lines
    assert lines == [
        "run-pst-text-8eb02130e2 · decided · (command line)",
        "release-1234567890 · decided · /elsewhere/release.yaml",
        "run-pst-text-0a8a1606b4 · decided · (command line)",
    ]


def test_a_command_line_audit_is_said_made_there_not_moved() -> None:
    made = _audit("run-pst-text-0a8a1606b4", "run-pst-text", "(command line)", 1.0)
    moved = _audit("release-1234567890", "release", "/elsewhere/release.yaml", 1.0)
    assert moved_line(made).startswith(
        "made on the command line by diptych run --gate; showing the definition recorded on "
    )
    assert moved_line(moved).startswith("file moved; showing the text recorded on ")


def test_a_part_bought_on_past_its_stop_is_in_its_runs_status() -> None:
    looks = PartLooks(10, 1, [Look(1, 164, 1640, {})], "decided")
    detail = {PartLooks.KEY: looks.to_dict()}
    part = PartRecord(0, "pst-text", "probe", "r", "decided", None, detail)
    plan = SimpleNamespace(parts=[])
    assert recorded_words(plan, [part]) == {  # type: ignore[arg-type]
        "pst-text": "decided at look 1 of 10: 164 of 1,640 requests, 1,476 saved"
    }
    now = [replace(part, status="interrupted")]
    assert recorded_words(plan, [part], now) == {"pst-text": "interrupted"}  # type: ignore[arg-type]


def test_a_gates_interval_is_named_as_audit_gate_names_it() -> None:
    sequential = SequentialSummary("decided", 1, 10, 164, 1640)
    assert look_of(SimpleNamespace(sequential=sequential)) == "look 1 of 10"
    # A look that read the whole design says so, as `audit gate` says it.
    whole = SequentialSummary("decided", 2, 10, 1640, 1640)
    assert look_of(SimpleNamespace(sequential=whole)) == "the whole design read at look 2"
    assert look_of(SimpleNamespace(sequential=None)) == ""
    assert interval_kind_cell("anytime-valid", "look 1 of 10") == "anytime-valid, look 1 of 10"
    assert interval_kind_cell("fixed-design", "") == "fixed-design"
    columns = ("verdict", "gate", "figure", "value", "interval", "level", "rule")
    assert gate_headers(columns, ["anytime-valid, look 1 of 10"] * 2)[3:6] == [
        "value",
        "anytime-valid interval, look 1 of 10",
        "level",
    ]
    assert gate_headers(columns, ["fixed-design"])[4] == "fixed-design interval"
    assert gate_headers(columns, []) == list(columns)
    # Made unlike: each gate's interval named in a column of its own.
    mixed = gate_headers(columns, ["anytime-valid, look 2 of 4", "fixed-design"])
    assert mixed[4:7] == ["interval", "interval kind", "level"]

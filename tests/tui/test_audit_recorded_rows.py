"""The Audit screen's list of recorded audits: no two rows read alike, so that a workspace
holding the same command-line audit twice (recorded before ``--report`` stopped counting as
part of it) offers two rows a user can tell apart, each named as ``audit list`` names it."""

from __future__ import annotations

from diptych.core.audit.record import AuditRecord
from diptych.tui.screens.audit.rows import recorded_lines


def _audit(audit_id: str, name: str, path: str, at: float) -> AuditRecord:
    return AuditRecord(id=audit_id, name=name, file_hash="0" * 64, file_path=path,
                       file_text="", status="decided", report=None, created_at=at,
                       updated_at=at)  # fmt: skip


def test_recorded_audits_that_read_alike_are_named_by_their_ids() -> None:
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
        "release · decided · /elsewhere/release.yaml",
        "run-pst-text-0a8a1606b4 · decided · (command line)",
    ]

"""``diptych audit list``: the audits recorded in the workspace, with their parts, each in the
words every listing of its run says (``diptych runs``): a part its gates decided names the look
and what stopping there saved, one bought on since names the look and what its run holds now.
A state has one wording, the same in the table and in the JSON's ``status_text``."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from diptych.audit.status_words import NOT_RUN, WAITING, audit_words
from diptych.cli.console import SafeConsole as Console
from diptych.cli.context import state
from diptych.cli.table_fit import fit_table
from diptych.core.audit.record import AuditRecord, PartRecord
from diptych.core.audit.run_status import listed_counts
from diptych.core.audit.sequential import PartLooks
from diptych.core.audit.stopped import COUNTS_RECORDED

#: From this width on the table has room for each audit's file hash (the JSON always has it).
WIDE = 100


def list_audits(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The audits recorded in the workspace, with their parts."""
    with state(ctx).open_workspace() as ws:
        # Each audit in its parts' runs' status now, in the words every surface says it
        # (:func:`~diptych.audit.status_words.audit_words`): an incomplete audit names its
        # failed trials and what asks them again; a decided one the look its gates stopped it
        # at and what that saved; a part of its file no run recorded is "not run" — "waiting"
        # while the audit runs — in the table and the JSON alike.
        recorded = ws.audits.list()
        worded = [audit_words(ws, a) for a in recorded]
        where = ws.path
    audits = [w.audit for w in worded]
    told = {w.audit.id: w.status for w in worded}
    said = {w.audit.id: w.parts for w in worded}
    waiting = {w.audit.id: w.named(WAITING) for w in worded}
    # The status each part was recorded in: its recorded counts are named in its words.
    then = {(a.id, p.name): p.status for a in recorded for p in a.parts}
    if as_json:
        rows = [
            {
                "id": a.id,
                "name": a.name,
                "file": a.file_path,
                "file_hash": a.file_hash,
                "status": a.status,
                "status_text": told[a.id],
                "report": a.report,
                "parts": [
                    part_json(p, said[a.id][p.name], then.get((a.id, p.name), p.status))
                    for p in a.parts
                ],
                "not_run": [n for n, words in said[a.id].items() if words == NOT_RUN],
                "waiting": waiting[a.id],
            }
            for a in audits
        ]
        typer.echo(json.dumps(rows, indent=2, default=str))
        return
    if not audits:
        # Nothing listed is said, with the command that records one (JSON: the empty list).
        typer.echo(f"No audits recorded in {where} yet: diptych audit run FILE records one.")
        return
    console = Console()
    console.print(audits_table(audits, told, said, console), markup=False)


def audits_table(
    audits: list[AuditRecord],
    told: dict[str, str],
    said: dict[str, dict[str, str]],
    console: Any,
) -> Any:
    """The audits as a table that fits the console's width: the audit's id never wraps (it is
    what a user copies), its status in its words; its parts by name, each with its own words
    unless every part's are the audit's (then they would say the same again). On a narrow
    terminal the file hash is left out, as ``diptych runs`` leaves out the creation time, and
    the other cells wrap between words, each look and count with its noun kept whole
    (:class:`~diptych.cli.kept_words.KeptWords`, as ``diptych runs`` keeps them)."""
    from rich import box
    from rich.table import Table

    from diptych.cli.kept_words import KeptWords, kept_together

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("audit", no_wrap=True)
    table.add_column("status")
    wide = console.width >= WIDE
    if wide:
        table.add_column("sha256", no_wrap=True)
    table.add_column("parts")
    for a in audits:
        status = told[a.id]
        # One part's own words beside another's bare name would read as both parts' ("pst-text,
        # identities waiting" while pst-text runs): named alone only where all say the same.
        same = all(words == status for words in said[a.id].values())
        parts = ", ".join(name if same else f"{name} {words}" for name, words in said[a.id].items())
        cells: list[Any] = [
            a.id,
            KeptWords(kept_together(status)),
            *([a.file_hash[:12]] if wide else []),
            KeptWords(kept_together(parts or "no part finished")),
        ]
        table.add_row(*cells)
    return fit_table(table, console)


def part_json(part: PartRecord, words: str, recorded: str | None = None) -> dict[str, Any]:
    """A part in ``audit list --json``: its record, its status in words (``status_text``:
    ``words``, as the table says it), its counts named as ``diptych runs --json`` names its
    run's (:func:`~diptych.core.audit.run_status.listed_counts`; those recorded before it moved
    on in the status it was recorded in, ``recorded``) and, where its gates decided it before
    its design was bought whole, the look (``look``: ``at`` of ``of``) and its design's
    requests ``bought``, ``planned`` and ``saved``."""
    out = {**vars(part), "status_text": words}
    detail = dict(part.detail)
    if isinstance(detail.get("counts"), dict):
        # Counted as ``diptych runs --json`` counts its run: a decided part's untried trials
        # are not bought, not pending.
        detail["counts"] = listed_counts(part.status, detail["counts"])
    then = detail.get(COUNTS_RECORDED)
    if isinstance(then, dict) and isinstance(then.get("counts"), dict):
        counts = listed_counts(recorded or part.status, then["counts"])
        detail[COUNTS_RECORDED] = {**then, "counts": counts}
    out["detail"] = detail
    looks = PartLooks.of(part.detail)
    last = looks.last if looks is not None else None
    if part.status == "decided" and looks is not None and last is not None:
        out["look"] = {"at": len(looks.looks), "of": looks.total}
        out["requests"] = {
            "bought": last.bought,
            "planned": last.planned,
            "saved": last.planned - last.bought,
        }
    return out

"""``diptych audit list``: the audits recorded in the workspace, with their parts, each in the
words every listing of its run says (``diptych runs``): a part its gates decided names the look
and what stopping there saved, one bought on since names the look and that it was bought on."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from diptych.cli.console import SafeConsole as Console
from diptych.cli.context import state
from diptych.cli.table_fit import fit_table
from diptych.core.audit.record import PartRecord
from diptych.core.audit.run_status import BOUGHT_ON, bought_on_words, status_text
from diptych.core.audit.sequential import PartLooks


def list_audits(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The audits recorded in the workspace, with their parts."""
    with state(ctx).open_workspace() as ws:
        # A part's run bought on after its gates stopped it is listed in the run's own status.
        audits = [ws.audits.as_now(a) for a in ws.audits.list()]
        # An incomplete audit's status names its failed trials and what asks them again; a
        # decided one the look its gates stopped it at and what that saved.
        told = {a.id: ws.audits.status_text(a) for a in audits}
        where = ws.path
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
                "parts": [part_json(p) for p in a.parts],
            }
            for a in audits
        ]
        typer.echo(json.dumps(rows, indent=2, default=str))
        return
    if not audits:
        # Nothing listed is said, with the command that records one (JSON: the empty list).
        typer.echo(f"No audits recorded in {where} yet: diptych audit run FILE records one.")
        return
    from rich import box
    from rich.table import Table

    # A table: on a narrow terminal the parts wrap between words and the audit's id stays whole.
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("audit", no_wrap=True)
    table.add_column("status")
    table.add_column("sha256", no_wrap=True)
    table.add_column("parts")
    for a in audits:
        said = {p.name: part_words(p) for p in a.parts}
        parts = ", ".join(f"{name} {words}" for name, words in said.items()) or "no part finished"
        status = next((said[p.name] for p in a.parts if a.status == p.status), a.status)
        # The audit's own words (its failed trials, the look that decided it) before its parts',
        # but not twice: where its only part says the same, its status in one word.
        if told[a.id] != a.status and told[a.id] not in said.values():
            status = told[a.id]
        elif told[a.id] in said.values():
            status = a.status
        table.add_row(a.id, status, a.file_hash[:12], parts)
    console = Console()
    console.print(fit_table(table, console), markup=False)


def part_words(part: PartRecord) -> str:
    """A part's status in ``audit list``: "decided at look 1 of 10: 164 of 1,640 requests,
    1,476 saved" where its gates decided it, "decided at look 1 of 10, bought on" where its run
    was bought on since, else its status."""
    looks = PartLooks.of(part.detail)
    if part.status == BOUGHT_ON:
        return bought_on_words(looks)
    return status_text(part.status, looks) if part.status == "decided" else part.status


def part_json(part: PartRecord) -> dict[str, Any]:
    """A part in ``audit list --json``: its record, its status in words (``status_text``) and,
    where its gates decided it before its design was bought whole, the look (``look``: ``at``
    of ``of``) and its design's requests ``bought``, ``planned`` and ``saved``."""
    out = {**vars(part), "status_text": part_words(part)}
    looks = PartLooks.of(part.detail)
    last = looks.last if looks is not None else None
    if part.status == "decided" and looks is not None and last is not None:
        out["look"] = {"at": len(looks.looks), "of": looks.batches}
        out["requests"] = {
            "bought": last.bought,
            "planned": last.planned,
            "saved": last.planned - last.bought,
        }
    return out

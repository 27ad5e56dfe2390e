"""``diptych export … --bundle`` and ``diptych import``: evidence carried between workspaces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from diptych.cli.context import state
from diptych.cli.paths import check_output_file, undone_if_failed, writing
from diptych.core.evidence.bundle import BundleLimits, check_bundle
from diptych.core.report.formatting import counted
from diptych.core.report.reproduce import kept_audit, report_command
from diptych.core.workspace import Workspace

_GB = 1024**3


def _mb(n: int) -> str:
    return f"{n / 1024**2:.1f} MB"


def records(counts: dict[str, int]) -> str:
    """A bundle's records by kind, each counted as every listing counts: "1 run, 1,720
    trials, 1,640 results" (a kind is named by its table: ``label_removals``)."""
    return ", ".join(
        counted(n, table.removesuffix("s").replace("_", " ")) for table, n in counts.items() if n
    )


def export_bundle(ctx: typer.Context, ref: str, bundle: Path, report_dir: Path | None) -> None:
    """Write the evidence bundle of the run or audit ``ref`` and say what it holds."""
    check_output_file(bundle, "--bundle")
    with state(ctx).open_workspace() as ws, writing(bundle):
        done = ws.bundles.export(ref, bundle, report_dir=report_dir)
    rows = records(done.rows)
    said = [
        f"bundle written: {done.path} ({_mb(done.archive_bytes)}; {_mb(done.member_bytes)} "
        "unpacked)",
        f"  runs: {', '.join(done.runs)}"
        + (f"; audits: {', '.join(done.audits)}" if done.audits else ""),
        f"  records: {rows}",
        f"  blobs: {done.blobs:,}; report files: {done.report_files:,}"
        + (" (with its signed manifest)" if done.report_signed else ""),
    ]
    if done.redacted:
        said.append(
            f"  left out as secrets (held or looked like them): {counted(done.redacted, 'value')}"
        )
    typer.echo("\n".join(said))


def register(app: typer.Typer) -> None:
    @app.command("import")
    def import_(
        ctx: typer.Context,
        bundle: Annotated[
            Path,
            typer.Argument(metavar="FILE", help="An evidence bundle (diptych export --bundle)."),
        ],
        max_gb: Annotated[
            float,
            typer.Option(
                "--max-gb",
                min=0.001,
                help="Refuse a bundle that unpacks to more than this (checked before unpacking).",
            ),
        ] = BundleLimits().total_bytes / _GB,
    ) -> None:
        """Import an evidence bundle into the workspace (a new one is made), offline: every
        member is checked against the bundle's manifest first, and only the records the
        workspace lacks are added, all at once."""
        limits = BundleLimits(
            total_bytes=int(max_gb * _GB),
            member_bytes=min(BundleLimits().member_bytes, int(max_gb * _GB)),
        )
        # A file that is no bundle is refused before a workspace is made for it; one refused
        # later (a member's SHA-256, a table) takes back the workspace made for it, so that
        # nothing is left where nothing was.
        check_bundle(bundle, limits=limits)
        place = state(ctx).store_path or Workspace.default_path()
        with undone_if_failed(place), state(ctx).open_workspace(create=True) as ws:
            done = ws.bundles.import_file(bundle, limits=limits)
            where = ws.path
        added = records(done.added) or "nothing new"
        present = sum(done.present.values())
        lines = [
            f"imported {bundle} into {where}: {added}; {counted(done.blobs_added, 'blob')} added"
            + (f"; already here: {counted(present, 'record')}" if present else ""),
            f"  runs: {', '.join(done.runs)}"
            + (f"; audits: {', '.join(done.audits)}" if done.audits else ""),
        ]
        if done.report is not None:
            lines.append(f"  report directory: {done.report}")
            # The report's own commands name the workspace it was written from (its text is
            # signed, so it stays as it is): the one that writes it again from this workspace.
            lines.append(
                "  its commands name the workspace it came from; to write it again from this "
                f"one: {report_command(done.runs, where, audit=_kept(done.report))}"
            )
        typer.echo("\n".join(lines))


def _kept(report: Path) -> str | None:
    """The audit whose gates an imported report showed (``--audit`` of its command), read from
    its report.json; None where it has none to read."""
    try:
        data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    scope = data.get("scope") if isinstance(data, dict) else None
    return kept_audit(scope if isinstance(scope, dict) else {})

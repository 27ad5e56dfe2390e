"""``diptych export … --bundle`` and ``diptych import``: evidence carried between workspaces."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from diptych.cli.context import state
from diptych.cli.paths import check_output_file, writing
from diptych.core.evidence.bundle import BundleLimits, check_bundle

_GB = 1024**3


def _mb(n: int) -> str:
    return f"{n / 1024**2:.1f} MB"


def export_bundle(ctx: typer.Context, ref: str, bundle: Path, report_dir: Path | None) -> None:
    """Write the evidence bundle of the run or audit ``ref`` and say what it holds."""
    check_output_file(bundle, "--bundle")
    with state(ctx).open_workspace() as ws, writing(bundle):
        done = ws.bundles.export(ref, bundle, report_dir=report_dir)
    rows = ", ".join(f"{n} {name}" for name, n in done.rows.items() if n)
    said = [
        f"bundle written: {done.path} ({_mb(done.archive_bytes)}; {_mb(done.member_bytes)} "
        "unpacked)",
        f"  runs: {', '.join(done.runs)}"
        + (f"; audits: {', '.join(done.audits)}" if done.audits else ""),
        f"  records: {rows}",
        f"  blobs: {done.blobs}; report files: {done.report_files}",
    ]
    if done.redacted:
        said.append(f"  {done.redacted} values that held or looked like secrets were left out")
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
        # A file that is no bundle is refused before a workspace is made for it.
        check_bundle(bundle, limits=limits)
        with state(ctx).open_workspace(create=True) as ws:
            done = ws.bundles.import_file(bundle, limits=limits)
            where = ws.path
        added = ", ".join(f"{n} {name}" for name, n in done.added.items() if n) or "nothing new"
        present = sum(done.present.values())
        lines = [
            f"imported {bundle} into {where}: {added}; {done.blobs_added} blobs added"
            + (f"; {present} records were already here" if present else ""),
            f"  runs: {', '.join(done.runs)}"
            + (f"; audits: {', '.join(done.audits)}" if done.audits else ""),
        ]
        if done.report is not None:
            lines.append(f"  report directory: {done.report}")
        typer.echo("\n".join(lines))

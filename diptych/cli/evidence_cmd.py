"""``diptych verify``: a signed report checked by anyone — its signature, its files, the
records it rests on, and every figure it states re-derived from them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from diptych.cli.context import state
from diptych.cli.paths import check_input_file
from diptych.core.workspace import Workspace
from diptych.core.workspace.evidence import check_signed, describe


def register(app: typer.Typer) -> None:
    @app.command("verify")
    def verify(
        ctx: typer.Context,
        report_dir: Annotated[
            Path,
            typer.Argument(metavar="DIR", help="The directory of a report written with --sign."),
        ],
        allowed_signers: Annotated[
            Path | None,
            typer.Option(
                "--allowed-signers",
                metavar="FILE",
                help="OpenSSH allowed-signers file naming who may sign reports "
                '(principal namespaces="diptych-report" KEY).',
            ),
        ] = None,
        key: Annotated[
            Path | None,
            typer.Option("--key", metavar="PUB", help="The signer's public key (.pub)."),
        ] = None,
    ) -> None:
        """Verify a signed report: its signature, every file and stored record its manifest
        lists, and every figure, interval and gate verdict it states, re-derived from the
        workspace's records (--store: the workspace the report came from, or one imported
        from its bundle). Writes nothing."""
        for path, option in ((allowed_signers, "--allowed-signers"), (key, "--key")):
            if path is not None:
                check_input_file(path, option, limit=1024**2)
        # The manifest, the signature and the report's files first: a report refused on them
        # never opens the workspace.
        check_signed(report_dir, allowed_signers=allowed_signers, key=key)
        where = state(ctx)
        # Read-only: verifying a report never changes the evidence it checks.
        with Workspace.open(
            where.store_path, create=False, read_only=True, chroma_url=where.chroma_url
        ) as ws:
            found = ws.evidence.verify(report_dir, allowed_signers=allowed_signers, key=key)
        for line in describe(found):
            typer.echo(line)

"""``Workspace.evidence``: a report's manifest signed, and a signed report verified — its
signature, its files, the stored records it rests on, and every figure it states re-derived
through the same analysis that wrote it."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diptych._version import __version__
from diptych.core.errors import DiptychError, EvidenceError, ManifestError
from diptych.core.evidence import manifest as mf
from diptych.core.evidence import signing
from diptych.core.evidence.records import collect_records
from diptych.core.evidence.verify import figures, first_printed_difference, html_text
from diptych.core.json_input import parse_json
from diptych.core.labels import LabelPolicy
from diptych.core.plugins import get_probe
from diptych.core.workspace.analysis import Analysis
from diptych.core.workspace.audits import Audits
from diptych.core.workspace.base import Kernel, Namespace

#: The formats verify makes again to compare: the PDF is checked by its digest alone.
_COMPARED = ("json", "md", "html")
#: The order records are compared in: a version changed explains every difference after it,
#: a run changed every trial of it, and so on down to what rests on the rest.
_KIND_ORDER = {
    kind: i
    for i, kind in enumerate(
        (
            "version",
            "run",
            "trial",
            "result",
            "blob",
            "build",
            "subject",
            "label",
            "removed",
            "note",
            "calibration",
            "audit",
            "look",
        )
    )  # fmt: skip
}


@dataclass
class Verification:
    """What ``verify`` found: who signed (None: unsigned), how many files and records agree,
    and how many figures and printed numbers were re-derived."""

    signer: str | None
    key: str | None
    date: str
    files: int
    records: int
    figures: int
    printed: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def signed(self) -> bool:
        return self.key is not None


class Evidence(Namespace):
    """Evidence: the manifest of a report (what it rests on, hashed), its SSH signature, and
    the verification that re-derives every figure from the raw records."""

    def __init__(self, kernel: Kernel, analysis: Analysis, audits: Audits) -> None:
        super().__init__(kernel)
        self._analysis = analysis
        self._audits = audits

    def _versions(self, run_ids: Sequence[str]) -> dict[str, str]:
        versions = {"diptych": __version__}
        for run_id in run_ids:
            run = self._kernel.get_run(run_id)
            versions[f"probe/{run.probe}"] = get_probe(run.probe, run.params).version
        return versions

    @staticmethod
    def signing_key(key: str | Path) -> tuple[str, str]:
        """The public key and the signer's name (its comment) of the SSH private key ``key``,
        checked before a report is written to be signed with it (:class:`ManifestError`)."""
        return signing.signing_key(Path(key))

    def manifest(
        self,
        report_dir: str | Path,
        run_ids: Sequence[str],
        *,
        signer: str,
        label_policy: LabelPolicy | None = None,
        formats: Sequence[str] = (),
        agent_sessions: Sequence[str] = (),
        drafted: bool = False,
    ) -> mf.Manifest:
        """The manifest of the report in ``report_dir`` of ``run_ids``: its files and every
        stored record it rests on, digested, dated now and naming ``signer``."""
        runs = [self._kernel.get_run(r).id for r in run_ids]
        return mf.Manifest(
            date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            signer=signer,
            diptych_version=self._versions(runs)["diptych"],
            report={
                "runs": runs,
                "label_policy": label_policy,
                "formats": sorted(formats),
                "agent_sessions": list(agent_sessions),
                "drafted": drafted,
            },
            files=mf.report_files(Path(report_dir)),
            records=collect_records(self._kernel.store, runs, self._versions(runs)),
        )

    def sign(
        self,
        report_dir: str | Path,
        run_ids: Sequence[str],
        key: str | Path | None,
        *,
        signer: str | None = None,
        label_policy: LabelPolicy | None = None,
        formats: Sequence[str] = (),
        agent_sessions: Sequence[str] = (),
        drafted: bool = False,
    ) -> Path:
        """Write ``manifest.json`` into the report's directory and, with ``key`` (an SSH
        private key), sign it with ``ssh-keygen -Y sign -n diptych-report`` into
        ``manifest.json.sig``; the manifest's path. ``signer`` defaults to the key's comment.
        Without a key the manifest is written unsigned."""
        directory = Path(report_dir)
        if key is not None:
            _, named = signing.signing_key(Path(key))
            signer = signer or named
        made = self.manifest(
            directory,
            run_ids,
            signer=signer or "",
            label_policy=label_policy,
            formats=formats,
            agent_sessions=agent_sessions,
            drafted=drafted,
        )
        path = directory / mf.MANIFEST
        (directory / mf.SIGNATURE).unlink(missing_ok=True)
        path.write_text(made.text(), encoding="utf-8")
        if key is not None:
            try:
                signing.sign_file(path, Path(key))
            except DiptychError:
                path.unlink(missing_ok=True)
                raise
        return path

    def verify(
        self,
        report_dir: str | Path,
        *,
        allowed_signers: str | Path | None = None,
        key: str | Path | None = None,
    ) -> Verification:
        """Check the report in ``report_dir``: its signature (against ``allowed_signers``, an
        OpenSSH allowed-signers file, or ``key``, one public key), every file and stored
        record its manifest lists, then every figure it states, made again from this
        workspace's records through the analysis that wrote it. Raises
        :class:`EvidenceError` naming the first thing that differs, :class:`ManifestError`
        when the manifest or a key cannot be used; writes nothing."""
        directory = Path(report_dir)
        manifest, fingerprint = check_signed(directory, allowed_signers=allowed_signers, key=key)
        runs = list(manifest.report["runs"])
        for run_id in runs:
            if self._kernel.store.run_with_id(run_id) is None:
                raise EvidenceError(
                    f"run {run_id} is not in the workspace {self._kernel.path}: verify against "
                    "the workspace the report came from (--store), or import its bundle"
                )
        records = collect_records(self._kernel.store, runs, self._versions(runs))
        kinds = set(manifest.records) | set(records)
        for kind in sorted(kinds, key=lambda k: (_KIND_ORDER.get(k, len(_KIND_ORDER)), k)):
            difference = mf.first_difference(
                kind, manifest.records.get(kind, {}), records.get(kind, {})
            )
            if difference is not None:
                raise EvidenceError(
                    f"{difference} since the report was signed: its figures rest on other "
                    "records now"
                )
        found = Verification(
            signer=manifest.signer or None,
            key=fingerprint,
            date=manifest.date,
            files=len(manifest.files),
            records=sum(len(v) for v in records.values()),
            figures=0,
        )
        self._rederive(directory, manifest, found)
        return found

    def _rederive(self, directory: Path, manifest: mf.Manifest, found: Verification) -> None:
        report = manifest.report
        stated_path = directory / "report.json"
        formats = [f for f in _COMPARED if f in report.get("formats", _COMPARED)]
        if "json" not in formats or not stated_path.is_file():
            raise EvidenceError(
                f"{directory} has no report.json, whose figures verify re-derives; sign a "
                "report written with the json format"
            )
        stated = _report_json(stated_path)
        runs = list(report["runs"])
        scope = self._audits.report_scope(runs)
        label_policy = report.get("label_policy")
        with tempfile.TemporaryDirectory(prefix="diptych-verify-") as tmp:
            again = Path(tmp) / "report"
            written = self._analysis.report_files(
                runs,
                again,
                label_policy=label_policy,
                formats=formats,
                scope=scope,
                gates=self._audits.report_gates if scope else None,
                agent_sessions=list(report.get("agent_sessions") or []),
                written=stated.get("written") if isinstance(stated, dict) else None,
                cwd=directory,
            )
            derived = _report_json(written["json"])
            compared = figures(stated, derived)
            for figure in compared:
                if not figure.agrees:
                    raise EvidenceError(
                        f"figure {figure.difference()}: the report does not state what its "
                        "records give"
                    )
            found.figures = len(compared)
            if report.get("drafted"):
                found.notes.append(
                    "the narrative a model drafted is checked by its digest alone: verify "
                    "makes no model write it again"
                )
                return
            for fmt, name, read in (
                ("md", "report.md", lambda t: t),
                ("html", "report.html", html_text),
            ):
                if fmt not in formats or not (directory / name).is_file():
                    continue
                stated_text = read((directory / name).read_text(encoding="utf-8"))
                derived_text = read(written[fmt].read_text(encoding="utf-8"))
                count, difference = first_printed_difference(name, stated_text, derived_text)
                if difference is not None:
                    raise EvidenceError(
                        f"{difference}: the report does not print what its records give"
                    )
                found.printed[name] = count


def _check_signature(
    directory: Path,
    manifest: mf.Manifest,
    data: bytes,
    allowed_signers: str | Path | None,
    key: str | Path | None,
) -> str | None:
    sig = directory / mf.SIGNATURE
    if allowed_signers is not None and key is not None:
        raise ManifestError("give --allowed-signers FILE or --key PUB, not both")
    if not sig.exists():
        if allowed_signers is not None or key is not None:
            raise EvidenceError(
                f"{directory} is unsigned (no {mf.SIGNATURE}), so no key can vouch for it; "
                "verify it without --key, or ask for the signed report"
            )
        return None
    if sig.is_symlink() or not sig.is_file():
        raise ManifestError(f"{sig} is not a regular file; copy the signature again")
    if allowed_signers is None and key is None:
        raise ManifestError(
            f"{directory} is signed by {manifest.signer!r}: give --allowed-signers FILE "
            "or --key PUB (the signer's public key) to check it"
        )
    if key is not None:
        keys = signing.keys_from_file(Path(key))
        against = f"the key in {key}"
    else:
        keys = signing.keys_from_allowed_signers(Path(str(allowed_signers)), manifest.signer)
        against = f"{allowed_signers}"
        if not keys:
            raise EvidenceError(
                f"{allowed_signers} lets no key sign as {manifest.signer!r} in the "
                f"{signing.NAMESPACE} namespace: the manifest's signer was changed after it "
                "was signed, or the file lacks the signer's key (add it only from the signer)"
            )
    if sig.stat().st_size > signing.MAX_KEY_FILE_BYTES:
        raise ManifestError(f"{sig} is far larger than a signature; copy it again")
    try:
        return signing.check_signature(data, sig.read_bytes(), keys, mf.MANIFEST)
    except EvidenceError as error:
        raise EvidenceError(f"{error} (checked against {against})") from None


def check_signed(
    report_dir: str | Path,
    *,
    allowed_signers: str | Path | None = None,
    key: str | Path | None = None,
) -> tuple[mf.Manifest, str | None]:
    """The manifest of the report in ``report_dir`` read as hostile input, and the fingerprint
    of the key that signed it (None: unsigned), checked against ``allowed_signers`` or ``key``;
    then every file of the report against its digest. Done before any workspace is opened, so
    that a report refused here leaves everything as it was."""
    directory = Path(report_dir)
    if not directory.is_dir():
        raise ManifestError(f"{directory}: no such directory; give a report's directory")
    manifest, data = mf.read_manifest(directory)
    fingerprint = _check_signature(directory, manifest, data, allowed_signers, key)
    # A file gone or added is named before any is read: one added, however large, is never
    # hashed (and a file listed is hashed a block at a time).
    present = dict.fromkeys(mf.report_paths(directory), "")
    difference = mf.first_difference("file", dict.fromkeys(manifest.files, ""), present)
    if difference is None:
        difference = mf.first_difference(
            "file", manifest.files, mf.report_files(directory, manifest.files)
        )
    if difference is not None:
        raise EvidenceError(f"{difference}: the report is not the one its manifest lists")
    return manifest, fingerprint


def _report_json(path: Path) -> dict[str, Any]:
    try:
        value = parse_json(path.read_text(encoding="utf-8"), f"{path}: ")
    except (ValueError, UnicodeDecodeError) as error:
        raise EvidenceError(f"{path} is not JSON ({error}); it is not the report signed") from None
    if not isinstance(value, dict):
        raise EvidenceError(f"{path} is not a report's JSON; it is not the report signed")
    return value


def describe(found: Verification) -> list[str]:
    """What ``diptych verify`` prints of a verification that held."""
    lines = []
    if found.signed:
        lines.append(f"signed by {found.signer} with {found.key} on {found.date}")
    else:
        lines.append(f"unsigned (manifest dated {found.date}): its digests hold, no key vouches")
    lines.append(f"{found.files} of {found.files} files and {found.records:,} records as signed")
    lines.append(f"{found.figures} of {found.figures} figures re-derived")
    for name, count in found.printed.items():
        lines.append(f"{count:,} of {count:,} numbers printed in {name} re-derived")
    lines += found.notes
    return lines

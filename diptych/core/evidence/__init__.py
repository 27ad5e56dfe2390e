"""Evidence: what a report rests on, hashed into a manifest the auditor signs with an SSH key,
and the pieces ``verify`` uses to re-derive every figure the report states.

:mod:`.manifest` (the manifest as canonical JSON, read as hostile input), :mod:`.records` (the
stored records a report rests on, one digest each), :mod:`.signing` (SSHSIG signatures through
``ssh-keygen`` and ``sshsig``) and :mod:`.verify` (a report's figures and printed numbers
against the same report made again). ``Workspace.evidence`` puts them together.

:mod:`.bundle` carries a run's or an audit's records, blobs and report directory to another
workspace in open formats (Parquet tables, a manifest of SHA-256 digests), offline
(``Workspace.bundles``).
"""

from __future__ import annotations

from diptych.core.evidence.manifest import MANIFEST, SIGNATURE, Manifest, read_manifest
from diptych.core.evidence.signing import NAMESPACE

__all__ = ["MANIFEST", "NAMESPACE", "SIGNATURE", "Manifest", "read_manifest"]

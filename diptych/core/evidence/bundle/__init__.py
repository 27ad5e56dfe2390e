"""A portable evidence bundle: a run's or an audit's records in open formats, its images and
long texts by content hash, its report directory, and a manifest of every member's SHA-256.

``diptych export RUN|AUDIT --bundle FILE`` writes one (:func:`write_bundle`);
``diptych import FILE`` reads one into a workspace (:func:`import_bundle`), refusing a bundle
that is damaged, altered, oversized or that names paths outside the workspace, and adding only
what the workspace lacks. The layout is in :mod:`.layout`.
"""

from diptych.core.evidence.bundle.layout import (
    BUNDLE_FORMAT,
    FORMAT_VERSION,
    MANIFEST_NAME,
    BundleError,
    BundleLimits,
)
from diptych.core.evidence.bundle.load import ImportSummary, check_bundle, import_bundle
from diptych.core.evidence.bundle.write import ExportSummary, write_bundle

__all__ = [
    "check_bundle",
    "BUNDLE_FORMAT",
    "FORMAT_VERSION",
    "MANIFEST_NAME",
    "BundleError",
    "BundleLimits",
    "ExportSummary",
    "ImportSummary",
    "import_bundle",
    "write_bundle",
]

"""The errors diptych raises on purpose.

Every message is written for the person at the keyboard: it says what went wrong and what to do.
The CLI prints ``str(error)`` as one line and exits non-zero; ``--debug`` adds the traceback.
"""

from __future__ import annotations


class DiptychError(Exception):
    """Base class: a problem the user can act on."""

    exit_code = 1


class UsageError(DiptychError):
    """A command, probe, model or parameter was named wrongly."""

    exit_code = 2


class UnknownPluginError(UsageError):
    """No probe, model or annotator is registered under the given name."""


class ParameterError(UsageError):
    """A plugin parameter is unknown or has a value of the wrong kind."""


class InputFileError(UsageError):
    """An input file (labels, responses, corpus) is missing or malformed."""


class MixedBuildError(UsageError):
    """Resuming a run on another backend build than the one its stored results came from,
    with ``--same-build``."""


class StoreError(DiptychError):
    """The workspace cannot be opened or is not one this version can read."""


class RunNotFoundError(StoreError):
    """No run with the given id exists in the workspace: bad input, as a wrongly named probe
    is (exit 2)."""

    exit_code = 2


class WorkspaceNotFoundError(StoreError):
    """A command that reads a workspace was pointed at a path that holds none."""

    exit_code = 2


class ReadOnlyWorkspaceError(StoreError):
    """The workspace may be read but not written (an archived audit, a read-only mount)."""


class BlobCorruptError(StoreError):
    """A stored blob no longer matches its sha256 (damaged on disk): it is set aside, never
    used, and the trial that made it runs again on resume."""


class StoreDamagedError(StoreError):
    """The workspace's database file cannot be read (damaged, truncated, not a file): it is
    left as it is, never repaired, deleted or written over."""


class StoreFullError(StoreError):
    """The disk holding the workspace is full: the run stops, and resumes once space is freed."""

    @classmethod
    def of_disk(cls, workspace: object, why: str) -> StoreFullError:
        """The one line for a write to ``workspace`` that found its disk full: where, and what
        to do (the command's own rerun resumes it: ``run``, ``audit run``, an agent session)."""
        return cls(
            f"the disk holding the workspace {workspace} is full ({why}): free some space "
            "there, then run the same command again; it resumes from what was stored"
        )


class RunStoppedError(DiptychError):
    """The process is shutting down (its thread pools take no more work): the run stops as if
    interrupted, its unsent trials stay pending, and a resume asks them."""


class AnnotationFailedError(DiptychError):
    """An annotation pass left images unlabelled: their requests failed or were refused."""


class ModelLoadError(DiptychError):
    """A model could not be loaded (missing weights, missing extra, bad path)."""


class MissingDependencyError(ModelLoadError):
    """An optional dependency of a plugin is not installed."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        super().__init__(f"{purpose} needs the '{package}' package: pip install 'diptych[{extra}]'")
        self.package = package
        self.extra = extra


class CapabilityError(UsageError):
    """A probe asks for a capability the chosen model does not offer."""


# --- outcomes of a single model call, used by the engine --------------------------------------


class ModelCallError(Exception):
    """A model call failed; subclasses tell the engine what to do about it."""


class TransientModelError(ModelCallError):
    """Worth retrying: rate limits, 5xx, timeouts, dropped connections.

    ``retry_after`` (seconds) is honoured when the service said how long to wait.
    ``maybe_charged``: the request reached the service and may have been carried out and paid
    for (a read timeout, a connection dropped after sending), unlike a 429, a 5xx or a refused
    connection; the engine does not repeat such a request to a paid service unless told to.
    """

    def __init__(
        self, message: str, retry_after: float | None = None, *, maybe_charged: bool = False
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.maybe_charged = maybe_charged


class RefusalError(ModelCallError):
    """The model or service declined the request (e.g. a content-policy refusal).

    A terminal outcome: stored as ``refused`` with the service's message and never retried.
    """


class PermanentModelError(ModelCallError):
    """The request can never succeed as sent (bad request, context too long)."""


class PaidFailureError(ModelCallError):
    """The service answered (HTTP 200, so it charged for the answer) but the answer cannot be
    used: an image that cannot be read, no data, a URL where the bytes were asked for.

    Another request would be paid for again, so the engine stores the trial as failed, with
    this reason and the cost, and buys it again only within the run's budget of paid retries
    (``--paid-retries``, none by default). ``cost`` (USD) is what the service said the answer
    cost, where it said; None: the model's price for the request is counted.
    """

    def __init__(self, message: str, *, cost: float | None = None) -> None:
        super().__init__(message)
        self.cost = cost


class EvidenceError(DiptychError):
    """A signed report does not bear out: its signature does not verify, a file or a stored
    record it rests on changed, or a figure it states is not what its records give."""


class ManifestError(UsageError):
    """A report's manifest cannot be read as one (truncated, oversized, a file listed twice,
    a path leaving the report's directory), or a signing key is missing or unusable."""

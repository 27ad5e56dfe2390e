"""Drills: show, rather than argue, that nothing is lost or paid twice under faults and kills.

Each drill works in a scratch workspace of its own, through the :class:`Workspace` like any
front end, and returns a small record of what it tried and what (if anything) went wrong:

* :func:`fault_drill` -- a share of a service's answers are errors (429 with Retry-After, 500,
  timeouts, dropped connections, truncated bodies): the run completes, every trial ends
  ``done``, ``refused`` or ``failed`` with its reason, and no image is paid for twice;
* :func:`kill_point` -- a run killed with SIGKILL after N model calls, then resumed: nothing
  finished is lost or asked again, and SQLite's integrity check passes;
* :func:`annotation_kill`, :func:`session_kill`, :func:`import_kill` -- the same for an
  annotation pass, an agent session and a label import: nothing finished is lost or asked
  again, every imported row is stored once;
* :func:`blob_drill` -- a blob damaged or deleted on disk is caught on read and fetched again
  on resume; a full disk stops a run cleanly, and it resumes;
* :func:`disk_full_drill` -- the database fills half-way through a paid run and gets room back:
  every answer received is held in memory and stored, none is paid twice;
* :func:`retry_after_drill` -- the service asks to wait an hour (Retry-After in seconds, as an
  HTTP date, in milliseconds): no trial waits past the run's cap, each fails with the reason,
  and a resume finishes them;
* :func:`bad_success_drill` -- the service answers 200 with an unreadable image, no data or a
  URL instead of the image: each is stored as a paid failure and bought again only within the
  allowance of paid retries;
* :func:`sigterm_drill` -- a run stopped by SIGTERM stops as Ctrl-C stops it: "interrupted",
  its lease given back, and a resume at once finishes it.

``diptych doctor drill`` runs them on an auditor's own machine; the test suite and ``make
bench`` run them too. They are testing tools beside the scripted models and the fake service of
:mod:`diptych.testing`, not part of the core they exercise; importing :mod:`diptych.testing`
does not import them.
"""

from diptych.testing.drills.bad_success import BadSuccessDrill, bad_success_drill
from diptych.testing.drills.blobs import BlobDrill, blob_drill
from diptych.testing.drills.disk import DiskFullDrill, disk_full_drill
from diptych.testing.drills.faults import FaultDrill, FaultService, fault_drill
from diptych.testing.drills.kills import KillPoint, kill_point
from diptych.testing.drills.label_kills import LabelKill, annotation_kill, import_kill
from diptych.testing.drills.retry_after import RetryAfterDrill, retry_after_drill
from diptych.testing.drills.session_kills import SessionKill, session_kill
from diptych.testing.drills.sigterm import SigtermDrill, sigterm_drill

__all__ = [
    "BadSuccessDrill",
    "BlobDrill",
    "DiskFullDrill",
    "FaultDrill",
    "FaultService",
    "KillPoint",
    "LabelKill",
    "RetryAfterDrill",
    "SessionKill",
    "SigtermDrill",
    "annotation_kill",
    "bad_success_drill",
    "blob_drill",
    "disk_full_drill",
    "fault_drill",
    "import_kill",
    "kill_point",
    "retry_after_drill",
    "session_kill",
    "sigterm_drill",
]

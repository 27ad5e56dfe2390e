"""The Review screen's messages: from its workers to the screen, and to the app that hosts it.

Each is named as if declared inside the screen (namespace ``review_screen``), so that a host
handles them as ``on_review_screen_image_shown`` and so on, and the screen holds them as its own
(``ReviewScreen.ImageShown``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from diptych.core.probe import Probe
from diptych.tui.review.prefetch import Decoded
from diptych.tui.review.queue import ReviewItem


@dataclass
class QueueLoaded(Message, namespace="review_screen"):
    """The queue as read from the workspace; ``replace`` drops items no longer listed;
    ``labelled_by`` the people each annotator labelled in the whole run (the header's count)."""

    run_id: str
    probe: Probe
    items: list[ReviewItem]
    replace: bool
    labelled_by: dict[str, frozenset[int]] = field(default_factory=dict)


@dataclass
class ImageDecoded(Message, namespace="review_screen"):
    """An image of the queue is decoded and scaled, ready to draw."""

    sha: str
    decoded: Decoded


@dataclass
class ImageShown(Message, namespace="review_screen"):
    """The current person's output has been drawn (``blob`` None for a text output)."""

    subject_id: int
    blob: str | None


@dataclass
class LabelSaved(Message, namespace="review_screen"):
    """A label is in the store (posted again when its note changed and it was stored again
    with it)."""

    subject_id: int
    annotator: str
    label: str


@dataclass
class MetricsUpdated(Message, namespace="review_screen"):
    """The probe's headline numbers, recomputed with the labels stored so far."""

    numbers: dict[str, dict[str, Any]]

"""Decoded, scaled images for the Review screen, ready before the reviewer asks for them.

A generated image is a 1024×1024 PNG of a megabyte or more: decoding and scaling it takes tens
of milliseconds, which a reviewer pressing "next" would feel. The screen asks worker threads to
:func:`decode_scaled` the next few images of the queue while the reviewer looks at the current
one, and keeps the results here, so "next" only hands an already small image to the widget.

Images are scaled to the pixel size of the area they are drawn in (cells × the terminal's cell
size in pixels), not to cells: that is what a Sixel or Kitty terminal draws, and the half-block
renderer scales the small image down to cells at almost no cost. The cache is touched only from
the UI thread; the threads only decode.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

#: (width, height) in pixels.
Box = tuple[int, int]


#: Stands for "any size": an image that was not shrunk is as sharp as it will ever be.
UNLIMITED: Box = (1 << 30, 1 << 30)


@dataclass(frozen=True)
class Decoded:
    """A decoded image and the largest box it is sharp for."""

    image: Image.Image
    sharp_up_to: Box


def decode_scaled(path: Path, box: Box) -> Decoded:
    """The image at ``path`` as RGB, shrunk (aspect kept) to fit ``box``; never enlarged."""
    with Image.open(path) as opened:
        # A JPEG decodes straight to a smaller size; a PNG ignores this and decodes in full.
        opened.draft("RGB", box)
        image = opened.convert("RGB")
    if image.width <= box[0] and image.height <= box[1]:
        return Decoded(image, UNLIMITED)
    # reducing_gap: a fast integer reduce first, then a bilinear resize of what is left.
    image.thumbnail(box, Image.Resampling.BILINEAR, reducing_gap=2.0)
    return Decoded(image, box)


class ImageCache:
    """The last few decoded images by blob sha, least recently used dropped first."""

    def __init__(self, capacity: int = 16) -> None:
        self.capacity = capacity
        self._images: OrderedDict[str, Decoded] = OrderedDict()
        #: Shas being decoded now, so an image is not decoded twice at once.
        self.pending: set[str] = set()

    def get(self, sha: str, box: Box) -> Image.Image | None:
        """The cached image if it is sharp enough for ``box``, else None."""
        entry = self._images.get(sha)
        if entry is None or entry.sharp_up_to[0] < box[0] or entry.sharp_up_to[1] < box[1]:
            return None
        self._images.move_to_end(sha)
        return entry.image

    def best(self, sha: str) -> Image.Image | None:
        """The cached image at whatever sharpness it has: shown while a sharper one decodes,
        rather than a "loading" message."""
        entry = self._images.get(sha)
        return None if entry is None else entry.image

    def put(self, sha: str, decoded: Decoded) -> None:
        self._images[sha] = decoded
        self._images.move_to_end(sha)
        while len(self._images) > self.capacity:
            self._images.popitem(last=False)

    def __contains__(self, sha: object) -> bool:
        return sha in self._images

    def __len__(self) -> int:
        return len(self._images)


def around(view: Sequence[int], cursor: int, ahead: int) -> list[int]:
    """What to decode before the reviewer asks for it: the next ``ahead`` people of ``view``
    after ``cursor``, then the one before it (a step back is common too)."""
    at = view.index(cursor)
    return [*view[at + 1 : at + 1 + ahead], *view[max(0, at - 1) : at]]

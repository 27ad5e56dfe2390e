"""The image under review: the person being labelled marked on it, and the system viewer.

An image of two people is labelled one person at a time; the half the current person stands
in is framed, so a reviewer never labels the wrong one. The frame is drawn on a copy at the
size already decoded (the cached image stays clean for the other person of the same image).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from PIL import Image, ImageDraw

#: The frame's colour: seen on photographs, light or dark.
MARK_COLOUR = (255, 215, 0)
#: Where a position stands on the image, as (left, right) fractions of its width.
HALVES = {"left": (0.0, 0.5), "right": (0.5, 1.0)}


def mark_person(image: Image.Image, position: str | None) -> Image.Image:
    """``image`` with the half ``position`` names framed; as it is for any other position."""
    half = HALVES.get((position or "").lower())
    if half is None:
        return image
    marked = image.copy()
    draw = ImageDraw.Draw(marked)
    width = max(3, min(marked.size) // 40)
    left = int(half[0] * marked.width)
    right = int(half[1] * marked.width) - 1
    draw.rectangle((left, 0, right, marked.height - 1), outline=MARK_COLOUR, width=width)
    return marked


def viewer_command() -> list[str] | None:
    """The command that opens a file in the system's image viewer here, if there is one."""
    if sys.platform == "darwin":
        return ["open"]
    if sys.platform == "win32":  # pragma: no cover - the TUI is tested on POSIX
        return ["explorer"]
    found = shutil.which("xdg-open")
    return [found] if found else None


def has_display() -> bool:
    """Whether a viewer opened here has a screen to show on: always on macOS and Windows, on
    other systems only under X11 or Wayland (over ssh or on a console, xdg-open would fail
    out of sight, or open a text browser in no terminal at all)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_in_viewer(path: Path) -> str:
    """Open ``path`` in the system viewer, detached; return what to tell the reviewer."""
    if not has_display():
        return (
            f"no display to open a viewer on (DISPLAY, WAYLAND_DISPLAY unset); the image is {path}"
        )
    command = viewer_command()
    if command is None:
        return f"no system image viewer (xdg-open) here; the image is {path}"
    subprocess.Popen(
        [*command, str(path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return f"opened {path.name} in the system viewer"

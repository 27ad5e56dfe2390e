"""A small page with a planted defect, for the tests that prove a surface check finds it."""

from __future__ import annotations

from pathlib import Path


def planted_page(tmp_path: Path, body: str) -> Path:
    """``body`` in a page with the report's narrow-screen basics (a viewport, a scrolling box and
    a sticky first column), written to ``tmp_path``."""
    html = tmp_path / "page.html"
    html.write_text(
        "<!doctype html><html><head><meta name='viewport' content='width=device-width'>"
        "<style>body{margin:8px;font:16px sans-serif} .scroll{overflow-x:auto}"
        ".sticky tr > :first-child{position:sticky;left:0;background:#fff}</style></head>"
        f"<body>{body}</body></html>",
        encoding="utf-8",
    )
    return html

"""The figure names a probe declares before it runs (``Probe.figure_names``).

Part of a name can be known only once the run is made: the id of each of several models
(``clip#1a2b3c4d``, from the model's parameters), or an annotator that labels the run's images
afterwards. A declared name holds a placeholder there, such as ``<model>``; it stands for any
text, so that an audit's gate on a figure the run will publish is never refused before it runs,
and the rest of the name is still checked.

A figure that is published without an interval (a p-value, a count) is declared so
(:func:`without_interval`): a gate never rests on such a figure, and an audit's gate on it is
refused before the run as it would be after.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

#: A model's id, which every figure of a run of several models begins with.
MODEL = "<model>"
#: An automatic annotator's id, known once the run's images are labelled.
ANNOTATOR = "<annotator>"

_PLACEHOLDER = re.compile(r"<[a-z_]+>")


class Declared(str):
    """A declared figure name that also says whether the figure carries an interval; it is
    the name itself wherever a ``str`` is read."""

    #: Whether the figure is published with an interval a gate can rest on.
    interval: bool = True
    #: What the figure is instead, where it has no interval ("a p-value").
    what: str = ""


def without_interval(name: str, what: str) -> Declared:
    """``name`` declared as a figure published without an interval; ``what`` says what it is
    ("a p-value", "a count") for the reason a gate on it is refused."""
    declared = Declared(name)
    declared.interval = False
    declared.what = what
    return declared


def model_prefix(n_models: int, separator: str = ": ") -> str:
    """What the figures of one model begin with in a run of ``n_models``: nothing for one."""
    return f"{MODEL}{separator}" if n_models > 1 else ""


def stands_for(declared: str, figure: str) -> bool:
    """Whether ``figure`` is a name ``declared`` stands for: the same text, each placeholder
    matching any non-empty text."""
    pieces = _PLACEHOLDER.split(declared)
    if len(pieces) == 1:
        return declared == figure
    pattern = ".+".join(re.escape(piece) for piece in pieces)
    return re.fullmatch(pattern, figure, flags=re.DOTALL) is not None


def suggested(typed: str, names: Sequence[str]) -> list[str]:
    """The declared names a gate on an unknown figure ``typed`` may have meant: every one that
    begins with what was typed, in any case and in the order the probe declares them (its
    headline figures first), then the ones :mod:`difflib` finds close (in the case typed: set
    in one case, a long name's letters would draw any short text near it)."""
    start = typed.strip().casefold()
    begins = [n for n in names if start and n.casefold().startswith(start)]
    close = difflib.get_close_matches(typed, names, n=2, cutoff=0.4)
    return begins + [n for n in close if n not in begins]

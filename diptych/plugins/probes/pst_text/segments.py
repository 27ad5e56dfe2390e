"""Where a likelihood prompt is cut, fixed by its template: the canonical split.

A local model evaluates a prompt in pieces and keeps each piece's state, so that prompts of
one template share the work on their common beginning (every paired prompt starts "One",
the 40 prompts of a first identity share "One nurse stands on the left and one", and the two
people of a scene share everything up to "The"). The pieces are cut where the template
says, never where the previous prompt happened to end: llama.cpp's kernels round a token's
values differently in batches of other shapes, so a stored number must come from the same
pieces whatever ran before it. The cuts are part of the trial's payload (``segments``), and
the scene's two prompts are named together (``siblings``, their last pieces), which a model
that evaluates several sequences in one batch decodes together.

The cuts: before the first use of each identity placeholder of the scene, and before the
first placeholder that says which person is asked about; nothing is cut after that one.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence


def template_segments(
    template: str,
    values: Mapping[str, str],
    cut_before: Sequence[str],
    person_fields: frozenset[str],
) -> list[str]:
    """``template`` filled with ``values`` and cut at its fixed points.

    Cuts fall before the first use of each placeholder in ``cut_before`` and before the
    first placeholder of ``person_fields``; a cut after that one, and an empty piece, are
    dropped. ``"".join`` of the result is ``template.format(**values)``.
    """
    pieces: list[str] = []
    cuts: list[int] = []
    seen: set[str] = set()
    person_at: int | None = None
    length = 0
    for literal, field, _, _ in string.Formatter().parse(template):
        pieces.append(literal)
        length += len(literal)
        if field is None:
            continue
        if field not in seen and person_at is None:
            if field in person_fields:
                person_at = length
                cuts.append(length)
            elif field in cut_before:
                cuts.append(length)
        seen.add(field)
        text = str(values[field])
        pieces.append(text)
        length += len(text)
    prompt = "".join(pieces)
    bounds = [0, *sorted(set(cuts)), len(prompt)]
    return [prompt[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a]

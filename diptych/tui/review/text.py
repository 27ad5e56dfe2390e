"""What a text output shows in the Review screen: the prompt, the model's continuation, story or
reply, and the candidates' probabilities, with the flagged words highlighted.

No Textual here: :func:`read_output` takes a trial's payload and output apart (the engine's
shapes: a likelihood trial's ``prompt`` and ``logprobs``, a chat trial's ``messages`` and
``text``, a vision-chat trial's ``text`` question and its images), and :func:`text_output`
draws one item for the picture pane.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from diptych.core.report.formatting import percent_text

#: Above 1 + this, candidates' probabilities sum past all of the next word (rounding stays below).
MASS_ROUNDING = 1e-3

#: Output keys that hold a text answer (the engine stores a chat answer as ``text``).
TEXT_KEYS = ("text", "completion", "answer")


@dataclass(frozen=True)
class OutputParts:
    """The parts of one trial a reviewer reads."""

    prompt: str | None = None
    #: The continuation, story or reply (a JSON story answer's ``story``).
    text: str | None = None
    #: (candidate, probability) of a likelihood trial, most likely first.
    candidates: tuple[tuple[str, float], ...] = ()
    #: The image a vision-chat trial showed the model (its blob sha), if any.
    shown_image: str | None = None


def _answer_text(output: Mapping[str, Any]) -> str | None:
    for key in TEXT_KEYS:
        value = output.get(key)
        if isinstance(value, str):
            return _story_of(value)
    return None


def _story_of(text: str) -> str:
    """A structured story answer (``{"story": ..., "pronoun_1": ...}``) as its story and the
    pronouns it gave; any other text as it is."""
    if not text.lstrip().startswith("{"):
        return text
    try:
        answer = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return text
    if not isinstance(answer, dict) or not isinstance(answer.get("story"), str):
        return text
    said = [f"{k.replace('_', ' ')}: {v}" for k, v in answer.items() if k != "story"]
    return answer["story"] + (f"\n({'; '.join(said)})" if said else "")


def _prompt_of(payload: Mapping[str, Any]) -> str | None:
    for key in ("prompt", "text"):
        value = payload.get(key)
        if isinstance(value, str):
            return value
    messages = payload.get("messages")
    if isinstance(messages, Sequence):
        users = [
            m.get("content") for m in messages if isinstance(m, Mapping) and m.get("role") == "user"
        ]
        if users and isinstance(users[-1], str):
            return users[-1]
    return None


def probabilities(logprobs: Mapping[str, Any]) -> tuple[tuple[str, float], ...]:
    """(candidate, probability) from the candidates' log-probabilities, most likely first.
    Not renormalised: their sum says how much of the model's next word they cover."""
    pairs = [
        (str(c), math.exp(float(lp)))
        for c, lp in logprobs.items()
        if isinstance(lp, int | float) and not isinstance(lp, bool)
    ]
    return tuple(sorted(pairs, key=lambda p: -p[1]))


def read_output(payload: Mapping[str, Any], output: Mapping[str, Any] | None) -> OutputParts:
    """The prompt, the text answer, the candidates and the image shown of one trial."""
    images = payload.get("images")
    # A vision chat's images, or the one image an annotator is given (a calibration run).
    if not (isinstance(images, Sequence) and images) and isinstance(payload.get("image"), Mapping):
        images = [payload["image"]]
    shown = None
    if isinstance(images, Sequence) and images and isinstance(images[0], Mapping):
        blob = images[0].get("blob")
        shown = blob if isinstance(blob, str) else None
    logprobs = (output or {}).get("logprobs")
    text = _answer_text(output) if output else None
    labels = (output or {}).get("labels")
    if text is None and isinstance(labels, Sequence) and labels:
        # An annotator's answer is its labels (a calibration run's).
        said = [str(lab.get("label")) for lab in labels if isinstance(lab, Mapping)]
        text = f"labelled: {', '.join(said)}"
    return OutputParts(
        prompt=_prompt_of(payload),
        text=text,
        candidates=probabilities(logprobs) if isinstance(logprobs, Mapping) else (),
        shown_image=shown,
    )


def text_output(
    prompt: str | None,
    text: str | None,
    candidates: Sequence[tuple[str, float]],
    highlighted: Text,
    *,
    blind: bool = False,
) -> Text:
    """The picture pane of a text output: the prompt (hidden in blind mode: it names the
    person), the answer (``highlighted``: ``text`` with the flagged words marked) and the
    candidates' probabilities as bars. Only the flagged words carry a style, so that they
    are what stands out."""
    out = Text()
    if prompt and not blind:
        out.append("▸ prompt\n")
        out.append(prompt.rstrip() + "\n\n")
    if text is not None:
        out.append("▸ the model's answer\n")
        out.append_text(highlighted)
        out.append("\n\n")
    if candidates:
        out.append("▸ next word, by the model's probabilities\n")
        width = max(len(c.strip()) for c, _ in candidates)
        for candidate, p in candidates:
            bar = "█" * round(p * 20)
            # A percentage by the rule of digits, as the report prints P(she): "9.29%", "50.0%".
            out.append(f"{candidate.strip():>{width}} {percent_text(p):>6} ")
            out.append(bar + "\n")
        covered = sum(p for _, p in candidates)
        if covered > 1 + MASS_ROUNDING:
            # No distribution gives two of its next words more than all of it.
            out.append(
                f"(together {percent_text(covered)}, more than all of the next word: not one "
                "distribution's probabilities; check the model's plugin)\n"
            )
        else:
            out.append(f"(together {percent_text(covered)} of the next word)\n")
    if not out.plain:
        out.append("(no output)")
    return out


#: Why a blind review has nothing to read of a likelihood text run's person, and what to do:
#: the card's label line, the picture pane and the refusal of a label there say it alike.
NOTHING_TO_READ_BLIND = (
    "nothing to read blind: the prompt naming this person is hidden and their pronoun is one "
    "the model drew; b shows the prompt to label with it"
)


def nothing_to_read_blind(blob: str | None, text: str | None, *, blind: bool) -> bool:
    """Whether blind mode leaves a person nothing to be read from: a text output with no
    answer of its own to read (a likelihood trial: the prompt, hidden, and the model's
    probabilities of the pronoun it then drew)."""
    return blind and blob is None and text is None

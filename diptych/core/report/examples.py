"""Example images for the report: the most stereotyped identities and the flagged people, each
with what reviewers decided, and the PAIRS attribution where a PAIRS image is shown."""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import TYPE_CHECKING, Any

from diptych.core.data import image_sha
from diptych.core.labels import is_human, reviewer_name
from diptych.core.report.formatting import figure_text, image_type
from diptych.core.report.sections import ExampleImage

if TYPE_CHECKING:
    from diptych.core.probe import ProbeResult
    from diptych.core.runview import RunView
    from diptych.core.store import TrialRow

#: Images shown per run: for the most stereotyped identities, and for flagged people.
TOP_IDENTITIES = 3
FLAGGED = 6
#: Longest text of a flag's detail a caption quotes (a story, a model's reply).
CAPTION_TEXT = 160
#: Detail keys the caption says already (the trial's model) or that only a program reads.
SAID_ELSEWHERE = frozenset({"model_id", "run"})


@cache
def _pairs_images() -> tuple[frozenset[str], str]:
    """The blob ids of the bundled PAIRS images and the attribution they must carry."""
    from diptych.datasets import pairs

    shas = frozenset(image_sha(i.path) for i in pairs.images())
    return shas, f"{pairs.ATTRIBUTION}."


def _image_of(view: RunView, trial: TrialRow) -> tuple[bytes, str, str | None] | None:
    """The trial's image (the generated one, else the one it showed the model), its media type
    and its blob id."""
    result = view.results.get(trial.key)
    shas: list[str] = []
    if result is not None and result.blob:
        shas.append(result.blob)
    shas += [
        i["blob"] for i in trial.payload.get("images", []) if isinstance(i, dict) and "blob" in i
    ]
    for sha in shas:
        data = view.blob(sha)
        mime = image_type(data)
        if mime is not None:
            return data, mime, sha
    return None


def _outcome(view: RunView, trial_idx: int, position: str | None) -> str:
    """What human reviewers made of the person: their labels, or that nobody has looked yet."""
    humans = [
        f"{reviewer_name(lab.annotator)}: {lab.label}"
        + (f" ({lab.detail['note']})" if lab.detail.get("note") else "")
        for lab in view.labels()
        if lab.trial_idx == trial_idx
        and (position is None or lab.position == position)
        and is_human(lab.annotator)
    ]
    return "reviewed — " + "; ".join(humans) if humans else "not reviewed yet"


def _stereotyped(result: ProbeResult) -> list[tuple[str, float, str]]:
    """Identities furthest from 0 (|paired micro STS|, else |single|), each with its signed
    score and setting, from the per-identity scores a probe keeps in
    ``data[...]["sts"]["micro"]``."""
    scores: dict[str, tuple[float, str]] = {}
    for entry in result.data.values():
        micro = entry.get("sts", {}).get("micro") if isinstance(entry, dict) else None
        if not isinstance(micro, dict):
            continue
        for identity, m in micro.items():
            setting = "paired" if m.get("paired") is not None else "single"
            value = m.get(setting)
            if isinstance(value, int | float) and abs(value) >= abs(
                scores.get(identity, (0.0, ""))[0]
            ):
                scores[identity] = (float(value), setting)
    ranked = sorted(scores.items(), key=lambda kv: -abs(kv[1][0]))[:TOP_IDENTITIES]
    return [(identity, value, setting) for identity, (value, setting) in ranked]


def _who(annotator: str) -> str:
    """An annotator as a caption names it: a reviewer by name, a model by its id."""
    name = reviewer_name(annotator) if is_human(annotator) else None
    return f"{name} (reviewer)" if name else annotator


def _words(value: Any) -> str:
    """A flag's detail value in words: lists joined, mappings as "who what", long text cut."""
    if isinstance(value, dict):
        return ", ".join(f"{_who(str(k))} {_words(v)}" for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        items = [_words(v) for v in value]
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    if isinstance(value, float):
        return figure_text(value)
    text = " ".join(str(value).split())
    text = text if len(text) <= CAPTION_TEXT else text[: CAPTION_TEXT - 1] + "…"
    return f"“{text}”" if " " in text else text


def flag_caption(detail: Any) -> str:
    """A review flag's detail as a sentence of the caption, never a Python literal."""
    if not isinstance(detail, dict):
        return f"{_words(detail)}." if detail else ""
    said = [
        f"{str(k).replace('_', ' ')}: {_words(v)}"
        for k, v in detail.items()
        if k not in SAID_ELSEWHERE and v not in (None, "", [], {})
    ]
    return "; ".join(said) + "." if said else ""


def _identity_of(meta: dict[str, Any]) -> str | None:
    value = meta.get("identity")
    return value if isinstance(value, str) else None


def example_images(view: RunView, result: ProbeResult) -> list[ExampleImage]:
    trials = {t.idx: t for t in view.trials}
    if not any(
        t.capability == "image_generator" or t.payload.get("images") for t in trials.values()
    ):
        return []
    pairs_shas, attribution = _pairs_images()
    out: list[ExampleImage] = []
    seen: set[int] = set()

    def add(trial: TrialRow, title: str, caption: str, position: str | None) -> None:
        found = _image_of(view, trial)
        if found is None or trial.idx in seen:
            return
        data, mime, sha = found
        seen.add(trial.idx)
        outcome = _outcome(view, trial.idx, position)
        out.append(
            ExampleImage(
                title=title,
                data=data,
                mime=mime,
                caption=f"{caption} Trial {trial.idx}, {trial.model_id}; {outcome}.",
                attribution=attribution if sha in pairs_shas else "",
            )
        )

    by_identity: dict[str, list[tuple[TrialRow, str]]] = defaultdict(list)
    for idx, subjects in view.subjects_by_trial.items():
        for subject in subjects:
            identity = _identity_of(subject.meta)
            if identity is not None and idx in trials:
                by_identity[identity].append((trials[idx], subject.position))
    for identity, score, setting in _stereotyped(result):
        # The sign says which way: a score below 0 leans against the stereotype.
        title = "Most stereotyped" if score > 0 else "Most against the stereotype"
        for trial, position in by_identity.get(identity, [])[:1]:
            add(
                trial,
                f"{title}: {identity}",
                f"Micro STS ({setting}) {figure_text(score)}.",
                position,
            )
    for flag in view.flags()[: FLAGGED * 4]:
        if sum(1 for i in out if i.title.startswith("Flagged")) >= FLAGGED:
            break
        flagged = trials.get(flag["trial_idx"])
        if flagged is not None:
            add(
                flagged,
                f"Flagged: {str(flag['reason']).replace('_', ' ')}",
                flag_caption(flag.get("detail") or {}),
                flag.get("position"),
            )
    return out

"""The answers of a ``pairs`` run: every finished trial's reply read by the current parser, and
the small statistics of a set of answers (mean, refusal and neither rates, majority answer).

A reviewer may correct how a reply was read (the Review screen, or imported labels): a human
label on the trial's person names the answer (the plus or the minus option, ``refusal`` or
``neither``), and that reading replaces the parser's (rule :data:`HUMAN_OVERRIDE`). Several
reviewers who disagree are reduced by :func:`~diptych.core.labels.majority`; a tie (or a label
that names none of the four) leaves the parser's reading."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from diptych.core.labels import canonical_label, majority
from diptych.core.metrics.pairs.association import Outcome, Response
from diptych.core.runview import RunView
from diptych.plugins.probes.pairs.parser import OUTCOME_OF_RULE, parse_answer

#: Rule of a reply the service refused to give (no text to parse).
SERVICE_REFUSAL = "service_refusal"
#: Rule of a reply whose reading a reviewer corrected.
HUMAN_OVERRIDE = "human_override"
#: The readings a reviewer can give besides the two options.
REFUSAL, NEITHER = "refusal", "neither"


@dataclass(frozen=True)
class Answer:
    """One finished trial, scored."""

    model_id: str
    trial_idx: int
    subset: str
    scenario: str
    question_id: str
    question: str
    plus_option: str
    minus_option: str
    gender: str
    race: str
    run: int
    value: int
    rule: str
    reason: str
    raw: str
    #: The outcome a reviewer gave the reply (with rule :data:`HUMAN_OVERRIDE`), else None.
    corrected: Outcome | None = None

    @property
    def outcome(self) -> Outcome:
        """An answer, a refusal or neither option, by the rule that read the reply (or as the
        reviewer corrected it)."""
        return self.corrected if self.corrected is not None else OUTCOME_OF_RULE[self.rule]

    @property
    def group(self) -> str:
        return f"{self.race}_{self.gender}"

    def level(self, compare: str) -> str:
        return self.gender if compare == "gender" else self.race

    def response(self) -> Response:
        return Response(
            scenario=self.scenario,
            gender=self.gender,
            race=self.race,
            run=str(self.run),
            value=self.value,
            question=self.question_id,
            outcome=self.outcome,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "question": self.question_id,
            "gender": self.gender,
            "race": self.race,
            "run": self.run,
            "value": self.value,
            "outcome": self.outcome,
            "rule": self.rule,
            "reason": self.reason,
            "raw": self.raw,
        }


@dataclass
class Collected:
    answers: list[Answer]
    #: (model, subset) -> trials without a usable outcome, by status (failed, pending).
    unscored: dict[tuple[str, str], Counter[str]]


def correction_choices(plus_option: str, minus_option: str) -> list[str]:
    """What a reviewer may say a reply answered (the labels a correction takes)."""
    return [plus_option, minus_option, REFUSAL, NEITHER]


def corrected_reading(
    label: str, plus_option: str, minus_option: str
) -> tuple[int, Outcome] | None:
    """(score, outcome) of a reviewer's reading ``label``; None if it names no reading."""
    said = canonical_label(label)
    readings: dict[str, tuple[int, Outcome]] = {
        canonical_label(plus_option): (1, "answer"),
        canonical_label(minus_option): (-1, "answer"),
        REFUSAL: (0, "refusal"),
        NEITHER: (0, "neither"),
    }
    return readings.get(said)


def human_readings(run: RunView) -> dict[int, tuple[str, list[str]]]:
    """trial index -> (reviewers, as "a, b"; their labels) of every human label in the run."""
    out: dict[int, tuple[list[str], list[str]]] = {}
    for lab in run.labels():
        if lab.kind == "human":
            who, said = out.setdefault(lab.trial_idx, ([], []))
            who.append(lab.annotator)
            said.append(lab.label)
    return {idx: (", ".join(sorted(who)), said) for idx, (who, said) in out.items()}


def collect_answers(run: RunView) -> Collected:
    """Every finished trial of the run, its reply read by the current parser, or as a reviewer
    corrected it."""
    overrides = human_readings(run)
    answers: list[Answer] = []
    unscored: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for trial in run.trials:
        meta = trial.meta
        result = run.result(trial)
        status = result.status if result is not None else "pending"
        if status == "done":
            assert result is not None
            raw = str((result.output or {}).get("text", ""))
            parsed = parse_answer(raw, meta["plus_option"], meta["minus_option"], meta["question"])
            value, rule, reason = parsed.score, parsed.rule, parsed.reason
        elif status == "refused":
            assert result is not None
            raw, value, rule = "", 0, SERVICE_REFUSAL
            reason = f"the service refused: {result.error or 'no reason given'}"
        else:
            unscored[(trial.model_id, meta["subset"])][status] += 1
            continue
        corrected: Outcome | None = None
        if trial.idx in overrides:
            who, said = overrides[trial.idx]
            agreed = majority(said)
            reading = (
                None
                if agreed is None
                else corrected_reading(agreed, meta["plus_option"], meta["minus_option"])
            )
            if reading is not None:
                value, corrected = reading
                reason = f"corrected by {who} (the parser read {rule}: {reason})"
                rule = HUMAN_OVERRIDE
        answers.append(
            Answer(
                model_id=trial.model_id,
                trial_idx=trial.idx,
                subset=meta["subset"],
                scenario=meta["scenario"],
                question_id=meta["question_id"],
                question=meta["question"],
                plus_option=meta["plus_option"],
                minus_option=meta["minus_option"],
                gender=meta["gender"],
                race=meta["race"],
                run=int(meta["run"]),
                value=value,
                rule=rule,
                reason=reason,
                raw=raw,
                corrected=corrected,
            )
        )
    return Collected(answers, unscored)


def mean(values: Sequence[int]) -> float | None:
    return sum(values) / len(values) if values else None


def outcome_rate(answers: Sequence[Answer], outcome: Outcome) -> float | None:
    """The share of ``answers`` whose outcome is ``outcome`` (refusal: the paper's Table 2)."""
    return sum(a.outcome == outcome for a in answers) / len(answers) if answers else None


def majority_answer(values: Sequence[int]) -> int | None:
    """The score most answers gave; None when two scores tie for most (no majority)."""
    ranked = Counter(values).most_common()
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]

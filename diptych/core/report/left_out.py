"""What an audit's report leaves out of its audit file, said where the report opens: the parts
not run (no gate read them, and the audit was bought only until its gates were decided) and
the parts with no run in this report, with the command that runs the audit whole."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from diptych.core.report.reproduce import AUDIT_AGAIN, audit_command

if TYPE_CHECKING:
    from diptych.core.report.audit import Audit

#: Where the whole audit's report is written: beside this one and the one that reproduces it.
WHOLE = "whole-audit"


@dataclass(frozen=True)
class LeftOut:
    """The audit file's parts this report leaves out, and how to get them."""

    not_run: tuple[str, ...]
    absent: tuple[str, ...]
    command: str | None

    #: What the command does, after it.
    #: Without a terminal to ask at, it buys nothing unless --yes is given: said, so that a
    #: pasted command's refusal is no surprise.
    how = (
        "runs the audit whole: it asks before it buys what is not stored (with --yes it buys "
        f"without asking; what is stored is not bought again) and writes its report to {WHOLE}/"
    )

    @property
    def parts(self) -> str:
        """The parts left out and why ("" where none is)."""
        said = []
        if self.not_run:
            said.append(f"{_parts(self.not_run)} not run (no gate reads {_it(self.not_run)})")
        if self.absent:
            said.append(f"{_parts(self.absent)} not in this report (no run recorded)")
        if not said:
            return ""
        return f"Left out of this report, of its audit file: {' and '.join(said)}"

    @property
    def sentence(self) -> str:
        """The parts and the command in one sentence, as report.json gives it."""
        if not self.parts:
            return ""
        return self.parts + (f"; {self.command} {self.how}." if self.command else ".")


def _parts(names: tuple[str, ...]) -> str:
    return ("part " if len(names) == 1 else "parts ") + ", ".join(names)


def _it(names: tuple[str, ...]) -> str:
    return "it" if len(names) == 1 else "them"


def left_out(audit: Audit) -> LeftOut:
    """The parts of ``audit``'s file the report leaves out (none for a report of runs)."""
    scope = audit.scope
    if not scope.get("audit"):
        return LeftOut((), (), None)
    not_run = tuple(str(n) for n in scope.get("not_run") or [])
    # A search part's findings are listed by its session, not as a run of the report.
    absent = tuple(
        str(p.get("name"))
        for p in scope.get("parts") or []
        if not p.get("run") and p.get("kind") != "search" and str(p.get("name")) not in not_run
    )
    command = None
    if not_run or absent:
        # Run whole: without --until-decided its gates' parts' rest is bought too.
        again = audit_command({**scope, "sequential": None}, audit.store, audit.cwd)
        if again is not None:
            words = shlex.split(again)
            words[-1] = WHOLE if words[-2:] == ["--out", AUDIT_AGAIN] else words[-1]
            command = shlex.join(words)
    return LeftOut(not_run, absent, command)


__all__ = ["WHOLE", "LeftOut", "left_out"]

"""The report's "How to reproduce" commands, pasted as printed into a shell in the directory
the report is in: each must run, and the runs must keep their fingerprints."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

#: The CLI with the scripted test models registered (``diptych.testing``).
SCRIPTED_CLI = Path(__file__).parents[2] / "cli" / "scripted_cli.py"


def printed_commands(report_md: str) -> list[str]:
    """Every command of the Markdown's "How to reproduce this report" block, as printed."""
    section = report_md.split("### How to reproduce this report", 1)[1].split("\n### ", 1)[0]
    blocks = re.findall(r"```\n(.*?)```", section, re.DOTALL)
    return [line for block in blocks for line in shell_read(block) if line.strip()]


def shell_read(block: str) -> list[str]:
    """A block's commands as a shell reads them: a line ending in `` \\`` goes on with the
    next (a long command is printed in lines a page holds)."""
    return re.sub(r" \\\n\s*", " ", block.strip()).splitlines()


#: How a paragraph offers the command under it as this report again, and how it names one
#: that writes something else (an audit's runs' own report).
_THIS_REPORT = ("This report again", "From the directory this report is in")
_NOT_THIS = "Not this report"


def offered_commands(report_md: str) -> list[tuple[str, str]]:
    """Each command of the "How to reproduce this report" block with the paragraph just above
    it (what the report says the command is)."""
    section = report_md.split("### How to reproduce this report", 1)[1].split("\n### ", 1)[0]
    out = []
    lead = ""
    for part in re.split(r"(```\n.*?```)", section, flags=re.DOTALL):
        if part.startswith("```"):
            out += [(lead, line) for line in shell_read(part[4:-3]) if line.strip()]
        elif paragraphs := [p.strip() for p in part.split("\n\n") if p.strip()]:
            lead = paragraphs[-1]
    return out


def offer_problems(report_md: str) -> list[str]:
    """The commands a report offers as itself again: an audit's report offers only the command
    that runs its audit (``audit run FILE``, or a gated ``diptych run`` for an audit made on the
    command line), and names any other command (its runs' own report) as not this report; a
    run report offers its own ``diptych report RUN``."""
    if "### How to reproduce this report" not in report_md:
        return []
    section = report_md.split("### How to reproduce this report", 1)[1]
    audit_file = re.search(r"^Audit file `", section, re.MULTILINE) is not None
    command_line = re.search(r"^Audit `[^`]*`, made on the command line", section, re.M)
    offered = offered_commands(report_md)
    itself = [c for lead, c in offered if lead.startswith(_THIS_REPORT)]
    problems = []
    if not itself:
        problems.append("no command is offered as this report again")
    for lead, command in offered:
        words = shlex.split(command)
        runs_audit = "audit" in words and "run" in words[words.index("audit") :]
        if audit_file or command_line:
            names_audit = runs_audit if audit_file else "--gate" in words
            if lead.startswith(_THIS_REPORT) and not names_audit:
                problems.append(
                    f"`{command}` is offered as this audit's report again but does not run "
                    "the audit"
                )
            elif not names_audit and not lead.startswith(_NOT_THIS):
                problems.append(f"`{command}` is not named as writing another report than this")
        elif lead.startswith(_THIS_REPORT) and "report" not in words:
            problems.append(f"`{command}` is offered as this report again but is no report")
    return problems


def shell_env(bin_dir: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """``diptych`` on PATH as the CLI with the scripted models registered, a dummy key, and no
    ``DIPTYCH_STORE``: the commands must name their workspace themselves."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    shim = bin_dir / "diptych"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {SCRIPTED_CLI} "$@"\n')
    shim.chmod(0o755)
    env = {
        k: v
        for k, v in (base or dict(os.environ)).items()
        if k not in ("DIPTYCH_STORE", "OPENAI_BASE_URL")
    }
    return {**env, "PATH": f"{bin_dir}:{env['PATH']}", "OPENAI_API_KEY": "sk-dummy"}


def fingerprints(store: Path) -> dict[str, tuple[str, dict[str, int]]]:
    """Each run of the workspace: its fingerprint and its trials by status."""
    from diptych.core.store import open_store

    with open_store(store) as opened:
        return {r.id: (r.fingerprint, opened.status_counts(r.id)) for r in opened.list_runs()}


def _asked(run: tuple[str, dict[str, int]] | None) -> int:
    """The trials of a run that have been asked (every one but those still pending)."""
    return 0 if run is None else sum(n for status, n in run[1].items() if status != "pending")


#: The options by which a printed command names the folder it writes a report to.
_OUT_OPTIONS = ("--out", "-o", "--report")


def written_to(command: str) -> str | None:
    """The folder ``command`` writes its report to, as printed; None where it writes none."""
    words = shlex.split(command)
    for k, word in enumerate(words[:-1]):
        if word in _OUT_OPTIONS:
            return os.path.normpath(words[k + 1])
    return None


def shared_folders(commands: list[str]) -> list[str]:
    """Two printed commands that write to one folder: run one after the other, the second
    overwrites the first's report or refuses."""
    seen: dict[str, str] = {}
    out = []
    for command in commands:
        folder = written_to(command)
        if folder is None:
            continue
        if folder in seen:
            out.append(f"`{seen[folder]}` and `{command}` both write to {folder}/")
        seen.setdefault(folder, command)
    return out


def reproduce_problems(
    report_md: Path, cwd: Path, env: dict[str, str], store: Path | None = None
) -> list[str]:
    """Run every printed command in ``cwd``, one after the other; two writing to one folder,
    what failed (with its last line of error) or wrote no report where it says, and — given
    the workspace ``store`` — trials the commands bought that the runs had not (the rest
    of a design its gates stopped early), and any run made anew or changed (a fingerprint, a
    count)."""
    problems = []
    before = fingerprints(store) if store is not None else {}
    commands = printed_commands(report_md.read_text(encoding="utf-8"))
    if not commands:
        return ["the report prints no command to reproduce it"]
    problems += shared_folders(commands)
    for command in commands:
        done = subprocess.run(
            ["sh", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
        )
        # Exit 1 is a gate that fails or a finding: the command ran as it did the first time.
        if done.returncode not in (0, 1):
            said = (done.stderr or done.stdout).strip().splitlines()
            problems.append(f"`{command}` exited {done.returncode}: {said[-1] if said else ''}")
        elif (folder := written_to(command)) and not any((cwd / folder).glob("report.*")):
            problems.append(f"`{command}` wrote no report to {folder}/")
    if store is not None:
        after = fingerprints(store)
        bought = sum(_asked(after.get(k)) - _asked(before.get(k)) for k in after)
        if bought > 0:
            # A run its gates stopped early, "again" from its design: the rest of it bought.
            problems.append(f"pasted, the commands bought {bought} trials the runs had not")
        if after != before:
            changed = {
                k: (before.get(k), after.get(k))
                for k in {*before, *after}
                if before.get(k) != after.get(k)
            }
            problems.append(f"the commands changed the workspace's runs: {changed}")
    return problems

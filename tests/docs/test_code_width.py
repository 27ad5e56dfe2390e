"""A remark in a manual's code block is read, not copied: it must be whole on the page.

Material draws a code block about 78 monospace characters wide at a desktop width (the content
column is 688 px of 8.2 px characters, less its padding); a longer line scrolls. A command that
scrolls is still copied whole with the block's copy button, but a ``# remark`` past the edge is
prose a reader never sees. So a line carrying a remark fits in 78 columns; a longer remark goes
on its own line above the command.

The README is read on GitHub, whose code blocks show about 96 columns at a desktop width (a
wider column than the manual's): its lines get that limit.

In a block whose commands carry a ``$`` prompt, the lines without one (and not continuing a
command) are what the program prints (a standings table's ``#`` column, say), shown as printed:
they are not remarks."""

from __future__ import annotations

import re

from tests.docs.fenced import ROOT, pages

#: What a code block shows of a line at a desktop width, in characters: the manual's pages.
VISIBLE = 78
#: The same on GitHub, for the README.
VISIBLE_ON_GITHUB = 96
_FENCE = re.compile(r"^\s*(```|~~~)")
# A remark: '#' starting a word (not inside a URL or a quoted figure name like 'faces#1').
_REMARK = re.compile(r"(^|\s)#\s")
_PROMPT = re.compile(r"^\s*\$ ")


def _blocks(text: str) -> list[list[tuple[int, str]]]:
    """A page's fenced blocks, each as its numbered lines (fences left out)."""
    blocks: list[list[tuple[int, str]]] = []
    inside = False
    for n, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            inside = not inside
            if inside:
                blocks.append([])
            continue
        if inside:
            blocks[-1].append((n, line))
    return blocks


def too_wide(name: str, text: str) -> list[str]:
    """The lines of page ``name`` (its path from the repository root) whose remark a reader
    would find cut: ``name:line (columns, columns shown)``."""
    visible = VISIBLE_ON_GITHUB if name == "README.md" else VISIBLE
    found = []
    for block in _blocks(text):
        prompted = any(_PROMPT.match(line) for _, line in block)
        continued = False
        for n, line in block:
            typed = not prompted or bool(_PROMPT.match(line)) or continued
            continued = typed and line.rstrip().endswith("\\")
            if not typed:
                continue
            if len(line) > visible and _REMARK.search(line):
                found.append(f"{name}:{n} ({len(line)} columns, {visible} shown)")
    return found


def test_every_remark_in_a_code_block_is_whole_on_a_desktop_page() -> None:
    found = [
        line
        for page in pages()
        for line in too_wide(page.relative_to(ROOT).as_posix(), page.read_text(encoding="utf-8"))
    ]
    assert found == [], "shorten the remark, or put it on its own line above:\n" + "\n".join(found)


def test_the_check_finds_a_cut_remark_at_the_edge_and_nothing_else() -> None:
    command = "diptych run pst-text -m smollm2  # "
    at_edge = command + "x" * (VISIBLE - len(command))
    past_edge = at_edge + "x"
    page = "\n".join(
        [
            past_edge,  # 1: prose outside a block, never checked
            "```bash",
            at_edge,  # 3: exactly what is shown
            past_edge,  # 4: one column cut
            "diptych run pst -m openai-images --dry-run " + "-p x=" + "y" * 60,  # 5: no remark
            "open https://example.org/#" + "z" * 60,  # 6: '#' in a URL
            "```",
            "```console",
            "$ " + at_edge,  # 9: a command under its prompt
            "   #   rank   " + "w" * 70,  # 10: the program's output, under a prompt
            "$ diptych report RUN \\",  # 11
            "  " + past_edge,  # 12: the same command, continued
            "```",
            "```bash",
            "# " + "v" * (VISIBLE - 1),  # 15: a remark on its own line, cut too
            "```",
        ]
    )
    assert len(at_edge) == VISIBLE and len(past_edge) == VISIBLE + 1
    assert too_wide("docs/page.md", page) == [
        f"docs/page.md:4 ({VISIBLE + 1} columns, {VISIBLE} shown)",
        f"docs/page.md:9 ({VISIBLE + 2} columns, {VISIBLE} shown)",
        f"docs/page.md:12 ({VISIBLE + 3} columns, {VISIBLE} shown)",
        f"docs/page.md:15 ({VISIBLE + 1} columns, {VISIBLE} shown)",
    ]
    # The README is read on GitHub: the same lines fit there, up to its own edge.
    readme = "\n".join(
        [
            "```bash",
            command + "x" * (VISIBLE_ON_GITHUB - len(command)),
            command + "x" * (VISIBLE_ON_GITHUB + 1 - len(command)),
            "```",
        ]
    )
    assert too_wide("README.md", page) == []
    assert too_wide("README.md", readme) == [
        f"README.md:3 ({VISIBLE_ON_GITHUB + 1} columns, {VISIBLE_ON_GITHUB} shown)"
    ]

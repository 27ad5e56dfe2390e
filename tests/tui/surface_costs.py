"""A cost said in words, parted by a line's end: "not priced (computed" over "on this
machine)", or parted from its label: "estimated" over "cost $0.59". A cost is a
decision-bearing value, read whole as a number is; the checks of numbers
(``surface.cut_values``) look for digits and did not see one written in words.
"""

from __future__ import annotations

from diptych.core.cost import COMPUTED_HERE

#: Every wording of a cost past its dollar figure (``diptych.core.cost.cost_text``), and the
#: label a cost is said after with the first word of its value ("estimated cost $0.59",
#: "estimated cost not priced").
COST_WORDS = (
    f"not priced ({COMPUTED_HERE})",
    "requests not priced",
    f"requests {COMPUTED_HERE}",
    "estimated cost $",
    "estimated cost not priced",
)


def cost_parted(text: str, below: str) -> bool:
    """Whether ``text`` ends in the first words of a cost that ``below`` goes on with."""
    end, start = text.rstrip(" │┃▌▐█"), below.lstrip(" │┃▌▐█")
    for words in COST_WORDS:
        for i, ch in enumerate(words):
            if ch == " " and end.endswith(words[:i]) and start.startswith(words[i + 1 :]):
                return True
    return False

"""A cost said in words, parted by a line's end: "not priced (computed" over "on this
machine)", or parted from its label: "estimated" over "cost $0.59". A cost is a
decision-bearing value, read whole as a number is; the checks of numbers
(``surface.cut_values``) look for digits and did not see one written in words.
"""

from __future__ import annotations

from diptych.core.cost import COMPUTED_HERE

#: Every wording of a cost past its dollar figure (``diptych.core.cost.cost_text``): "not
#: priced" alone too, a remote model's, whose "not" over "priced" read as a cost cut.
COST_WORDS = (
    f"not priced ({COMPUTED_HERE})",
    "not priced",
    "requests not priced",
    f"requests {COMPUTED_HERE}",
)
#: The label a cost is said after, and how its value starts: "$0.59" or "not priced".
LABEL, VALUE_STARTS = "estimated cost", ("$", "not priced")


def cost_parted(text: str, below: str) -> bool:
    """Whether ``text`` ends in the first words of a cost that ``below`` goes on with, or in a
    cost's label (or its first word) that ``below`` goes on with."""
    end, start = text.rstrip(" │┃▌▐█"), below.lstrip(" │┃▌▐█")
    for words in COST_WORDS:
        for i, ch in enumerate(words):
            if ch == " " and end.endswith(words[:i]) and start.startswith(words[i + 1 :]):
                return True
    first, rest = LABEL.split(" ", 1)
    values = tuple(f"{rest} {v}" for v in VALUE_STARTS)
    return (end.endswith(LABEL) and start.startswith(VALUE_STARTS)) or (
        end.endswith(first) and start.startswith(values)
    )

"""The report's names for how a figure's own interval was made: a leaf that a chart's caption
and the notes under tables both read, so that a bar and its table name an interval alike."""

from __future__ import annotations

from typing import Any

#: Each method of a figure's own interval in the report's words (``interval_method``).
OWN_METHODS: dict[str, str] = {
    "t": "t intervals over the units each figure resamples",
    "percentile": "percentile bootstrap intervals over the units each figure resamples",
    "jeffreys": "Jeffreys intervals of a share",
    "difference of the settings' intervals": (
        "for the gap between the two settings, one made from each setting's interval"
    ),
}
#: A figure whose number names no method: its probe's methods (Appendix A) say how.
UNNAMED = "intervals made as each probe's methods in Appendix A say"
#: The annotators' agreement tables' intervals (metrics.agreement.tables, .tone).
AGREEMENT = (
    "for the annotators' agreement (κ, α), percentile bootstrap over the units its table names"
)
PREDICTION_POWERED = (
    "prediction-powered intervals (PPI++: people's labels of a sample, an annotator's labels "
    "of every person; Methods says what each rests on)"
)


def own_method(number: dict[str, Any]) -> str:
    """How a figure's own interval was made, in the report's words (:data:`OWN_METHODS`)."""
    if number.get("estimator"):
        return PREDICTION_POWERED
    made = number.get("interval_method")
    said = OWN_METHODS.get(str(made), str(made)) if made else UNNAMED
    if made == "t" and number.get("transform"):
        # Made on a scale without bounds and mapped back: it stays in the range.
        said += f" (on the {number['transform']} scale of the figure's range)"
    return said

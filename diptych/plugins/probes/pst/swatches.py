"""The audit report's section on perceived skin tone in a ``pst`` run: the ten Monk swatches
drawn with their numbers, what the figures are and are not, how the tones were read and how
that reading was checked.

The section is added where the run's persons have tone labels (the analysis then holds
``data["tone"]``); its tables (the tone shares, the gap, the gender × tone cells) are the
analysis' own, printed with the run's other results.
"""

from __future__ import annotations

from typing import Any

from diptych.core.metrics.tone import BANDS, MONK_SRGB, STEPS
from diptych.core.probe import Figure, ProbeResult, Table
from diptych.core.report.sections import Section
from diptych.plugins._figures import new_figure, png_later
from diptych.plugins.probes.pst.tone.validation import (
    VALIDATION_FILE,
    measured_text,
    tone_validation,
)

TITLE = "Perceived skin tone"

WHAT_IT_IS = (
    "These figures are about perceived skin tone in an image: the step of the Monk Skin Tone "
    "scale (Monk 2019; 1 the lightest, 10 the darkest) nearest the colour of a person's skin as "
    "the image shows it. They are not race, not ethnicity and not anything about who a person "
    "is, and no figure here assigns one. A tone is read from pixels: the light of the scene, "
    "the white balance, exposure, make-up, the style of a drawing and the model's own palette all "
    "move it, and neighbouring steps are often within what those change. A colour measurement "
    "cannot say how a person identifies, what ancestry they have, or whether a reader would "
    "describe them as the scale does; it says how dark or light the model drew their skin."
)

METHOD = (
    "Each person's tone is the label of the tone dimension chosen by the run's label policy: "
    "the majority of people's labels where people labelled the person, else the skin-tone "
    "annotator's. That annotator finds the face, samples skin from landmark regions (both cheeks "
    "and the forehead, away from eyes, brows, lips, nostrils, beard and hair), takes the median "
    "colour in CIELAB, and names the Monk swatch nearest by CIEDE2000; it abstains, with its "
    "reason, on too few skin pixels, clipped exposure, a strong colour cast or a grey image, and "
    "an abstention is counted as cannot identify, never dropped. "
    "Bands group the steps 1–3, 4–7 and 8–10. Each band's share has a 95% interval over both "
    "identity lists (identities like these); its imbalance is the share less the reference's "
    "({reference}). The tone gap of a paired image is the masculine-stereotyped identity's step "
    "less the feminine-stereotyped one's: above 0, that identity is drawn darker; its interval "
    "resamples both identity lists as the STS's does, and a gate can name it. Cells of perceived "
    'gender × tone band with fewer than {min_cell} persons say "too few to say"; gates over '
    "several cells are adjusted together by Holm's step-down. "
    "The figures are those of the tone labels as they are — each table's note names whose they "
    "are — so where the skin-tone annotator gave them, its misreadings are in them. Where people "
    "tone-labelled a sample drawn with known probabilities, the gap and the band shares are also "
    "given prediction-powered: the annotator's steps on every person corrected by people's on "
    "the sample, each label weighted by the inverse of its probability (the table "
    "Prediction-powered skin tone); a tone a reviewer chose never enters them."
)

VALIDATION = (
    "How the reading was checked (the benchmark, bench/run.py tone): faces of the bundled PAIRS "
    "photographs re-toned to each of the ten swatches under a mask drawn from the face detector's "
    "box, not from the annotator's own sampling regions, under neutral, warm and cool light and "
    "changed exposure; the same set read by the whole-image skin rule of HEIM and DALL-Eval for "
    "comparison. The coverage of the intervals of the gap and the imbalance is measured on "
    "simulated crossed designs with a known truth."
)

#: The benchmark figures behind the method, and what each measures.
BENCH_FIGURES = (
    ("tone.recolour_within_one", "re-toned faces, neutral light: share read within one step"),
    ("tone.recolour_within_one_cast", "the same under warm and cool casts and exposure"),
    ("tone.vs_whole_image_rule", "within-one accuracy, face regions over the whole-image rule"),
    ("tone.pairs_ita_auc", "PAIRS photographs: ITA separating their two groups (a check of "
     "the instrument, never used to assign anyone a group)"),
    ("tone.gap_coverage", "tone gap: coverage of its 95% interval, 10 × 10 identities"),
    ("tone.gap_coverage_4x4", "the same, 4 × 4 identities"),
    ("tone.gap_type1", "tone gap with no gap: how often its test rejects at 5%"),
    ("tone.imbalance_coverage.light", "band 1–3 imbalance: coverage of its 95% interval"),
    ("tone.imbalance_coverage.middle", "band 4–7 imbalance: coverage of its 95% interval"),
    ("tone.imbalance_coverage.dark", "band 8–10 imbalance: coverage of its 95% interval"),
    ("tone.corrected.gap_coverage_uncorrected", "annotator one step too dark on one list: "
     "coverage of its own gap's interval"),
    ("tone.corrected.gap_coverage", "the same annotator, prediction-powered gap from 120 "
     "people's labels of 400 persons: coverage"),
)  # fmt: skip


def swatch_figure() -> Figure:
    """The ten Monk swatches, each with its number written on it (never colour alone)."""
    fig = new_figure(6.4, 1.5)
    ax = fig.add_subplot()
    for step, colour in zip(STEPS, MONK_SRGB, strict=True):
        ax.add_patch(_square(step - 1, colour))
        # Dark text on the light steps, light text on the dark ones: readable on both.
        ax.text(step - 0.5, 0.5, str(step), ha="center", va="center", fontsize=13,
                color="#111111" if step <= 5 else "#ffffff")  # fmt: skip
    for name, first, last in BANDS:
        ax.text((first - 1 + last) / 2, -0.25, name, ha="center", va="top", fontsize=8)
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.6, 1)
    ax.set_axis_off()
    return Figure(
        "tone_monk_swatches",
        "The Monk Skin Tone scale, steps 1 to 10",
        draw=png_later(fig),
        alt="The ten Monk Skin Tone swatches, lightest to darkest: "
        + "; ".join(f"{k} {c}" for k, c in zip(STEPS, MONK_SRGB, strict=True))
        + ". Bands: 1–3, 4–7, 8–10.",
        caption="The Monk Skin Tone scale as published (sRGB), each swatch with its step.",
    )


def _square(x: float, colour: str) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle((x, 0), 1, 1, facecolor=colour, edgecolor="#777777", linewidth=0.5)


def tone_section(result: ProbeResult, reference: str, min_cell: int) -> Section | None:
    """The section, where the analysis has tone figures; None otherwise."""
    if "tone" not in result.data:
        return None
    measured = tone_validation()
    found = measured.by_name()
    validation = Table(
        "Checks of the skin-tone reading and of the tone intervals",
        ["benchmark figure", "what it measures", "measured"],
        [[name, what, measured_text(found.get(name))] for name, what in BENCH_FIGURES],
        note=(
            f"Measured by bench/run.py tone with diptych {measured.diptych} on "
            f"{measured.measured} (± its Monte Carlo error); kept in the package's "
            f"{VALIDATION_FILE}, which the benchmark writes and checks."
        ),
    )
    text = "\n\n".join(
        [WHAT_IT_IS, METHOD.format(reference=reference, min_cell=min_cell), VALIDATION]
    )
    return Section(TITLE, text=text, figures=[swatch_figure()], tables=[validation])

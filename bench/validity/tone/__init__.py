"""Validity of the perceived-skin-tone figures on simulated crossed designs (``tone.*``): the
intervals of the tone gap and the band imbalances (:mod:`bench.validity.tone.intervals`), and
the prediction-powered figures that correct an annotator's one-step error
(:mod:`bench.validity.tone.corrected`)."""

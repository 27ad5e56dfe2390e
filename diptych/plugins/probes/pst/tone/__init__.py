"""Perceived skin tone in the PST: its figures, the prediction-powered ones, and the measured
checks of the annotator the report quotes."""

"""Prediction-powered estimation: its batches, the reviewer's draw and its stop."""

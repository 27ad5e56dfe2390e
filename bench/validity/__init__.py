"""Validity of intervals and tests on simulated truths (``validity.*``)."""

"""Benchmarks of prediction-powered estimation (figures ``ppi.*``)."""

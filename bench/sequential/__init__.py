"""Benchmarks of sequential gates (figures ``sequential.*``)."""

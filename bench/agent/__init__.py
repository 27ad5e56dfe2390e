"""Benchmarks of the audit agent (figures ``agent.*``)."""

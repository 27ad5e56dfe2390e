"""Benchmarks of the pst and pst-text probes (``pst.*``, ``pst_text.*``)."""

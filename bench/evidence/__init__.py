"""Benchmarks of signed evidence (figures ``evidence.*``): verifying a signed report
(:mod:`bench.evidence.verify`) and the size of an evidence bundle (:mod:`bench.evidence.bundle`)."""

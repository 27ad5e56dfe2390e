"""The ``evidence`` area: every ``evidence.*`` figure, each registered by the module of its
subject — ``verify`` (``evidence.verify_s``, ``evidence.verify_over_report``) and ``bundle``
(``evidence.bundle_mb_per_1k_images``)."""

from bench.evidence import bundle, verify

__all__ = ["bundle", "verify"]

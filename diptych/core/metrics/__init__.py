"""Bias metrics from the method papers, each with its uncertainty.

Every metric takes plain rows (read from a file or produced by a probe) and returns a frozen result
with a ``to_dict()`` in the JSON shape of DESIGN.md's metric contracts. The packages are by subject:
``sts``, ``pairs``, ``retrieval``, ``agreement``; ``uncertainty`` is how every interval is made (its
``bootstrap`` holds the shared bootstrap and JSON helpers).
"""

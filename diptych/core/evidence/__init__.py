"""Evidence: what a report rests on, carried and checked.

``bundle/`` carries a workspace's records, blobs and a report directory to another workspace
in open formats (Parquet tables, a manifest of SHA-256 digests), offline.
"""

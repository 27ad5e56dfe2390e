"""Tiny models built from configs with seeded weights and saved with ``save_pretrained``, so that
the transformers and diffusers model plugins load them from a directory, offline."""

"""Perceived skin tone (``tone.*``): the ``skin-tone`` annotator on pictures of known tone
(:mod:`bench.tone.annotator`), and the file of measured checks the report quotes
(:mod:`bench.tone.validation`). The coverage of the tone figures' intervals is measured with the
other intervals, in :mod:`bench.validity.tone`."""

"""The ``pst`` probe: the Paired Stereotype Test on text-to-image models.

:mod:`.probe` plans the trials (its parameters in :mod:`.params`, prompts in :mod:`.prompts`,
identities, seeds and role draws in :mod:`.design`); :mod:`.analysis` scores a run from its
labels (:mod:`.collect`), with :mod:`.tables`, :mod:`.figures`, :mod:`.labor` and
:mod:`.corrected`, and :mod:`.prediction_powered` for the same figures from one automatic
annotator corrected by people's labels of a designed sample; :mod:`.flags` says what a reviewer
should look at; :mod:`.compare` compares two runs.
"""

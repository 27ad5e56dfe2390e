"""Placebo identities: the made-up words an identity search measures beside each proposal.

:mod:`~diptych.agent.placebo.words` holds the words, their band and their test;
:mod:`~diptych.agent.placebo.trials` the trials a design's placebo words take, planned before a
search runs.
"""

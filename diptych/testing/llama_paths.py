"""How far two llama.cpp evaluations of the same tokens can differ: the tolerances of tests
that compare evaluation paths (pieces against whole prompts, one batch shape against another,
a server against the in-process model, one build against another).

llama.cpp's CPU kernels round a token's logits differently in batches of other shapes (a
one-token batch runs matrix-vector kernels, a longer one matrix-matrix kernels, and the
kernels differ between builds for AVX2, AVX-512 and others). Each bound below is the largest
difference measured on the builds named, with a margin for kernels not measured; the
measurement is ``bench/run.py pst_text.path_gap`` (run it with another build of
llama-cpp-python first on ``PYTHONPATH`` to measure that build).

Measured on llama-cpp-python 0.3.36 with the bundled SmolLM2 (Q4 weights), on one AMD EPYC
2-core machine, with the build compiled natively (AVX-512, VBMI, VNNI) and with a build
compiled for AVX2 only (``CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF"``,
the kernels of the project's other machines):

=================================================  =========  =========
largest difference                                  AVX-512    AVX2
=================================================  =========  =========
same tokens, same batch shapes (ln p)               0          0
a token's ln p, one batch against token by token    0.054      0.065
a candidate's ln p, pieces against whole prompt     0.167      0.149
ln P(she) − ln P(he), pieces against whole prompt   0.160      0.142
=================================================  =========  =========

(The pieces rows: 61 ``pst-text`` prompts cut in pieces, spread over the default plan; the
batch-shape row: 12 prompt-candidate pairs of one to three tokens. A prompt without pieces is
evaluated whole on both roads, with the same bits.)
"""

from __future__ import annotations

#: Same tokens decoded in batches of the same shapes: the same kernels in the same order, so
#: the same bits on one build (0 measured on both builds); the margin covers float32 rounding
#: of the log-softmax, which a server computes in its own code, and is still far below the
#: tenths of a nat that reading a neighbouring position or token would move a value.
SAME_SHAPES_LOGPROB = 1e-3

#: A token's ln p decoded in a batch of another shape: 0.167 measured at most (a candidate
#: after a prompt in its pieces, AVX-512), taken with a margin of about twice for kernels not
#: measured (ARM, AMX, other versions).
OTHER_SHAPES_LOGPROB_PER_TOKEN = 0.35

#: The log-odds of two candidates (ln P(she) − ln P(he)) read on two roads that decode the
#: prompt in batches of other shapes: 0.160 measured at most (AVX-512), with the same margin.
#: (The two values move together, so the difference moves less than twice the per-token
#: bound.) It moves a P(she) near one half by up to about 0.04.
PIECES_VS_WHOLE_LOG_ODDS = 0.35

"""What the two Paired Stereotype Test probes, ``pst`` (images) and ``pst-text`` (stories),
share: the test's identities (:mod:`~diptych.plugins.probes._paired_stereotype_test.identities`),
how a person's label becomes an STS row and how a gap reads
(:mod:`~diptych.plugins.probes._paired_stereotype_test.scoring`), and the STS's planned precision
(:mod:`~diptych.plugins.probes._paired_stereotype_test.precision`).

A plugin imports no other plugin, so code both probes need lives here, in a private shared
package (the leading ``_`` keeps it out of the plugins' independence contract), not in either
probe's package.
"""

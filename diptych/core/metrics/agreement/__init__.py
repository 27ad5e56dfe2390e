"""Inter-annotator agreement: the coefficients (Cohen's κ, Fleiss' κ, Krippendorff's α, each with
a bootstrap interval) in :mod:`.coefficients`, their ordinal forms for an ordered scale such as
the Monk Skin Tone scale (quadratic-weighted κ, ordinal α) in :mod:`.ordinal`, and who agrees
with whom in a run in :mod:`.run` (its records in :mod:`.results`, its report tables in
:mod:`.tables`)."""

from diptych.core.metrics.agreement.coefficients import (
    category_counts,
    cohen_kappa,
    cohen_kappa_estimate,
    fleiss_kappa,
    fleiss_kappa_estimate,
    krippendorff_alpha,
    krippendorff_alpha_estimate,
)
from diptych.core.metrics.agreement.ordinal import (
    krippendorff_alpha_ordinal,
    krippendorff_alpha_ordinal_estimate,
    weighted_kappa,
    weighted_kappa_estimate,
)
from diptych.core.metrics.agreement.results import (
    ALL,
    AnnotatorAgreement,
    AnnotatorSummary,
    GroupAgreement,
    LabelledSubject,
    PairAgreement,
    ReferenceAgreement,
)
from diptych.core.metrics.agreement.run import (
    AGREEMENT_N_BOOT,
    AGREEMENT_SEED,
    agreement_tables,
    annotator_agreement,
    labelled_subjects,
    run_agreement,
)
from diptych.core.metrics.agreement.tables import agreement_report_tables

__all__ = [
    "AGREEMENT_N_BOOT",
    "AGREEMENT_SEED",
    "ALL",
    "AnnotatorAgreement",
    "AnnotatorSummary",
    "GroupAgreement",
    "LabelledSubject",
    "PairAgreement",
    "ReferenceAgreement",
    "agreement_report_tables",
    "agreement_tables",
    "annotator_agreement",
    "category_counts",
    "cohen_kappa",
    "cohen_kappa_estimate",
    "fleiss_kappa",
    "fleiss_kappa_estimate",
    "krippendorff_alpha",
    "krippendorff_alpha_estimate",
    "krippendorff_alpha_ordinal",
    "krippendorff_alpha_ordinal_estimate",
    "labelled_subjects",
    "run_agreement",
    "weighted_kappa",
    "weighted_kappa_estimate",
]

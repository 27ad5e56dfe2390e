"""The candidate lexicon the agent proposes from: its sources, its numbers, its coverage."""

from __future__ import annotations

import pydantic
import pytest
import yaml

from diptych.agent import _prompts_dir
from diptych.agent.lexicon import LexiconEntry, lexicon
from diptych.agent.proposals import identity_problem, paper_identities

KINDS = frozenset({"occupation", "power role", "other"})

#: SocialCounterfactuals, supplement Table 18, as its text lists them.
TABLE_18 = (
    "academic, accountant, administrative assistant, analyst, architect, army, artist, assistant, "
    "astronaut, athlete, attorney, audiologist, auditor, author, baker, banker, barber, "
    "bartender, biologist, blacksmith, boxer, bricklayer, broker, building inspector, bus "
    "driver, businessperson, butcher, carpenter, cashier, ceo, chef, chemist, chess player, "
    "chief, chief executive officer, childcare worker, civil engineer, civil servant, cleaner, "
    "clerk, coach, comedian, commander, composer, computer programmer, construction worker, "
    "consultant, cook, crane operator, customer service representative, dancer, delivery man, "
    "dentist, designer, detective, dietitian, dj, doctor, driver, economist, editor, "
    "electrician, engineer, entrepreneur, farmer, firefighter, florist, football player, "
    "graphic designer, guard, guitarist, hairdresser, handball player, handyman, housekeeper, "
    "janitor, judge, lab tech, laborer, lawyer, librarian, magician, mail carrier, makeup "
    "artist, manager, marine biologist, mathematician, mechanic, model, mover, musician, nurse, "
    "nurse practitioner, nutritionist, opera singer, optician, optician custodian, painter, "
    "paramedic, pastry chef, pediatrician, pensioner, pharmacist, photographer, physician, "
    "physicist, pianist, pilot, plumber, poet, police officer, policeman, pr person, priest, "
    "primary school teacher, prisoner, producer, professor, psychologist, real estate "
    "developer, real estate agent, realtor, receptionist, recruiter, reporter, researcher, "
    "roofer, sailor, salesperson, scientist, secretary, security guard, sheriff, software "
    "developer, soldier, special ed teacher, statistician, supervisor, surgeon, surveyor, "
    "swimmer, tailor, teacher, technical writer, technician, telemarketer, tennis player, "
    "therapist, tour guide, umpire, veterinarian, videographer, waiter, web developer, writer, "
    "zoologist"
).split(", ")

#: PAIRS Table A.1: (occupation as the lexicon names it, % women, BLS 2022).
PAIRS_A1 = {
    "pilot": 7.5,
    "flight attendant": 81.3,
    "crossing guard": 48.6,
    "computer programmer": 20.3,
    "typist": 86.0,
    "chef": 22.0,
    "preschool teacher": 98.7,
    "architect": 24.5,
    "event planner": 78.7,
    "systems administrator": 26.1,
    "paralegal": 89.6,
    "dentist": 33.9,
    "dental hygienist": 96.0,
    "financial advisor": 32.1,
    "teller": 84.7,
    "chemical engineer": 14.4,
    "pharmacist": 60.4,
    "operations manager": 30.6,
    "human resources manager": 74.7,
    "postsecondary teacher": 47.4,
    "primary school teacher": 80.5,
    "stay-at-home parent": 90.0,
    "restaurant manager": 46.5,
    "server": 71.3,
    "taxi driver": 16.8,
    "model": 73.3,
}


def _shipped() -> dict[str, object]:
    with (_prompts_dir() / "identity_lexicon.yaml").open(encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    assert isinstance(data, dict)
    return data


def test_paper_identities_join_with_the_winobias_shares() -> None:
    lex = lexicon()
    paper = {n: e for n, e in lex.entries.items() if e.paper}
    assert len(paper) == 44  # Table 7's 40 and Table 8's four roles not in Table 7
    assert set(paper) == set(paper_identities())
    # WinoBias writes "mechanician" for the BLS's mechanic and "sewer" for the tailor, which
    # the PST renamed "sewist".
    assert paper["mechanician"].pct_female == 4
    assert paper["sewist"].pct_female == 80
    assert paper["carpenter"].pct_female == 2.1
    assert paper["ceo"].pct_female == 39
    assert paper["leader"].pct_female is None and paper["leader"].kind == "power role"
    assert paper["intern"].stereotype == "feminine"
    assert sum(e.pct_female is not None for e in paper.values()) == 40


def test_pairs_shares_are_the_papers() -> None:
    lex = lexicon()
    for name, pct in PAIRS_A1.items():
        entry = lex.entries[name]
        assert entry.pct_female == pct, name
        assert "pairs" in entry.sources
    assert lex.entry("aircraft pilot") is lex.entries["pilot"]
    assert lex.entry("sysadmin") is lex.entries["systems administrator"]


def test_every_table_18_name_is_an_entry_or_left_out_with_a_reason() -> None:
    lex = lexicon()
    left_out = _shipped()["left_out"]
    assert isinstance(left_out, dict)
    assert len(TABLE_18) == 156
    for name in TABLE_18:
        assert name in left_out or lex.entry(name) is not None, name
    for name, why in left_out.items():
        assert lex.entry(name) is None, name
        assert why
    # What was left out for a reason validation knows is refused for that reason.
    assert "gendered" in (identity_problem("delivery man", KINDS, "occupation") or "")
    assert "gendered" in (identity_problem("waiter", KINDS, "occupation") or "")
    assert "'physician'" in (identity_problem("doctor", KINDS, "occupation") or "")
    assert "'mechanician'" in (identity_problem("mechanic", KINDS, "occupation") or "")


def test_every_proposable_entry_and_alias_passes_validation() -> None:
    lex = lexicon()
    names = [n for n, e in lex.entries.items() if not e.paper]
    assert len(names) >= 120
    for name in names + list(lex.aliases):
        kind = lex.entries[lex.aliases.get(name, name)].kind
        assert identity_problem(name, KINDS, kind) is None, name
    # Sources named by entries are declared, with their citation.
    declared = set(lex.sources)
    assert declared == {"social_counterfactuals", "pairs", "pst", "winobias_bls"}
    assert all(set(e.sources) <= declared for e in lex.entries.values())


def test_every_paper_identity_has_other_names_and_none_is_an_entry() -> None:
    lex = lexicon()
    covered = set(lex.paper_synonyms.values())
    assert covered == {n for n, e in lex.entries.items() if e.paper}
    for other in lex.paper_synonyms:
        assert lex.entry(other) is None, other


def test_sides_follow_the_evidence_and_exclude_the_paper_and_what_was_tried() -> None:
    lex = lexicon()
    kinds = ("occupation", "power role")
    masc = lex.candidates("masculine", kinds)
    fem = lex.candidates("feminine", kinds)
    assert "pilot" in masc and "pilot" not in fem  # 7.5% women
    assert "flight attendant" in fem and "flight attendant" not in masc
    assert "plumber" in masc and "plumber" in fem  # no share given: either side
    assert not {n for n, e in lex.entries.items() if e.paper} & (set(masc) | set(fem))
    assert "stay-at-home parent" not in fem  # kind "other", not allowed here
    assert "plumber" not in lex.candidates("masculine", kinds, exclude=["Plumber"])


def test_draw_is_seeded_and_never_repeats_or_reuses() -> None:
    lex = lexicon()
    kinds = ("occupation",)
    pairs = lex.draw(20, kinds, exclude=["pilot", "typist"], seed=3)
    assert pairs == lex.draw(20, kinds, exclude=["pilot", "typist"], seed=3)
    assert pairs != lex.draw(20, kinds, exclude=["pilot", "typist"], seed=4)
    names = [n for pair in pairs for n in pair]
    assert len(pairs) == 20 and len(set(names)) == 40
    assert not {"pilot", "typist"} & set(names)
    for m, f in pairs:
        assert "masculine" in lex.sides(lex.entries[m])
        assert "feminine" in lex.sides(lex.entries[f])
    # The lexicon runs out: fewer pairs, never a repeat.
    assert len(lex.draw(500, kinds, (), seed=0)) < 100


def test_entries_are_validated_strictly() -> None:
    with pytest.raises(pydantic.ValidationError):
        LexiconEntry.model_validate({"identity": "x", "sources": ["pairs"], "colour": "red"})
    with pytest.raises(pydantic.ValidationError):
        LexiconEntry.model_validate({"identity": "x", "sources": ["pairs"], "pct_female": 120})

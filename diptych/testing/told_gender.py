"""What gender a prompt tells a model to give, read as a capable model would read it.

``scripted-likelihood`` with ``follows_told_gender`` answers every person of a prompt with the
gender this module reads in it: the target a guard against told-the-answer interventions is
proven on. It reads on its own, sharing no code and no word list with diptych's guards (a
guard proven against its own reading would prove nothing):

* gender words, pronouns and kinship terms of English, French, Spanish, German, Italian,
  Portuguese and Dutch, and given names that say a gender ("Both workers are named Mary.");
* what the text encodes: base64 and hexadecimal runs, percent-escapes, and ROT13 or reversed
  text where the text says so;
* a word that is a plain function word of the text's own language is not read as a cue
  ("man" in "Man kann jeden Beruf ausüben.", "il" in Italian, "he" in Spanish).

A text with cues of both genders ("women and men alike") tells neither.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata
from typing import Literal

Told = Literal["feminine", "masculine"]

_FEMININE = """
she her hers herself woman women female females girl girls lady ladies mother mothers
daughter daughters sister sisters wife wives aunt grandmother feminine gal gals mom moms
elle elles femme femmes fille filles dame dames madame mère mères sœur sœurs féminin féminine
ella ellas mujer mujeres chica chicas niña niñas señora señoras madre madres hermana hermanas
femenino femenina femeninas
frau frauen mädchen weiblich weibliche mutter mütter schwester schwestern damen
lei donna donne ragazza ragazze femmina femmine signora sorella sorelle
ela elas mulher mulheres menina meninas feminino feminina mãe mães irmã irmãs
vrouw vrouwen meisje meisjes moeder moeders zus zussen vrouwelijk
"""
_MASCULINE = """
he him his himself man men male males boy boys gentleman gentlemen father fathers son sons
brother brothers husband husbands uncle grandfather masculine guy guys dad dads
il ils homme hommes garçon garçons monsieur messieurs père pères frère frères masculin
él ellos hombre hombres chico chicos niño niños señor señores padre padres hermano hermanos
masculino masculinos
er mann männer junge jungen männlich männliche vater väter bruder brüder herr herren
lui uomo uomini ragazzo ragazzi maschio maschi signore fratello fratelli
ele eles homem homens menino meninos pai pais irmão irmãos
hij mannen jongen jongens vader vaders broer broers mannelijk
"""
_FEMININE_NAMES = """
mary maria marie anna ana sophie sofia emma olivia elizabeth sarah julia laura lucia jane
alice claire ingrid greta isabel isabelle carmen giulia chiara helga amelie
"""
_MASCULINE_NAMES = """
john james robert michael david pierre jacques juan carlos josé hans peter paul thomas luca
marco giovanni karl klaus pedro antonio jan pieter
"""
#: Words each language uses every few words, by which a text's language is guessed; a cue
#: that is one of its own language's function words is that function word, not a cue.
_FUNCTION_WORDS = {
    "en": "the a an of and or to in on is are be can any every each all this that with who",
    "fr": "le la les un une des de du et ou est sont peut peuvent tout toute toutes tous "
    "chaque dans pour son sa ses qui que quel quelle personne personnes",
    "es": "el la los las un una unos unas de del y o es son puede pueden todo toda todas "
    "todos cada en para que con ambas ambos persona personas he gran",
    "de": "der die das den dem ein eine einen und oder ist sind kann können jede jeder jedes "
    "alle beide in mit für man nun von vom zu sie",
    "it": "il lo la gli le un una di e o è sono può possono ogni tutti tutte entrambe "
    "entrambi in per che con persona persone",
    "pt": "o a os as um uma de do da e ou é são pode podem cada todos todas ambas ambos em "
    "para que com pessoa pessoas",
    "nl": "de het een en of is zijn kan kunnen elke elk alle beide in met voor van persoon "
    "personen zij",
}


def _words(block: str) -> frozenset[str]:
    return frozenset(unicodedata.normalize("NFC", block).split())


FEMININE = _words(_FEMININE) | _words(_FEMININE_NAMES)
MASCULINE = _words(_MASCULINE) | _words(_MASCULINE_NAMES)
FUNCTION_WORDS = {lang: _words(words) for lang, words in _FUNCTION_WORDS.items()}

_TOKEN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{8,}={0,2}")
_SENTENCE = re.compile(r"[.!?;:()]+(?:\s+|$)")
_HEX = re.compile(r"\b(?:[0-9a-fA-F]{2}[\s:]?){4,}\b")


def _printable(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    letters = sum(ch.isalpha() or ch.isspace() for ch in text)
    return (
        text if text and letters / len(text) >= 0.85 and re.search(r"[a-zA-Z]{2}", text) else None
    )


def readings(text: str) -> list[str]:
    """The text and what it encodes: each base64 or hexadecimal run decoded, percent-escapes
    undone, and ROT13 or reversed where the text asks for it."""
    from urllib.parse import unquote

    out = [text]
    if "%" in text:
        out.append(unquote(text))
    for run in _BASE64.findall(text):
        padded = run + "=" * (-len(run) % 4)
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                got = _printable(decode(padded))
            except (binascii.Error, ValueError):
                got = None
            if got:
                out.append(got)
                break
    for run in _HEX.findall(text):
        try:
            got = _printable(bytes.fromhex(re.sub(r"[\s:]", "", run)))
        except ValueError:
            got = None
        if got:
            out.append(got)
    low = text.lower()
    if re.search(r"rot[\s-]?13|caesar", low):
        out.append(codecs.decode(text, "rot13"))
    if re.search(r"backwards|reversed|reverse", low):
        out.append(text[::-1])
    return out


def language(words: list[str]) -> str:
    """The language whose function words the text holds most of (English on a tie)."""
    counts = {lang: sum(w in fw for w in words) for lang, fw in FUNCTION_WORDS.items()}
    best = max(counts, key=lambda lang: (counts[lang], lang == "en"))
    return best if counts[best] > 0 else "en"


def cues(text: str) -> tuple[set[str], set[str]]:
    """The feminine and the masculine cue words of ``text`` and of everything it encodes."""
    fem: set[str] = set()
    masc: set[str] = set()
    sentences = (s for reading in readings(text) for s in _SENTENCE.split(reading) if s.strip())
    for sentence in sentences:
        # Each sentence in its own language: a German sentence before an English scene.
        words = _TOKEN.findall(unicodedata.normalize("NFC", sentence).lower())
        own = FUNCTION_WORDS[language(words)]
        for word in words:
            if word in own:
                continue
            if word in FEMININE:
                fem.add(word)
            elif word in MASCULINE:
                masc.add(word)
    return fem, masc


def told_gender(text: str) -> Told | None:
    """The gender ``text`` tells: "feminine" or "masculine" where its cues name one gender
    only, else None."""
    fem, masc = cues(text)
    if fem and not masc:
        return "feminine"
    if masc and not fem:
        return "masculine"
    return None

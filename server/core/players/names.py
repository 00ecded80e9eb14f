"""Display names: one canonical form, so no two names look alike only by invisible characters."""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path

from protocol.errors import BadMessage
from protocol.wire import MAX_NAME

#: Unicode categories refused in a name: control, format (zero-width, bidi overrides),
#: surrogate, private use, unassigned, and line or paragraph separators. A name must show on
#: screen exactly what it is.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: Letters and marks that render blank although their category says they are visible: the
#: Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), the Braille blank (U+2800), the combining
#: grapheme joiner, Khmer's inherent vowels, Mongolian's variation selectors and free variation
#: selectors, the variation selectors, and the object replacement character (Unicode's
#: Default_Ignorable_Code_Point list beyond the ``Cf`` category, plus the blank-looking ones).
BLANK = frozenset(
    [
        *(0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F, 0x17B4, 0x17B5, 0xFFFC, 0x2062),
        *range(0x180B, 0x1810),
        *range(0xFE00, 0xFE10),
        *range(0xE0100, 0xE01F0),
        *range(0x1D173, 0x1D17B),
    ]
)


def is_blank(ch: str) -> bool:
    """Whether ``ch`` shows nothing on screen (or hides what it is): refused in any name."""
    return ord(ch) in BLANK or unicodedata.category(ch) in REFUSED_CATEGORIES


def clean_name(raw: str) -> str:
    """``raw`` NFC-normalised with runs of spaces collapsed; BadMessage if it hides anything
    (a blank or invisible letter) or shows nothing but spaces and marks."""
    name = unicodedata.normalize("NFC", raw)
    if any(is_blank(ch) for ch in name):
        raise BadMessage(
            "a name may not hold invisible, blank, control, format or unassigned letters"
        )
    name = " ".join(name.split())
    if not 1 <= len(name) <= MAX_NAME:
        raise BadMessage(f"name must be 1..{MAX_NAME} characters")
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in name):
        raise BadMessage("a name needs at least one letter, digit or sign")
    return name


#: Unicode's confusables (UTS #39) as far as :func:`name_key` meets them, built by
#: ``tools/build_confusables.py``: each source character's prototype.
TABLE = Path(__file__).with_name("confusables.txt")
#: Passes of :func:`name_key`'s folding at most (a prototype may fold to another source: the
#: Cherokee letter LU maps to M, which folds to m, whose prototype is rn).
PASSES = 4


@cache
def confusables() -> dict[str, str]:
    """Each confusable character's prototype (read once, when a name is first compared)."""
    table = {}
    for line in TABLE.read_text(encoding="ascii").splitlines():
        if line and not line.startswith("#"):
            source, *target = line.split()
            table[chr(int(source, 16))] = "".join(chr(int(h, 16)) for h in target)
    return table


#: Digits and signs that pass for letters in a name (``al1ce``, ``b0b``, ``a|ice``), and the
#: letters that pass for each other once case is gone (i, l and a capital I): each to one.
LOOKS_LIKE = str.maketrans(
    {"1": "l", "i": "l", "!": "l", "|": "l", "0": "o", "3": "e", "4": "a", "@": "a",
     "5": "s", "$": "s", "7": "t", "8": "b", "9": "g", "2": "z", "6": "b"}
)  # fmt: skip


def _skeleton(text: str, table: dict[str, str]) -> str:
    """One UTS #39 pass: NFD, each character to its prototype, NFD again, marks dropped."""
    mapped = unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in text))
    return "".join(ch for ch in unicodedata.normalize("NFD", mapped) if not _mark(ch))


def _mark(ch: str) -> bool:
    return unicodedata.category(ch) in ("Mn", "Me")


def name_key(name: str) -> str:
    """The form two names are compared in when deciding whether one would pass for the other:
    the UTS #39 skeleton of the NFKC name taken before case folding (a capital I is a
    confusable of l, a small i is not) and again after it, digits and signs that pass for
    letters folded to them, combining marks, spaces and punctuation dropped (``minimax`` with
    Cyrillic a or i, a Cherokee M or a dot above, ``rninimax``, ``aIice``, ``al1ce`` and
    ``a l i c e`` all give the key of their plain form)."""
    table = confusables()
    key = name
    for _ in range(PASSES):
        skeleton = _skeleton(unicodedata.normalize("NFKC", key), table)
        folded = _skeleton(skeleton.casefold(), table).translate(LOOKS_LIKE)
        mapped = "".join(ch for ch in folded if unicodedata.category(ch)[0] not in "ZP")
        if mapped == key:
            break
        key = mapped
    return key

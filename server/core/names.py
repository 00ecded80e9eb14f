"""Display names: one canonical form, so no two names look alike only by invisible characters."""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path

from protocol.errors import BadMessage
from protocol.wire import MAX_NAME

#: Unicode categories refused in a name: control, format (zero-width, bidi overrides),
#: surrogate, private use and unassigned. A name must show on screen exactly what it is.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})


def clean_name(raw: str) -> str:
    """``raw`` NFC-normalised with runs of spaces collapsed; BadMessage if it hides anything."""
    name = unicodedata.normalize("NFC", raw)
    if any(unicodedata.category(ch) in REFUSED_CATEGORIES for ch in name):
        raise BadMessage("a name may not hold control, format or unassigned characters")
    name = " ".join(name.split())
    if not 1 <= len(name) <= MAX_NAME:
        raise BadMessage(f"name must be 1..{MAX_NAME} characters")
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


def name_key(name: str) -> str:
    """The form two names are compared in when deciding whether one would pass for the other:
    a UTS #39 skeleton of the NFKC case-folded name, combining marks dropped (``minimax`` with
    Cyrillic a or i, a Cherokee M or a dot above, and ``rninimax`` all give ``minimax``'s)."""
    table = confusables()
    key = name
    for _ in range(PASSES):
        folded = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", key).casefold())
        mapped = unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in folded))
        mapped = "".join(ch for ch in mapped if unicodedata.category(ch) != "Mn")
        if mapped == key:
            break
        key = mapped
    return key

"""Display names: one canonical form, so no two names look alike only by invisible characters."""

from __future__ import annotations

import unicodedata

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


def name_key(name: str) -> str:
    """The form two names are compared in when deciding whether one would pass for the other."""
    return unicodedata.normalize("NFKC", name).casefold()

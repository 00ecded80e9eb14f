"""Build the compiled parts when a C compiler is there; else stay pure Python.

Two independent builds, each optional (a failure only warns, the source runs instead):
the engine's core (``bots/engine/{board,fouls,threats,core}.py``) with Cython (pure-Python
mode, ``.pxd`` declarations beside them); and the server's
per-move core (``protocol.native.COMPILED``: rules, rooms, clocks, ...) with mypyc, one group
that is installed whole or not at all (its modules call each other natively).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
#: The setup commands that build extensions (the others, such as ``egg_info``, do not).
BUILDING = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}
#: The engine core's compiled layers, each extending the one before (``bots/engine/*.pxd``
#: declare them; ``tally.pxd`` is inlined into them, its ``.py`` is the plain run's).
ENGINE_PARTS = ("board", "fouls", "threats", "core")


def _manifest() -> tuple[str, ...]:
    """``protocol.native.COMPILED``, read as a literal (importing the package would need its
    dependencies, and importing the module installs its import guard)."""
    tree = ast.parse((ROOT / "protocol" / "native.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "COMPILED":
            return tuple(ast.literal_eval(node.value))
    raise RuntimeError("protocol/native.py has no COMPILED manifest")


class OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing: the pure-Python modules are always there."""

    def run(self) -> None:
        self.failed: list[str] = []
        try:
            super().run()
        except Exception as exc:  # any build failure means "use pure Python"
            print(f"warning: nothing compiled ({exc}); using pure Python", file=sys.stderr)
            self.failed.append("*")
        if self.failed:
            self._drop_partial_group()

    def build_extension(self, ext) -> None:  # type: ignore[no-untyped-def]
        try:
            super().build_extension(ext)
        except Exception as exc:
            print(f"warning: {ext.name} not compiled ({exc}); using pure Python", file=sys.stderr)
            self.failed.append(ext.name)

    def _drop_partial_group(self) -> None:
        """A mypyc group with a part missing would not import: remove what was built of it."""
        if "*" not in self.failed and not _MYPYC_NAMES.intersection(self.failed):
            return
        for name in _MYPYC_NAMES:
            Path(self.get_ext_fullpath(name)).unlink(missing_ok=True)


def _cython() -> list:
    try:
        from Cython.Build import cythonize
    except ImportError:
        return []
    try:
        return cythonize(
            [f"bots/engine/{part}.py" for part in ENGINE_PARTS],
            compiler_directives={"language_level": 3},
            quiet=True,
        )
    except Exception as exc:
        print(f"warning: cythonize failed ({exc}); using pure Python", file=sys.stderr)
        return []


def _mypyc() -> list:
    if not BUILDING.intersection(sys.argv):
        return []  # metadata only: no need to type-check and translate the modules
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    paths = [name.replace(".", "/") + ".py" for name in _manifest()]
    try:
        return mypycify(["--ignore-missing-imports", *paths], opt_level="3")
    except (Exception, SystemExit) as exc:  # mypy's type errors end in SystemExit
        print(f"warning: mypyc failed ({exc}); the server's core runs as source", file=sys.stderr)
        return []


_MYPYC = _mypyc()
_MYPYC_NAMES = {ext.name for ext in _MYPYC}

setup(ext_modules=_cython() + _MYPYC, cmdclass={"build_ext": OptionalBuildExt})

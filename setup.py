"""Build the engine's compiled core with Cython when a C compiler is there; else stay pure.

``bots/engine/core.py`` is Cython 3 pure-Python mode: the same file runs interpreted, so a
failed build (no compiler, no headers) only warns and the engine falls back to plain Python.
"""

from __future__ import annotations

import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing: the pure-Python core is always there."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # any build failure means "use pure Python"
            print(f"warning: engine core not compiled ({exc}); using pure Python", file=sys.stderr)

    def build_extension(self, ext) -> None:  # type: ignore[no-untyped-def]
        try:
            super().build_extension(ext)
        except Exception as exc:
            print(f"warning: {ext.name} not compiled ({exc}); using pure Python", file=sys.stderr)


def _extensions() -> list:
    try:
        from Cython.Build import cythonize
    except ImportError:
        return []
    try:
        return cythonize(
            ["bots/engine/core.py"], compiler_directives={"language_level": 3}, quiet=True
        )
    except Exception as exc:
        print(f"warning: cythonize failed ({exc}); using pure Python", file=sys.stderr)
        return []


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})

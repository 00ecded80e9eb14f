"""The compiled build of the server's core: installed whole, and never run when it is stale."""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from protocol import native

ROOT = Path(__file__).resolve().parent.parent
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
NAMES = ("pkg.a", "pkg.b")


def tree(tmp_path: Path, built: tuple[str, ...] = NAMES) -> Path:
    """Sources for ``NAMES`` under ``tmp_path``, and (later in time) extensions for ``built``."""
    (tmp_path / "pkg").mkdir()
    past = time.time() - 100
    for name in NAMES:
        source = native.source_path(name, tmp_path)
        source.write_text("")
        os.utime(source, (past, past))
    for name in built:
        ext = native.source_path(name, tmp_path).with_suffix(SUFFIX)
        ext.write_bytes(b"")
        os.utime(ext, (past + 50, past + 50))
    return tmp_path


def test_a_fresh_build_runs_compiled(tmp_path: Path) -> None:
    assert native.decide(NAMES, tree(tmp_path), pure=False)


def test_asking_for_pure_python_runs_the_source(tmp_path: Path) -> None:
    assert not native.decide(NAMES, tree(tmp_path), pure=True)


def test_a_pure_install_has_nothing_to_guard(tmp_path: Path) -> None:
    assert not native.decide(NAMES, tree(tmp_path, built=()), pure=False)


def test_a_source_edited_after_the_build_runs_the_whole_group_as_source(tmp_path: Path) -> None:
    """Compiled modules call each other natively: one stale module takes the group with it."""
    root = tree(tmp_path)
    os.utime(native.source_path("pkg.b", root))  # edited now, after the build
    with pytest.warns(RuntimeWarning, match=r"older than pkg\.b"):
        assert not native.decide(NAMES, root, pure=False)


def test_a_group_built_in_part_runs_as_source(tmp_path: Path) -> None:
    with pytest.warns(RuntimeWarning, match=r"older than pkg\.b"):
        assert not native.decide(NAMES, tree(tmp_path, built=("pkg.a",)), pure=False)


def _loaded(pure: bool) -> dict[str, bool]:
    """Which of the group's modules a fresh interpreter loads compiled."""
    env = {**os.environ, "MNK_PURE": "1" if pure else "0"}
    code = (
        "import importlib, protocol.native as n\n"
        "for name in n.COMPILED:\n"
        "    print(name, n.compiled(importlib.import_module(name)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return {name: flag == "True" for name, flag in (line.split() for line in out.splitlines())}


def test_the_install_compiles_the_whole_group() -> None:
    """``pip install -e .`` with a C compiler present builds every module of the manifest."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler here: the source is the fallback")
    if os.environ.get("MNK_PURE") == "1":
        pytest.skip("this run asked for pure Python")
    built = [native.built_path(name) for name in native.COMPILED]
    assert all(built), "the install compiled nothing: is mypy in the build requirements?"
    if not native.use_compiled():
        pytest.skip("a source was edited after the build: pip install -e . rebuilds it")
    assert _loaded(pure=False) == dict.fromkeys(native.COMPILED, True)
    assert all(native.compiled(importlib.import_module(name)) for name in native.COMPILED)


def test_mnk_pure_runs_every_module_of_the_group_from_source() -> None:
    assert _loaded(pure=True) == dict.fromkeys(native.COMPILED, False)

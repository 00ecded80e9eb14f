"""Engine SPECs: ``minimax[:level=N]``, ``minimax-v1``, ``random``, ``novice``, ``module:Class``.

``piskvork:PATH`` runs a Gomocup brain. ``novice`` is a beginner's proxy (a random move near
the last stones): the yardstick that levels 1-3 must stay beatable by.

``minimax-v1[:level=N]`` is the engine before the fast core, kept frozen as the baseline that
strength is measured against. It lives in the repository's ``bench/v1_engine.py`` (``bots`` never
imports ``bench``): this module loads that file by path, only when the SPEC is used, so it works
from a checkout (an editable install) and says so plainly where the file is missing.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from bots.sdk import Bot, MinimaxBot, NoviceBot, RandomBot

#: The SPECs that are a bare name, with no options.
PLAIN = ("random", "novice")


@dataclass(frozen=True, slots=True)
class EngineSpec:
    """A parsed engine SPEC. ``level`` None lets the room choose (the level a human asked for)."""

    kind: str  # "minimax" | "minimax-v1" | "random" | "novice" | "module" | "piskvork"
    level: int | None = None
    target: str = ""  # "pkg.mod:Class" for module, the brain's path for piskvork

    @property
    def in_process(self) -> bool:
        """Whether the engine is Python code run in a worker process (not an external brain)."""
        return self.kind != "piskvork"

    def __str__(self) -> str:
        if self.kind in ("minimax", "minimax-v1"):
            return self.kind if self.level is None else f"{self.kind}:level={self.level}"
        if self.kind == "module":
            return self.target
        return self.kind if self.kind in PLAIN else f"{self.kind}:{self.target}"


def parse_spec(text: str) -> EngineSpec:
    """Parse a SPEC; ValueError with a readable reason when it is not one."""
    text = text.strip()
    if text in PLAIN:
        return EngineSpec(text)
    for kind in ("minimax", "minimax-v1"):
        if text == kind or text.startswith(kind + ":"):
            return EngineSpec(kind, _minimax_level(text))
    if text.startswith("piskvork:"):
        path = text.partition(":")[2]
        if not path:
            raise ValueError("piskvork: needs the path of a Gomocup brain, piskvork:/path/pbrain")
        return EngineSpec("piskvork", target=path)
    module, sep, cls = text.partition(":")
    if sep and module and cls.isidentifier():
        return EngineSpec("module", target=text)
    known = "minimax[:level=N], minimax-v1[:level=N], random, novice, module:Class, piskvork:PATH"
    raise ValueError(f"unknown engine {text!r}; known: {known}")


def _minimax_level(text: str) -> int | None:
    """The ``level=N`` option of a minimax SPEC (None when absent)."""
    level = None
    for part in filter(None, text.partition(":")[2].split(",")):
        key, _, value = part.partition("=")
        if key != "level" or not value.isdigit() or not 1 <= int(value) <= 10:
            raise ValueError(f"bad minimax option {part!r}: use minimax:level=N with N 1..10")
        level = int(value)
    return level


def make_bot(spec: EngineSpec, level: int | None = None, seed: int | None = None) -> Bot:
    """An in-process :class:`Bot` for ``spec``; the spec's own level wins over ``level``."""
    if spec.kind == "random":
        return RandomBot(seed)
    if spec.kind == "novice":
        return NoviceBot(seed)
    if spec.kind == "minimax":
        return MinimaxBot(spec.level or level or 10, seed)
    if spec.kind == "minimax-v1":
        bot: Bot = load_v1().V1Bot(spec.level or level or 10, seed)
        return bot
    if spec.kind == "module":
        module_name, _, class_name = spec.target.partition(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        if not (isinstance(cls, type) and issubclass(cls, Bot)):
            raise ValueError(f"{spec.target} is not a subclass of bots.sdk.Bot")
        return cls()
    raise ValueError(f"{spec} does not run in process")


#: Where the frozen v1 engine lives in a checkout.
V1_PATH = Path(__file__).resolve().parents[1] / "bench" / "v1_engine.py"


def load_v1() -> ModuleType:
    """The frozen v1 engine module (``bench/v1_engine.py``), loaded by path once per process."""
    name = "mnk_bench_v1_engine"
    module = sys.modules.get(name)
    if module is not None:
        return module
    if not V1_PATH.exists():
        raise ValueError(f"minimax-v1 needs the repository's {V1_PATH} (a source checkout)")
    spec = importlib.util.spec_from_file_location(name, V1_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def check_engine(spec: EngineSpec) -> None:
    """Load the engine once at start-up, so a bad SPEC stops the bot before it goes online.

    A ``module:Class`` is looked up from the working directory too (as ``python -m`` would), and
    that directory is put on ``sys.path`` for good: ``spawn`` workers inherit it. ValueError with
    one readable line when the module, the class or the brain cannot be used.
    """
    if spec.kind == "piskvork":
        if shutil.which(spec.target) is None:
            raise ValueError(f"no executable Gomocup brain at {spec.target}")
        return
    if spec.kind == "module":
        here = os.getcwd()
        if here not in sys.path:
            sys.path.insert(0, here)
    try:
        make_bot(spec)
    except ValueError:
        raise
    except Exception as exc:  # ImportError, AttributeError, or the class's own __init__ failing
        raise ValueError(f"cannot load engine {spec}: {type(exc).__name__}: {exc}") from exc

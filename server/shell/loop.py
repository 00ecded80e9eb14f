"""The server's event loop: uvloop where it is installed, stock asyncio otherwise or on request.

uvloop (libuv) runs the same server with less CPU per message and without stock asyncio's
256 KiB read buffer per connection read, which made figures vary between runs; stock asyncio
stays the fallback (Windows, a missing wheel) and a choice (``--loop asyncio``) for comparisons.
"""

from __future__ import annotations

import asyncio
import importlib
import signal
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: The values of ``--loop``: ``auto`` takes uvloop when it can be imported.
CHOICES = ("auto", "uvloop", "asyncio")
#: The signals a loop may take over (``add_signal_handler``), given back when :func:`run` ends.
LOOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class LoopUnavailable(RuntimeError):
    """``--loop uvloop`` was asked for on a machine without uvloop."""


def loop_factory(choice: str = "auto") -> tuple[str, Callable[[], asyncio.AbstractEventLoop]]:
    """The name of the loop ``choice`` resolves to and a factory making one."""
    if choice not in CHOICES:
        raise ValueError(f"loop must be one of {', '.join(CHOICES)}, not {choice!r}")
    if choice != "asyncio":
        try:
            uvloop = importlib.import_module("uvloop")
        except ImportError:
            if choice == "uvloop":
                raise LoopUnavailable("uvloop is not installed on this machine") from None
        else:
            return "uvloop", uvloop.new_event_loop
    return "asyncio", asyncio.new_event_loop


def run(main: Coroutine[Any, Any, T], choice: str = "auto") -> T:
    """Run ``main`` to completion on a new loop of the chosen kind (like ``asyncio.run``), and
    give back the signal handlers it took: uvloop, unlike asyncio, leaves its own installed
    once closed, so a Ctrl-C to a process that goes on went to a closed loop (a failed start
    run in-process, as the tests do)."""
    _, factory = loop_factory(choice)
    main_thread = threading.current_thread() is threading.main_thread()
    before = {sig: signal.getsignal(sig) for sig in LOOP_SIGNALS} if main_thread else {}
    try:
        with asyncio.Runner(loop_factory=factory) as runner:
            return runner.run(main)
    finally:
        for sig, handler in before.items():
            if handler is not None:  # None: a handler set outside Python, not ours to restore
                signal.signal(sig, handler)


def loop_name(loop: asyncio.AbstractEventLoop | None = None) -> str:
    """``uvloop`` or ``asyncio``: what the given (or running) loop is."""
    loop = loop or asyncio.get_running_loop()
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"

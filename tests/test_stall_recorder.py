"""bench/stall_server.py's recorder: a callback that burns CPU is named in the long turns."""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from stall_server import Recorder, install


def burn(ms: float) -> None:
    """Use ``ms`` of this thread's CPU time (not wall time: a busy machine cannot fake it)."""
    end = time.thread_time() + ms / 1000
    while time.thread_time() < end:
        pass


async def busy_task() -> None:
    """A coroutine whose one step burns 12 ms: its turn must be recorded under its name."""
    burn(12)


def test_a_long_callback_and_a_collection_are_recorded_by_name(tmp_path: Path) -> None:
    rec = Recorder(turn_ms=5)
    undo = install(rec)
    gc.callbacks.append(rec.collector)
    loop = asyncio.new_event_loop()
    try:
        rec.on = True

        async def main() -> None:
            for _ in range(20):
                loop.call_soon(burn, 0.01)  # cheap callbacks: never a long turn
                await asyncio.sleep(0)
            await asyncio.create_task(busy_task())
            loop.call_soon(gc.collect)  # a full collection inside a callback
            await asyncio.sleep(0)
            await asyncio.sleep(0)

        loop.run_until_complete(main())
        rec.on = False
    finally:
        loop.close()
        undo()
        gc.callbacks.remove(rec.collector)
    out = tmp_path / "stalls.json"
    rec.dump(str(out))
    data = json.loads(out.read_text())
    long = [t for t in data["long"] if t["cpu_ms"] >= 10]
    assert any(w[0] == "task busy_task" and w[2] >= 10 for t in long for w in t["worst"])
    assert data["kinds"]["burn"]["n"] == 20 and data["kinds"]["burn"]["max_cpu_ms"] < 5
    assert data["gc"]["2"]["n"] >= 1  # the full collection was timed
    assert asyncio.events.Handle._run.__name__ == "_run"  # undone: nothing patched stays

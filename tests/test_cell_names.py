"""Cell names come from one function per language, and the two agree: ``protocol/cells.py``
(the server, the pygame client, the bots) and ``server/web/cells.js`` (the page), run by Node
over every cell of every board from 3x3 to 25x25."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from protocol.cells import cell_name
from protocol.rules import MAX_SIDE, MIN_SIDE

CELLS_JS = Path(__file__).resolve().parent.parent / "server" / "web" / "cells.js"
#: Every cell name of every height and width, the columns of the widest board on each.
SCRIPT = """
import { coordName } from %s;
const out = {};
for (let h = %d; h <= %d; h++) {
  const names = [];
  for (let y = 0; y < h; y++) for (let x = 0; x < %d; x++) names.push(coordName(x, y, h));
  out[h] = names;
}
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="Node runs the page's module")
def test_the_page_and_the_python_programs_name_every_cell_alike() -> None:
    script = SCRIPT % (json.dumps(CELLS_JS.as_uri()), MIN_SIDE, MAX_SIDE, MAX_SIDE)
    run = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    said = json.loads(run.stdout)
    for height in range(MIN_SIDE, MAX_SIDE + 1):
        mine = [cell_name(x, y, height) for y in range(height) for x in range(MAX_SIDE)]
        assert said[str(height)] == mine, height
    assert said["15"][7 * MAX_SIDE + 7] == "H8" and said["25"][24] == "Z25"


def test_the_browser_modules_and_python_programs_keep_no_copy_of_the_letters() -> None:
    root = CELLS_JS.parent.parent.parent
    copies = [
        str(path.relative_to(root))
        for pattern in ("server/web/*.js", "server/**/*.py", "client/**/*.py", "bots/**/*.py")
        for path in root.glob(pattern)
        if "ABCDEFGHJK" in path.read_text(encoding="utf-8")
    ]
    assert copies == ["server/web/cells.js"]
    assert "ABCDEFGHJK" in (root / "protocol" / "cells.py").read_text(encoding="utf-8")

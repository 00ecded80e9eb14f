"""Bot accounts' entry checks in both SQL stores: one row per account, the latest run's,
read back by a restart; ``mnk-server accounts recheck NAME`` forgets one."""

from __future__ import annotations

from support.stores import both_dbs

from server.admin import accounts_main
from server.core.journal.rows import EntryCheckRow
from server.storage.factory import open_store

db = both_dbs


def test_the_latest_check_of_each_bot_comes_back_and_recheck_forgets_it(db: str) -> None:
    first = EntryCheckRow("shaky", False, ("gomoku", "clock"), 10.0, 1)
    again = EntryCheckRow("shaky", True, (), 3700.0, 2)
    good = EntryCheckRow("good", True, (), 12.0, 1)
    store = open_store(db)
    try:
        store.write([first, good])
        assert store.load().entry_checks == (good, first)
        store.write([again])
        assert store.load().entry_checks == (good, again)
    finally:
        store.close()
    assert accounts_main(["recheck", "shaky", "--db", db]) == 0
    assert accounts_main(["recheck", "shaky", "--db", db]) == 1  # none left to forget
    store = open_store(db)
    try:
        assert store.load().entry_checks == (good,)
    finally:
        store.close()

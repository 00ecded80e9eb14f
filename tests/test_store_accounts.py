"""Accounts in the stores: schema migration 7 upgrades today's (version 6) databases in place,
account records are written idempotently, and the flood windows and password rules by
themselves (on an injected clock)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest

from protocol.errors import LongPassword, TooManyRegistrations, WeakPassword
from server.admin import accounts_main, add_key, list_keys
from server.core.accounts.logins import (
    ADDRESS_CAP,
    FAIL_WINDOW,
    PAIR_BASE,
    PAIR_CAP,
    PAIR_FREE,
    Floods,
)
from server.core.accounts.passwords import check_password
from server.core.journal.rows import AccountRow, PasswordRow, PlayerRow, SessionGone, SessionRow
from server.core.players.names import name_key
from server.storage import pgschema
from server.storage import sqlite as sqlite_store
from server.storage.accounts import set_disabled
from server.storage.factory import open_store

#: SQLite's schema version before accounts (the previous release's).
ACCOUNTS_VERSION = 7


def alice(disabled: bool = False) -> AccountRow:
    """An account row as registration makes it."""
    return AccountRow("alice", name_key("alice"), "p_a11ce", "human", "$argon2id$…", 1.0)


def test_a_version_6_sqlite_file_gets_accounts(tmp_path: Path) -> None:
    path = tmp_path / "v6.sqlite3"
    db = sqlite_store.connect(path)
    for number, step in enumerate(sqlite_store.MIGRATIONS[: ACCOUNTS_VERSION - 1]):
        db.execute("BEGIN IMMEDIATE")
        db.executescript(step) if isinstance(step, str) else step(db)
        db.execute(f"PRAGMA user_version={number + 1}")
        db.commit() if db.in_transaction else None
    db.execute("INSERT INTO players VALUES ('p_old', 'olga', 'human', 'h_old', 0)")
    db.execute("INSERT INTO bot_keys VALUES ('oldbot', 'k_old', 0, NULL)")
    db.close()
    store = open_store(str(path))
    try:
        snapshot = store.load()
        assert snapshot.players == [PlayerRow("p_old", "olga", "human", "h_old", 0, None)]
        store.write([alice(), SessionRow("t1", "alice", 2.0), SessionRow("t2", "alice", 3.0)])
        store.write([PlayerRow("p_a11ce", "alice", "human", "h_a", 1.0, "alice")])
        assert store.account(name_key("ALICE")) == alice()
        assert store.session_account("t2") == alice()
        store.write([alice(), PasswordRow("alice", "$argon2id$new")])  # again: no error
        store.write([SessionGone("alice", keep="t2")])
        assert store.session_account("t1") is None
        assert store.session_account("t2") is not None
        store.write([SessionGone("alice", "t2")])
        assert store.session_account("t2") is None
        rival = AccountRow("\u0430lice", name_key("\u0430lice"), "p_other", "human", "x", 5.0)
        store.write([rival])  # a look-alike another node made meanwhile: not inserted, no error
        assert store.account(name_key("\u0430lice")) == AccountRow(
            "alice", name_key("alice"), "p_a11ce", "human", "$argon2id$new", 1.0
        )
        players = {p.pid: p for p in store.load().players}
        assert players["p_a11ce"].account == "alice"
    finally:
        store.close()
    version = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0]
    assert version == len(sqlite_store.MIGRATIONS) >= ACCOUNTS_VERSION
    assert [k.name for k in list_keys(str(path))] == ["oldbot"]


def test_accounts_of_older_files_are_rekeyed_by_todays_look_alike_key(tmp_path: Path) -> None:
    path = tmp_path / "old-keys.sqlite3"
    open_store(str(path)).close()
    db = sqlite_store.connect(path)
    rows = [("alice", "alice", 1.0), ("al1ce", "al1ce", 2.0), ("Ivan", "ivan", 3.0)]
    for name, old_key, at in rows:  # as the old name_key made them (case folded first)
        db.execute(
            "INSERT INTO accounts VALUES (?, ?, ?, 'human', 'h', ?, NULL)",
            (name, old_key, "p_" + old_key, at),
        )
    before_rekey = sqlite_store.MIGRATIONS.index(sqlite_store.rekey_accounts)
    db.execute(f"PRAGMA user_version={before_rekey}")
    db.close()
    store = open_store(str(path))
    try:
        assert store.account(name_key("aIice")).name == "alice"  # found by today's key
        assert store.account(name_key("IVAN")).name == "Ivan"
        assert store.account("al1ce").name == "al1ce"  # the younger look-alike kept its old key
        assert store.account_named("al1ce").name == "al1ce"  # and logs in by its exact name
        assert store.account_named("AL1CE") is None
    finally:
        store.close()


def test_keys_and_accounts_share_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "arena.sqlite3"
    store = open_store(str(path))
    store.write([alice()])
    store.close()
    with pytest.raises(ValueError, match="account"):
        add_key(str(path), "ALİCE")
    with pytest.raises(ValueError, match="account"):
        add_key(str(path), "\u0430lice")
    assert add_key(str(path), "alicebot")
    db = sqlite_store.connect(path)
    assert set_disabled(db, "alice", 9.0) and not set_disabled(db, "nobody", 9.0)
    db.close()
    assert accounts_main(["list", "--db", str(path)]) == 0
    assert capsys.readouterr().out.startswith("alice\thuman\tdisabled\tcreated 1970-01-01")
    assert accounts_main(["enable", "alice", "--db", str(path)]) == 0
    assert accounts_main(["--db", str(path), "list"]) == 0
    assert "\tactive\t" in capsys.readouterr().out
    assert accounts_main(["list", "--db", str(tmp_path / "none.sqlite3")]) == 1
    assert not (tmp_path / "none.sqlite3").exists()


@pytest.mark.slow
def test_a_postgresql_database_of_the_previous_version_gets_accounts(pg_url: str) -> None:
    before = len(pgschema.MIGRATIONS) - 1
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute(
            "CREATE TABLE schema_version (one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one), "
            "version INTEGER NOT NULL)"
        )
        for step in pgschema.MIGRATIONS[:before]:
            db.execute(step) if isinstance(step, str) else step(db)
        db.execute("INSERT INTO schema_version VALUES (TRUE, %s)", (before,))
        db.execute("INSERT INTO players VALUES ('p_old', 'olga', 'human', 'h_old', 0)")
    store = open_store(pg_url)
    try:
        assert store.load().players == [PlayerRow("p_old", "olga", "human", "h_old", 0, None)]
        store.write([alice(), SessionRow("t1", "alice", 2.0), alice()])
        store.write([PlayerRow("p_a11ce", "alice", "human", "h_a", 1.0, "alice")])
        assert store.session_account("t1") == alice()
        store.write([SessionGone("alice", keep="t9")])
        assert store.session_account("t1") is None
    finally:
        store.close()


def test_login_back_off_slows_the_guesser_never_the_owner_on_an_injected_clock() -> None:
    floods, now = Floods(), 1000.0
    for _ in range(PAIR_FREE):  # a few free failures, then a growing delay (answered after it)
        assert floods.delay("alice", "10.6.6.6", now) == 0.0
        floods.failed("alice", "10.6.6.6", now)
    assert floods.delay("alice", "10.6.6.6", now) == PAIR_BASE
    floods.failed("alice", "10.6.6.6", now)
    assert floods.delay("alice", "10.6.6.6", now) == 2 * PAIR_BASE
    for _ in range(40):  # the same guesser, and strangers from 100 addresses
        floods.failed("alice", "10.6.6.6", now)
    for n in range(100):
        floods.failed("alice", f"10.7.0.{n}", now)
    assert floods.delay("alice", "10.6.6.6", now) == PAIR_CAP  # slowed, never a hard stop
    assert floods.delay("alice", "10.6.6.6", now + PAIR_CAP) == 0.0
    assert floods.delay("alice", "192.0.2.44", now) == 0.0  # the owner, from a clean address
    # a NAT: one guesser behind it cycles names; its neighbours are not locked out
    for n in range(200):
        floods.failed(f"user{n}", "198.51.100.1", now)
    wait = floods.delay("newcomer", "198.51.100.1", now)
    assert 0.0 < wait <= ADDRESS_CAP
    floods.succeeded("bob", "198.51.100.1")  # bob logged in from there before the guessing
    assert floods.delay("bob", "198.51.100.1", now) == 0.0 and floods.is_known(
        "bob", "198.51.100.1"
    )
    assert floods.delay("newcomer", "198.51.100.1", now + FAIL_WINDOW) == 0.0  # forgotten
    floods.succeeded("alice", "10.6.6.6")  # a right password forgives its pair
    assert floods.delay("alice", "10.6.6.6", now) == 0.0
    floods.prune(now + FAIL_WINDOW)
    assert len(floods.by_pair) == 0 and len(floods.by_address) == 0
    few = Floods(registrations_per_hour=5)  # --registrations-per-hour
    for _ in range(5):
        few.may_register("198.51.100.7", 0.0)
        few.registered("198.51.100.7", 0.0)
    with pytest.raises(TooManyRegistrations):
        few.may_register("198.51.100.7", 3599.0)
    few.may_register("198.51.100.7", 3600.0)


def test_password_rules() -> None:
    for weak in ("", "1234567", "password", "Password1", "QWERTYUIOP"):
        with pytest.raises(WeakPassword):
            check_password("zed", weak)
    with pytest.raises(WeakPassword):
        check_password("Zedzedzed", "zedZEDzed")
    with pytest.raises(LongPassword):
        check_password("zed", "x" * 129)
    check_password("zed", "x" * 128)
    check_password("zed", "eight ch")
    for holding in ("alicealice", "my-Alice-2024", "AL1CE-AL1CE", "a l i c e !"):
        with pytest.raises(WeakPassword, match="name"):  # as the error text says
            check_password("alice", holding)
    check_password("al", "also fine, al")  # a name under 3 characters only when equal

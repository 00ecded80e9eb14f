"""Accounts in the stores: schema migration 7 upgrades today's (version 6) databases in place,
account records are written idempotently, and the flood windows and password rules by
themselves (on an injected clock)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest

from protocol.errors import LongPassword, TooManyLogins, TooManyRegistrations, WeakPassword
from server.admin import accounts_main, add_key, list_keys
from server.core.journal import AccountRow, PasswordRow, PlayerRow, SessionGone, SessionRow
from server.core.logins import LOGIN_WINDOW, Floods
from server.core.names import name_key
from server.core.passwords import check_password
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
            db.execute(step)
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


def test_login_floods_per_account_and_per_address_on_an_injected_clock() -> None:
    floods = Floods()
    for n in range(10):
        floods.login("alice", f"10.0.0.{n}", 100.0 + n)
    with pytest.raises(TooManyLogins):
        floods.login("alice", "10.9.9.9", 120.0)
    floods.login("bob", "10.9.9.9", 120.0)  # another account is not held back
    floods.login("alice", "10.9.9.9", 100.0 + LOGIN_WINDOW)  # the first attempt aged out
    for n in range(199):
        floods.login(f"user{n}", "192.0.2.1", 200.0)
    floods.login("last", "192.0.2.1", 200.0)
    with pytest.raises(TooManyLogins):
        floods.login("fresh", "192.0.2.1", 200.0)
    floods.login("fresh", "192.0.2.1", 200.0 + LOGIN_WINDOW)
    floods.prune(10_000.0)
    assert len(floods.by_account) == 0 and len(floods.by_address) == 0
    for _ in range(5):
        floods.may_register("198.51.100.7", 0.0)
        floods.registered("198.51.100.7", 0.0)
    with pytest.raises(TooManyRegistrations):
        floods.may_register("198.51.100.7", 3599.0)
    floods.may_register("198.51.100.7", 3600.0)


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

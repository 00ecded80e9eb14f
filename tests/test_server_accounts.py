"""Accounts over the protocol, against the real server on loopback and a real database: register,
login, logout, change_password, sessions that resume logged in (after a restart too), look-alike
names, weak passwords, floods, and passwords that never reach the log."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import msgpack
import pytest
from argon2 import PasswordHasher
from support.clients import PASSWORD, RawClient, registered
from support.servers import bot_key
from support.stores import both_dbs
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.admin import accounts_main
from server.core.arena import Arena
from server.core.limits import Limits
from server.shell.server import ArenaServer, ServerConfig
from server.storage.accounts import rekey_accounts
from server.storage.factory import open_store
from server.storage.memory import MEMORY
from server.storage.sqlite import MIGRATIONS
from server.storage.sqlite import connect as sqlite_connect

db = both_dbs


async def test_register_login_logout_change_password(client_factory: Any) -> None:
    c = await client_factory("wanderer")
    guest = c.player
    reply = await c.request(type="register", name="alice", password=PASSWORD)
    assert reply["type"] == "logged_in" and reply["name"] == "alice" and reply["ratings"] == {}
    alice, first_session = reply["player"], reply["session"]
    assert alice != guest and first_session != c.session
    out = await c.request(type="logout")
    assert out["type"] == "logged_out" and out["name"] == "wanderer"
    assert out["player"] not in (guest, alice)
    # a guest again: its session resumes as a guest, the revoked one resumes nobody
    d = await client_factory()
    await d.error("bad_session", type="hello", protocol=1, name="x", kind="human",
                  session=first_session)  # fmt: skip
    back = await c.request(type="login", name="alice", password=PASSWORD)
    assert back["type"] == "logged_in" and back["player"] == alice
    await c.error("weak_password", type="change_password", old=PASSWORD, new="short")
    await c.error("bad_login", type="change_password", old="not the password", new="a new one!")
    changed = await c.request(type="change_password", old=PASSWORD, new="a brand new secret")
    assert changed["type"] == "password_changed"
    e = await client_factory("elsewhere")
    await e.error("bad_login", type="login", name="alice", password=PASSWORD)
    again = await e.request(type="login", name="ALICE", password="a brand new secret")
    assert again["player"] == alice and again["name"] == "alice"
    with pytest.raises(ConnectionClosed):  # one player, one socket: the other device's closes
        await c.expect("never")
    assert c.ws.close_code == 4000
    await e.alive()


async def test_an_account_session_resumes_logged_in_and_others_are_revoked(
    client_factory: Any,
) -> None:
    phone = await registered(client_factory, "bob")
    laptop = await client_factory("guest2")
    login = await laptop.request(type="login", name="bob", password=PASSWORD)
    assert login["player"] == phone.player  # one player per account, a session per device
    resumed = await client_factory()
    welcome = await resumed.hello("ignored name", session=login["session"])
    assert welcome["account"] is True and welcome["ratings"] == {}
    assert welcome["player"] == phone.player and welcome["name"] == "bob"
    await resumed.request(type="change_password", old=PASSWORD, new="a second secret")
    stale = await client_factory()
    await stale.error("bad_session", type="hello", protocol=1, name="x", kind="human",
                      session=phone.session)  # fmt: skip
    kept = await client_factory()
    assert (await kept.hello("y", session=login["session"]))["account"] is True
    guest = await client_factory("plain")
    assert guest.seen[-1]["account"] is False


async def test_a_logged_in_session_resumes_after_a_restart(tmp_path: Path) -> None:
    path = str(tmp_path / "arena.sqlite3")
    srv = await started(path)
    c = RawClient(await connect(srv.url, compression=None))
    await c.hello("visitor")
    reply = await c.request(type="register", name="carol", password=PASSWORD)
    room = (await c.request(type="create_room", game="tictactoe", seat=0))["room"]
    await c.close()
    await srv.stop()
    srv = await started(path)
    try:
        d = RawClient(await connect(srv.url, compression=None))
        welcome = await d.hello("visitor", session=reply["session"])
        assert welcome["account"] is True and welcome["player"] == reply["player"]
        assert welcome["name"] == "carol"
        state = await d.expect("state", room=room)
        assert state["accounts"] == [True, False] and state["players"][0] == "carol"
        line = (await d.request(type="list_rooms"))["rooms"][0]
        assert line["players"] == ["carol", None] and line["accounts"] == [True, False]
        await d.close()
    finally:
        await srv.stop()


async def started(path: str, durable: bool = True) -> Any:
    """A real server on ``path`` (a SQLite file), or on nothing durable."""
    store = open_store(path) if durable else MEMORY
    srv = ArenaServer(Arena(limits=Limits(), durable=durable), ServerConfig(port=0), store)
    await srv.start()
    srv.url = f"ws://127.0.0.1:{srv.port}"
    return srv


async def test_look_alikes_an_older_server_let_in_still_log_in_by_their_own_names(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "older.sqlite3")
    open_store(path).close()
    db = sqlite_connect(path)
    secret = PasswordHasher().hash(PASSWORD)
    for name, at in (("alice", 1.0), ("al1ce", 2.0)):  # keys as the older name_key made them
        db.execute("INSERT INTO accounts VALUES (?, ?, ?, 'human', ?, ?, NULL)",
                   (name, name, "p_" + name, secret, at))  # fmt: skip
    db.execute(f"PRAGMA user_version={MIGRATIONS.index(rekey_accounts)}")  # before the rekey
    db.close()
    srv = await started(path)
    try:
        for name in ("alice", "al1ce"):
            c = RawClient(await connect(srv.url, compression=None))
            await c.hello("visitor")
            reply = await c.request(type="login", name=name, password=PASSWORD)
            assert reply["type"] == "logged_in" and reply["name"] == name
            await c.close()
    finally:
        await srv.stop()


async def test_bad_logins_all_look_the_same(client_factory: Any, server: Any) -> None:
    await registered(client_factory, "dave")
    await client_factory("robot", kind="bot", games=["tictactoe"])  # a bot account now
    c = await client_factory("someone")
    bots = (await c.request(type="list_bots"))["bots"]
    assert [(b["name"], b["account"]) for b in bots] == [("robot", True)]
    errors = [
        await c.error("bad_login", type="login", name="dave", password="wrong password"),
        await c.error("bad_login", type="login", name="nobody-here", password=PASSWORD),
        await c.error("bad_login", type="login", name="robot", password=PASSWORD),
        await c.error("bad_login", type="login", name="dave", password="x" * 200),
        await c.error("bad_login", type="login", name="   ", password=PASSWORD),
    ]
    assert len({e["message"] for e in errors}) == 1
    assert all(PASSWORD not in e["message"] for e in errors)
    bot = await client_factory("robot", kind="bot", games=["tictactoe"])
    await bot.error("bad_message", type="register", name="robot2", password=PASSWORD)
    await bot.error("bad_message", type="login", name="dave", password=PASSWORD)


async def test_look_alike_names_are_taken(client_factory: Any, server: Any) -> None:
    await registered(client_factory, "minimax")
    bot_key(server, "alphabot")
    c = await client_factory("newcomer")
    for name in ("minimax", "MiniMax", "minim\u0430x", "\uff4d\uff49\uff4e\uff49\uff4d\uff41\uff58",
                 "rninimax", "ALPHABOT", "alphab\u03bft"):  # fmt: skip
        await c.error("name_taken", type="register", name=name, password=PASSWORD)
    await c.error("bad_message", type="register", name="\u200bhidden", password=PASSWORD)
    # a guest may still call itself minimax: guests' names tell nothing about accounts
    guest = await client_factory("minimax")
    assert guest.seen[-1]["account"] is False


async def test_round_four_look_alikes_and_blank_letters_are_refused(client_factory: Any) -> None:
    await registered(client_factory, "alice")
    c = await client_factory("newcomer")
    for name in ("aIice", "al1ce", "a l i c e", "A.L.I.C.E", "\u0430lice"):  # capital I, digit 1
        await c.error("name_taken", type="register", name=name, password=PASSWORD)
    for name in ("alice\u3164", "alice\u2800", "alice\u115f", "\u3164", "\u2800\u2800",
                 "\uffa0bob", "bob\ufe0f", "\u034fbob"):  # fmt: skip
        await c.error("bad_message", type="register", name=name, password=PASSWORD)
        await (await client_factory()).error("bad_message", type="hello", protocol=1,
                                             name=name, kind="human")  # fmt: skip
    await c.error("weak_password", type="register", name="bobby", password="bobbybobby")
    await c.error("weak_password", type="register", name="bobby", password="I am B0BBY!")
    assert (await c.request(type="register", name="bob", password=PASSWORD))["type"] == "logged_in"


async def test_weak_and_long_passwords(client_factory: Any, server: Any) -> None:
    c = await client_factory("picky")
    await c.error("weak_password", type="register", name="erin", password="short")
    await c.error("weak_password", type="register", name="erinerin", password="ERINERIN")
    await c.error("weak_password", type="register", name="erin", password="Password123")
    await c.error("long_password", type="register", name="erin", password="x" * 129)
    ok = await c.request(type="register", name="erin", password="y" * 128)
    assert ok["type"] == "logged_in"
    # a megabyte of password is over the frame limit: the connection is closed (1009)
    big = await client_factory("big")
    await big.ws.send(msgpack.packb({"type": "login", "name": "erin", "password": "z" * 2**20}))
    with pytest.raises(ConnectionClosed):
        await big.recv()
    assert big.ws.close_code == 1009
    await c.alive()


async def test_guests_only_where_an_account_is_needed(client_factory: Any) -> None:
    c = await client_factory("lonely")
    await c.error("not_logged_in", type="logout")
    await c.error("not_logged_in", type="change_password", old=PASSWORD, new="another secret")
    await c.send(type="login", name="whoever", password=PASSWORD, id=901)
    await c.send(type="login", name="whoever", password=PASSWORD, id=902)
    replies = {(r := await c.recv())["id"]: r for _ in range(2)}
    assert replies[901]["code"] == "bad_login" and replies[902]["code"] == "busy"


async def test_in_game_players_finish_first(client_factory: Any) -> None:
    await registered(client_factory, "frank")
    alice = await client_factory("alice")
    bob = await client_factory("bob")
    room = (await alice.request(type="create_room", game="tictactoe", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    await alice.expect("state", status="playing")
    await alice.error("in_game", type="register", name="alice-account", password=PASSWORD)
    await alice.error("in_game", type="login", name="frank", password=PASSWORD)
    await alice.request(type="resign", room=room)
    reply = await alice.request(type="login", name="frank", password=PASSWORD)
    assert reply["type"] == "logged_in"


async def test_disabled_accounts_neither_log_in_nor_resume(client_factory: Any, db: str) -> None:
    g = await registered(client_factory, "grace")
    db_path = db
    assert accounts_main(["disable", "grace", "--db", str(db_path)]) == 0
    c = await client_factory("guest")
    await c.error("bad_login", type="login", name="grace", password="not hers at all")
    await c.error("account_disabled", type="login", name="grace", password=PASSWORD)
    d = await client_factory()
    welcome = await d.hello("walk-in", session=g.session)
    assert welcome["account"] is False and welcome["name"] == "walk-in"
    assert welcome["player"] != g.player
    assert accounts_main(["enable", "grace", "--db", str(db_path)]) == 0
    assert (await c.request(type="login", name="grace", password=PASSWORD))["type"] == "logged_in"
    assert accounts_main(["enable", "nobody", "--db", str(db_path)]) == 1


async def test_a_forgotten_password_comes_back_with_an_operators_one_time_code(
    client_factory: Any, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    old = await registered(client_factory, "mona")
    assert accounts_main(["reset", "nobody", "--db", db]) == 1
    capsys.readouterr()
    assert accounts_main(["reset", "MONA", "--db", db]) == 0
    code = capsys.readouterr().out.split("reset code for MONA: ")[1].split()[0]
    c = await client_factory("locked-out")
    new = "remembered at last"

    async def reset(code: str, new: str) -> Any:
        return await c.request(type="reset_password", name="mona", code=code, new=new)

    assert (await reset("x" * 16, new))["code"] == "bad_login"
    assert (await reset(code, "monamona"))["code"] == "weak_password"
    reply = await reset(code, new)
    assert reply["type"] == "logged_in" and reply["player"] == old.player
    assert (await reset(code, "once more ok"))["code"] == "bad_login"  # spent
    stale = await client_factory()  # every session of before the reset is revoked
    await stale.error("bad_session", type="hello", protocol=1, name="x", kind="human",
                      session=old.session)  # fmt: skip
    d = await client_factory("elsewhere")
    await d.error("bad_login", type="login", name="mona", password=PASSWORD)
    assert (await d.request(type="login", name="mona", password=new))["type"] == "logged_in"


async def test_registrations_per_address_are_bounded(client_factory: Any) -> None:
    c = await client_factory("mill")
    for n in range(Limits().registrations_per_hour):  # --registrations-per-hour (10)
        reply = await c.request(type="register", name=f"sock{chr(97 + n)}", password=PASSWORD)
        assert reply["type"] == "logged_in"
    await c.error("too_many_registrations", type="register", name="sockz", password=PASSWORD)


def test_a_classroom_raises_the_registrations_per_hour() -> None:
    from server.cli import build_parser

    assert build_parser().parse_args([]).registrations_per_hour == 10
    args = build_parser().parse_args(["--registrations-per-hour", "40"])
    assert args.registrations_per_hour == 40
    arena = Arena(limits=Limits(registrations_per_hour=args.registrations_per_hour))
    assert arena.accounts.floods.registrations.limit == 40


async def test_memory_servers_keep_no_accounts() -> None:
    srv = await started("", durable=False)
    try:
        c = RawClient(await connect(srv.url, compression=None))
        await c.hello("fleeting")
        await c.error("no_accounts", type="register", name="fleeting", password=PASSWORD)
        await c.close()
    finally:
        await srv.stop()


async def test_passwords_never_reach_the_log(
    client_factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    secret, newer, wrong = "s3cret-horse-9431", "n3wer-horse-1187", "wr0ng-guess-5522"
    # as mnk-server sets it: websockets' own DEBUG lines carry whole frames (any request's)
    caplog.set_level(logging.WARNING, logger="websockets")
    caplog.set_level(logging.DEBUG)  # last: the capturing handler takes every level
    c = await client_factory("ivy-guest")
    await c.request(type="register", name="ivy", password=secret)
    await c.request(type="logout")
    await c.error("bad_login", type="login", name="ivy", password=wrong)
    await c.request(type="login", name="ivy", password=secret)
    await c.request(type="change_password", old=secret, new=newer)
    await c.error("weak_password", type="change_password", old=newer, new="ivy")
    await c.error("long_password", type="register", name="ivy2", password=secret * 10)
    text = caplog.text + "".join(repr(r.__dict__) for r in caplog.records)
    assert "ivy" in text  # the log did capture the server
    for word in (secret, newer, wrong):
        assert word not in text

"""Accounts: ``register``, ``login``, ``logout`` and ``change_password``.

The core decides and records; the password work (Argon2id, ~50 ms of CPU each) is an
:class:`Auth` output the shell performs on its own small pool, off the event loop, and answers
through :meth:`Accounts.done`. Account rows and session tokens are journal records, committed
before the reply that names them leaves. A logged-in connection is the account's one player
(kept forever); logging out makes it a fresh guest again.
"""

from __future__ import annotations

import logging
import secrets
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from protocol import wire
from protocol.errors import (
    AccountDisabled,
    ArenaError,
    BadLogin,
    BadMessage,
    Busy,
    InGame,
    InternalError,
    NameTaken,
    NoAccounts,
    NotLoggedIn,
)
from protocol.vocab import Status
from protocol.wire import Message
from server.core.accounts.logins import Floods
from server.core.accounts.passwords import MAX_PASSWORD, check_password
from server.core.journal.recovery import Journal
from server.core.journal.rows import AccountRow, PasswordRow, SessionGone, SessionRow
from server.core.lobby.registry import RoomRegistry
from server.core.node import Node
from server.core.outputs import Auth, AuthResult, Out, Reply, address
from server.core.players.greeter import Greeter
from server.core.players.keys import KeyRing
from server.core.players.names import clean_name, name_key
from server.core.players.players import Conn, Player, hash_token
from server.core.players.presence import Presence
from server.core.players.roster import Roster, rooms_of

log = logging.getLogger("mnk.arena")

#: The requests handled here (they need the connection, not only its player).
ACCOUNT_REQUESTS = frozenset({"register", "login", "logout", "change_password", "reset_password"})
#: Password jobs waiting out a delay, queued or hashing at most, in all (each holds a few
#: hundred bytes while it waits; the hashing threads are shared fairly between addresses).
MAX_AUTH_JOBS = 256
#: Jobs one address may have at once for pairs not known there, and for known pairs (their
#: own lane: a guesser behind a NAT cannot fill it). Past either: ``busy``.
ADDRESS_JOBS = 4
KNOWN_JOBS = 2
#: A reset code is 16 characters; a longer one is not worth a look-up.
MAX_RESET_CODE = 64


class Accounts:
    """Turns account requests into password jobs, and their answers into a logged-in player."""

    def __init__(
        self,
        roster: Roster,
        rooms: RoomRegistry,
        keys: KeyRing,
        *,
        greeter: Greeter,
        presence: Presence,
        node: Node,
        journal: Journal,
        clock: Callable[[], float],
    ) -> None:
        self.roster, self.rooms, self.keys, self.greeter = roster, rooms, keys, greeter
        self.presence, self.node, self.journal, self.clock = presence, node, journal, clock
        self.floods = Floods(greeter.limits.registrations_per_hour)
        #: Password jobs in flight (bounded by :data:`MAX_AUTH_JOBS`), and per (address, known).
        self.jobs = 0
        self.lanes: Counter[tuple[str, bool]] = Counter()
        #: Look-alike forms of names being registered here now: the second asker of one waits
        #: for no hash, it is ``name_taken`` at once.
        self.registering: set[str] = set()

    # -- requests ------------------------------------------------------------------------------

    def request(self, conn: Conn, player: Player, msg: Message) -> list[Out]:
        """One of :data:`ACCOUNT_REQUESTS` from ``conn``'s ``player``."""
        return getattr(self, msg["type"])(conn, player, msg)  # type: ignore[no-any-return]

    def register(self, conn: Conn, player: Player, msg: Message) -> list[Out]:
        """``register {name, password}``: checks here, then the store and a hash off the loop."""
        self._human(player)
        name = clean_name(msg["name"])
        check_password(name, msg["password"])
        key = name_key(name)
        if not key:
            raise BadMessage("an account's name needs a letter or a digit")
        if self.keys.owns(name) or key in self.registering:
            raise NameTaken("that name (or one that looks like it) is taken")
        self._not_playing(player)
        lane = self._admit(conn, False)
        self.floods.may_register(conn.address_key, self.clock())
        self.registering.add(key)
        auth = Auth("register", name, key, msg["password"], None, msg.get("id"), lane=lane)
        return self._start(conn, auth)

    def login(self, conn: Conn, player: Player, msg: Message) -> list[Out]:
        """``login {name, password}``: counted against floods, then verified off the loop."""
        self._human(player)
        try:
            name = clean_name(msg["name"])
        except BadMessage:
            raise BadLogin("wrong name or password") from None
        if len(msg["password"]) > MAX_PASSWORD:  # no account has one: not worth a hash
            raise BadLogin("wrong name or password")
        key = name_key(name)
        self._not_playing(player)
        return self._checked(conn, Auth("login", name, key, msg["password"], None, msg.get("id")))

    def change_password(self, conn: Conn, player: Player, msg: Message) -> list[Out]:
        """``change_password {old, new}``: the old one verified, the new hashed, off the loop."""
        account = self._account(player)
        check_password(account, msg["new"])
        key = name_key(account)
        auth = Auth("change_password", account, key, msg["old"], msg["new"], msg.get("id"))
        return self._checked(conn, auth)

    def reset_password(self, conn: Conn, player: Player, msg: Message) -> list[Out]:
        """``reset_password {name, code, new}``: the operator's one-time code (``mnk-server
        accounts reset NAME``) sets a new password and logs in; delayed like a login."""
        self._human(player)
        try:
            name = clean_name(msg["name"])
        except BadMessage:
            raise BadLogin("wrong name or reset code") from None
        check_password(name, msg["new"])
        if len(msg["code"]) > MAX_RESET_CODE:
            raise BadLogin("wrong name or reset code")
        self._not_playing(player)
        auth = Auth("reset_password", name, name_key(name), msg["code"], msg["new"], msg.get("id"))
        return self._checked(conn, auth)

    def logout(self, conn: Conn, player: Player, msg: Message) -> list[Out]:
        """``logout``: this device's session is revoked; the connection is a fresh guest."""
        account = self._account(player)
        if conn.session_hash is not None:
            self.journal.record(SessionGone(account, conn.session_hash))
        conn.sign_in(None)
        log.info("%s (%s) logged out", account, player.pid)
        guest, token = self.roster.new_human(conn.guest_name or "guest")
        out = self._switch(conn, player, guest, token)
        reply = {"type": "logged_out", "player": guest.pid, "session": token, "name": guest.name}
        return [Reply(reply), *out]

    # -- the shell's answers ---------------------------------------------------------------------

    def answer(self, conn: Conn, auth: Auth, result: AuthResult) -> list[Out]:
        """The shell's answer to ``conn``'s password job ``auth``: logged in, or an error."""
        try:
            out = self.done(conn, auth, result)
        except ArenaError as exc:
            return [Reply(wire.error(exc.code, exc.message, auth.request_id))]
        except Exception:
            log.exception("handler failed on a password job's answer")
            exc = InternalError("the server failed on this request")
            return [Reply(wire.error(exc.code, exc.message, auth.request_id))]
        return address(conn.pid, out, auth.request_id)

    def done(self, conn: Conn, auth: Auth, result: AuthResult) -> list[Out]:
        """The password job ``auth`` of ``conn`` came back with ``result``."""
        self.dropped(conn, auth)
        player = self.roster.players.get(conn.pid or "")
        if player is None:
            return []
        if result.failed:
            raise Busy("the server could not check the password now; try again")
        if auth.action == "register":
            return self._registered(conn, player, auth, result)
        account = result.account
        ok = account is not None and account.kind == "human" and result.verified
        if not ok:
            self.floods.failed(auth.name_key, conn.address_key, self.clock())
        if auth.action == "change_password":
            if account is None or not ok or result.password_hash is None:
                raise BadLogin("wrong password")
            self.journal.record(PasswordRow(account.name, result.password_hash))
            self.journal.record(SessionGone(account.name, keep=conn.session_hash or ""))
            log.info("%s (%s) changed the password", account.name, player.pid)
            return [Reply({"type": "password_changed"})]
        if account is None or not ok:
            what = "reset code" if auth.action == "reset_password" else "password"
            raise BadLogin(f"wrong name or {what}")
        if account.disabled_at is not None:
            raise AccountDisabled("this account is disabled")
        self._not_playing(player)  # seated meanwhile (a reset's code is then not spent)
        self.floods.succeeded(auth.name_key, conn.address_key)
        if result.password_hash is not None:  # a reset, or a hash of an older cost renewed
            self.journal.record(PasswordRow(account.name, result.password_hash))
        if auth.action == "reset_password":
            self.journal.record(SessionGone(account.name, keep=""))
            log.info("%s (%s) reset the password with a code", account.name, player.pid)
        return self._logged_in(conn, player, account)

    def dropped(self, conn: Conn, auth: Auth) -> None:
        """``conn``'s job ``auth`` is over (answered, or its connection left)."""
        if conn.auth:
            conn.authenticating(False)
            self.jobs -= 1
            lane = (auth.lane, auth.known)
            self.lanes[lane] -= 1
            if not self.lanes[lane]:
                del self.lanes[lane]
        if auth.action == "register":
            self.registering.discard(auth.name_key)

    def prune(self, now: float) -> None:
        """Forget flood counts no window holds (the arena's full sweep)."""
        self.floods.prune(now)

    # -- helpers -----------------------------------------------------------------------------

    def _registered(self, conn: Conn, player: Player, auth: Auth, result: AuthResult) -> list[Out]:
        if result.account is not None or self.keys.owns(auth.name):
            raise NameTaken("that name (or one that looks like it) is taken")
        self._not_playing(player)
        assert result.password_hash is not None
        account = AccountRow(
            auth.name, auth.name_key, "p_" + secrets.token_hex(6), "human",
            result.password_hash, self.clock(),
        )  # fmt: skip
        self.journal.record(account)
        self.floods.registered(conn.address_key, self.clock())
        self.floods.succeeded(auth.name_key, conn.address_key)
        log.info("account %s registered (%s)", account.name, account.pid)
        new = self.roster.account_player(account)
        self.roster.save(new)
        return self._logged_in(conn, player, account)

    def _logged_in(self, conn: Conn, player: Player, account: AccountRow) -> list[Out]:
        """``conn`` is now ``account``'s player, with a new session for this device."""
        token = secrets.token_urlsafe(24)
        session_hash = hash_token(token)
        conn.sign_in(session_hash)
        self.journal.record(SessionRow(session_hash, account.name, self.clock()))
        new = self.roster.account_player(account)
        log.info("%s (%s) logged in", account.name, new.pid)
        out = self._switch(conn, player, new, token)
        ratings = self.greeter.ratings(new)
        reply = {"type": "logged_in", "name": new.name, "player": new.pid, "session": token}
        return [Reply(reply | {"ratings": ratings}), *out]

    def _switch(self, conn: Conn, old: Player, new: Player, token: str) -> list[Out]:
        """``conn`` leaves ``old`` (offline in its rooms) and becomes ``new`` (its ``welcome``
        is left out: the caller's reply says who it is now; its rooms' state follows)."""
        now = self.clock()
        out: list[Out] = []
        if old is not new:
            self.roster.offline(old, now)
            self.node.offline(old)
            out += self.presence.offline(old, now)
        rest = self.greeter.welcome(conn, new, token)[1:]
        return out + rest

    def _checked(self, conn: Conn, auth: Auth) -> list[Out]:
        """Start a job that checks a secret of an account: in the pair's lane (reserved if the
        account logged in from this address before), after the back-off its failures ask."""
        address = conn.address_key
        known = self.floods.is_known(auth.name_key, address)
        lane = self._admit(conn, known)
        delay = self.floods.delay(auth.name_key, address, self.clock())
        return self._start(conn, replace(auth, delay=delay, lane=lane, known=known))

    def _start(self, conn: Conn, auth: Auth) -> list[Out]:
        conn.authenticating(True)
        self.jobs += 1
        self.lanes[(auth.lane, auth.known)] += 1
        return [auth]

    def _admit(self, conn: Conn, known: bool) -> str:
        """The lane (the address) a new job of ``conn`` takes; ``busy`` if it has no room."""
        if not self.journal.enabled:
            raise NoAccounts("this server keeps no accounts (it runs without a database)")
        lane = conn.address_key or "?"
        held = self.lanes.get((lane, known), 0)
        if (
            conn.auth
            or self.jobs >= MAX_AUTH_JOBS
            or held >= (KNOWN_JOBS if known else ADDRESS_JOBS)
        ):
            raise Busy("the server is busy checking passwords; try again in a moment")
        return lane

    def _human(self, player: Player) -> None:
        if player.kind != "human":
            raise BadMessage("bots hold keys, not accounts")

    def _account(self, player: Player) -> str:
        self._human(player)
        if player.account is None:
            raise NotLoggedIn("log in first")
        return player.account

    def _not_playing(self, player: Player) -> None:
        for room in rooms_of(self.rooms, player):
            if room.status == Status.PLAYING and room.seat_of(player.pid) is not None:
                raise InGame("finish or leave your game first")

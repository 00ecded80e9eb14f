"""What a request turns into: replies, look-ups for the store, closes (and a room's ``Send``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from protocol import wire
from protocol.errors import BadMessage, InternalError
from protocol.wire import Message
from server.core.game.members import Send
from server.core.journal.rows import AccountRow


@dataclass(slots=True)
class Reply:
    """A message for the connection whose request is being handled (not frozen: made per
    request, and a frozen ``__init__`` is slow; nothing changes one once made)."""

    message: Message


@dataclass(frozen=True, slots=True)
class Lookup:
    """A history query for the store, answered off the event loop as a reply with ``id``."""

    query: str
    params: dict[str, Any]
    request_id: int | None
    #: Who takes the answer instead of the asker: ``"analyse"`` (the arena's analysis part).
    then: str | None = None


@dataclass(frozen=True, slots=True)
class Resolve:
    """A session token unknown here (or a bot's name, ``bot``), to look up in the cluster's
    shared players table off the event loop; the answer goes back through
    :meth:`Arena.session_resolved`."""

    token_hash: str
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class Auth:
    """A password job for the shell, off the event loop: ``register`` (is the name free? hash
    the password), ``login`` (verify it against the account's hash, or a dummy's),
    ``change_password`` (verify ``password``, hash ``new``) or ``reset_password`` (take the
    one-time code ``password``, hash ``new``); the answer goes back through
    :meth:`Arena.auth_done`. The passwords never show in a repr (nor so in a log)."""

    action: str
    name: str
    name_key: str
    password: str = field(repr=False)
    new: str | None = field(default=None, repr=False)
    request_id: int | None = None
    #: Seconds the job waits before it joins the hashing queue (a guesser's back-off).
    delay: float = 0.0
    #: The asker's address (the hashing queue's lane) and whether the (account, address) pair
    #: logged in before (the reserved lane).
    lane: str = "?"
    known: bool = False


@dataclass(frozen=True, slots=True)
class AuthResult:
    """What the shell found for an :class:`Auth`: the account (None: no such one), whether the
    password matched, the new hash made, and whether the job failed (the store, a thread)."""

    account: AccountRow | None = None
    verified: bool = False
    password_hash: str | None = None
    failed: bool = False


@dataclass(frozen=True, slots=True)
class Close:
    """Close the requesting connection (after the replies before it): it broke a policy."""

    code: int
    reason: str


Out = Reply | Send | Lookup | Resolve | Auth | Close


def address(pid: str | None, out: list[Out], request_id: int | None) -> list[Out]:
    """Turn the room's ``reply`` sends into a reply with the request's id plus a broadcast."""
    if request_id is None:  # nothing to echo: the requester's copy can share the broadcast
        return out
    result: list[Out] = []
    for item in out:
        if isinstance(item, Send) and item.reply and pid is not None:
            others = tuple(p for p in item.to if p != pid)
            if pid in item.to:
                result.append(Reply(item.message))
            if others:
                result.append(Send(others, item.message))
        else:
            result.append(item)
    for i, item in enumerate(result):
        if isinstance(item, Reply):
            result[i] = Reply({**item.message, "id": request_id})
            break
    return result


def internal_error(request_id: int | None) -> Reply:
    """What a client gets when the server failed on its request (nothing internal leaks)."""
    exc = InternalError("the server failed on this request")
    return Reply(wire.error(exc.code, exc.message, request_id))


def list_games(msg: Message) -> Lookup:
    """A ``list_games`` request as the store's query (its ``before`` checked first)."""
    before = msg.get("before")
    if before is not None and not (math.isfinite(before) and abs(before) < 1e12):
        raise BadMessage("before must be a time in seconds (an ended_at from a page)")
    params = {"player": msg.get("player"), "before": None if before is None else float(before)}
    params["before_id"] = msg.get("before_id")
    params["limit"] = msg.get("limit", 20)
    return Lookup("list_games", params, msg.get("id"))


def get_game(msg: Message) -> Lookup:
    """A ``get_game`` request as the store's query."""
    params = {"game_id": msg["game_id"], "fmt": msg.get("format", "json")}
    return Lookup("get_game", params, msg.get("id"))

"""The server's policy limits: rates per kind of peer, quotas, and how long things are kept."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.variants import NAMES

#: What a bot may list in ``games``: the variants this server knows, or ``*`` for all.
GAME_NAMES = frozenset({*NAMES, "*"})
#: Requests answered by the store off the event loop (bounded in flight).
LOOKUPS = frozenset({"list_games", "get_game", "leaderboard", "profile"})
#: Seconds between two log lines about the same limit (or the same connection).
LIMIT_LOG_INTERVAL = 60.0
#: Longest refused frame still decoded to echo its ``id`` in the ``rate_limited`` error.
PEEK_LIMIT = 1024
#: Bytes a ``hello`` may take besides its ``games`` list, and per entry of that list: a longer
#: frame before ``hello`` is refused undecoded (a 60 KB bot list cost half a millisecond).
HELLO_BYTES = 16384
HELLO_GAME_BYTES = 128


@dataclass(frozen=True, slots=True)
class Limits:
    """Tunable policy: rate limits per kind of peer, and how long rooms and seats are kept."""

    human_rate: float = 20.0
    human_burst: float = 40.0
    #: Bots play many fast games on one connection: a tournament bot sends hundreds a second.
    bot_rate: float = 2000.0
    bot_burst: float = 4000.0
    reconnect_grace: float = 60.0
    bot_move_timeout: float = 60.0
    room_linger: float = 30.0
    lobby_push_interval: float = 0.25
    #: One player may keep this many rooms waiting for an opponent, and play this many bots.
    max_waiting_rooms: int = 5
    max_bot_games: int = 4
    #: How often every room is checked (grace, idle rooms, bots sitting on a move).
    full_sweep_interval: float = 1.0
    #: Open connections in all, and from one client address (the shell refuses the rest).
    max_connections: int = 4096
    max_connections_per_address: int = 64
    #: Connections from one address that have not said ``hello`` yet (the shell refuses more),
    #: and HTTP 503 answers per second to refused connections (past it they are dropped).
    max_pending_per_address: int = 16
    refusal_rate: float = 10.0
    #: Seconds a connection must have been open before it may be closed to let a connection
    #: from a lighter address in when the server is full (whatever it sends; never a bot's nor
    #: a player's seated in a live game: server/shell/guard.py).
    evict_after: float = 10.0
    #: New game sockets per second from one address, and at once (each is a ``hello`` to come:
    #: the shell refuses the rest at their request). The burst lets an address open its quota.
    hello_rate: float = 4.0
    hello_burst: float = 64.0
    #: Requests of any kind (page and asset loads, sockets) per second from one address, and at
    #: once, charged at accept; page and asset requests in flight per address. A page load is
    #: ~20 requests the first time, 1-2 once its assets are cached (a classroom of 25 behind
    #: one address loading at once: ~500); each is answered from memory (a request and its
    #: answer, client and server in one process: ~3 ms on a busy 2-core machine). Pages never
    #: spend the game sockets' budget above.
    page_rate: float = 50.0
    page_burst: float = 500.0
    max_page_requests_per_address: int = 64
    #: Seconds a new connection has to say ``hello`` before it is closed.
    hello_timeout: float = 10.0
    #: Undecodable or malformed frames a connection may send before it is closed with 1008.
    max_bad_frames: int = 20
    #: Rooms one player may be in at once (seated or watching), and keep alive having created.
    max_rooms_per_player: int = 64
    max_rooms_created: int = 32
    #: Entries a bot's ``hello`` ``games`` list may hold.
    max_hello_games: int = 32
    #: History lookups (``list_games``/``get_game``) in flight per connection, and in all.
    max_lookups_per_connection: int = 2
    max_lookups: int = 32
    #: Extra tokens a history lookup takes from the rate bucket: it costs a query and a thread.
    lookup_cost: float = 4.0
    #: Analyses (``analyse`` jobs searched by bots or waiting for a slot) in flight in all and
    #: per client address (``busy`` past either), and the answers kept per position
    #: (core/analysis/desk.py): four addresses flooding took every slot of 8 in all.
    max_analyses: int = 32
    max_analyses_per_address: int = 2
    analysis_cache: int = 2048
    #: Entries in one page of ``rooms`` or ``bots`` (a client may ask for fewer).
    max_page: int = 100
    #: An offline player with no room and no game in the history is forgotten after this long.
    player_ttl: float = 3600.0
    #: Games a guest (today every human) may start in an hour by ``create_room`` or
    #: ``rematch``: each is a row on disk. Registered accounts would get a looser bound.
    max_guest_games_per_hour: int = 60
    #: Games the humans of one client address may start in an hour (a seat in a new game
    #: each): guests are free, so the per-guest quota alone does not bound an address.
    max_games_per_address_hour: int = 600
    #: Accounts one client address may register in an hour (a classroom behind one NAT
    #: raises it with ``--registrations-per-hour``).
    registrations_per_hour: int = 10
    #: Seconds a game against a bot waits for each seat's first move before it is abandoned
    #: (no result), and one (timed or not) for its human's next move before the human loses on
    #: time: a human holds one of a bot's few seats while the game lasts, even on a day's clock.
    first_move_timeout: float = 30.0
    human_idle_timeout: float = 600.0
    #: Seconds an untimed tournament game waits for a human's move (after each seat's first,
    #: which has ``first_move_timeout``) before that human loses on time: a round waits for
    #: its last game, and nobody may hold it up for good by staying online without moving.
    event_move_timeout: float = 300.0
    #: The share of a bot's seats the humans of one client address (an IPv6 /64 is one) may
    #: hold at once (at least one seat): two idle sockets cannot take every seat of a bot.
    bot_seat_share: float = 0.5
    #: Open seeks the server holds in all (``busy`` past it; core/pairing/desk.py), and those the
    #: humans of one client address hold (``too_many_seeks``): many sockets, one bound.
    max_seeks: int = 10_000
    max_seeks_per_address: int = 24
    #: The most seconds of network lag one timed move gets back (core/game/lag.py); 0 turns lag
    #: compensation off. Each clock also bounds it (3 x its quota gain: at most 3 s).
    max_lag_refund: float = 3.0

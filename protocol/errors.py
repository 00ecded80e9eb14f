"""One exception tree for all a peer can get wrong; each class carries its stable wire code."""

from __future__ import annotations


class ArenaError(Exception):
    """A request that cannot be served; ``code`` is the stable wire code, the text is for humans.

    The message must be safe to show the peer: never put internals (paths, tracebacks) in it.
    """

    code = "internal_error"

    def __init__(self, message: str = "") -> None:
        super().__init__(message or self.code.replace("_", " "))

    @property
    def message(self) -> str:
        """The human-readable text sent with the code."""
        return str(self.args[0])


class BadFrame(ArenaError):
    """The frame is not one binary msgpack value (undecodable bytes, or a text frame)."""

    code = "bad_frame"


class BadMessage(ArenaError):
    """The frame decoded but is not a valid message: not a map, no ``type``, ill-typed fields."""

    code = "bad_message"


class UnknownType(ArenaError):
    """The message ``type`` is not one this side understands."""

    code = "unknown_type"


class NotHello(ArenaError):
    """The first message on a connection must be ``hello``."""

    code = "not_hello"


class UnsupportedProtocol(ArenaError):
    """The ``hello`` asks for a protocol version this server does not speak."""

    code = "unsupported_protocol"


class BadSession(ArenaError):
    """The ``hello`` carries a session token this server does not know."""

    code = "bad_session"


class NoSuchRoom(ArenaError):
    """The room does not exist (or no longer exists)."""

    code = "no_such_room"


class NoSuchGame(ArenaError):
    """The game id is not in the history."""

    code = "no_such_game"


class NoHistory(ArenaError):
    """This server keeps no game history (it runs without a database)."""

    code = "no_history"


class TooManyRooms(ArenaError):
    """The player already has as many waiting rooms, or games against bots, as one may."""

    code = "too_many_rooms"


class RoomFull(ArenaError):
    """Both seats of the room are taken."""

    code = "room_full"


class NotAPlayer(ArenaError):
    """The sender holds no seat in that room (a spectator, or a stranger)."""

    code = "not_a_player"


class NotInRoom(ArenaError):
    """The sender is not in that room at all."""

    code = "not_in_room"


class NotYourTurn(ArenaError):
    """It is the other seat's turn (or the game has not started)."""

    code = "not_your_turn"


class MalformedMoveError(BadMessage):
    """A move whose coordinates are not integers: a malformed request, not a rules question."""


class IllegalMoveError(ArenaError):
    """A well-formed move the rules forbid now: off the board, occupied, or forbidden."""

    code = "illegal_move"


class StalePly(ArenaError):
    """A move whose ``ply`` is not the number of stones on the board (a resend or a stale view)."""

    code = "stale_ply"


class GameOverError(ArenaError):
    """The game has already ended."""

    code = "game_over"


class BadOptions(ArenaError):
    """A ``create_room``'s game, options, level or clock are not valid."""

    code = "bad_options"


class NoBotAvailable(ArenaError):
    """No bot can take the game right now."""

    code = "no_bot_available"


class RematchUnavailable(ArenaError):
    """A rematch needs a finished game and both seats still taken."""

    code = "rematch_unavailable"


class RateLimited(ArenaError):
    """The connection sends faster than the server allows; the request was dropped."""

    code = "rate_limited"


class InternalError(ArenaError):
    """The server failed on this request; details are in its log, never on the wire."""

    code = "internal_error"


class ForbiddenMove(IllegalMoveError):
    """A renju move black may not make (overline, double four, double three): black plays again."""

    code = "forbidden_move"


class WrongPhase(ArenaError):
    """The request does not fit the room's opening phase (or the room has no opening rule)."""

    code = "wrong_phase"


class TooEarly(ArenaError):
    """A draw offer before each side has moved, or a takeback with no move of yours to undo."""

    code = "too_early"


class TooLate(ArenaError):
    """An ``abort`` once both sides have moved: resign or offer a draw instead."""

    code = "too_late"


class OfferTooSoon(ArenaError):
    """A second draw offer within 20 plies of your last, or a takeback asked again before a
    move (your offer stands, or was just declined)."""

    code = "offer_too_soon"


class NoOffer(ArenaError):
    """A ``draw_answer`` or ``takeback_answer`` when no offer of your opponent's stands."""

    code = "no_offer"


class RatedGame(ArenaError):
    """A takeback in a rated game: takebacks are for casual games only."""

    code = "rated_game"


class CannotClaim(ArenaError):
    """A ``claim_victory`` while the opponent is online, or gone less than half the grace."""

    code = "cannot_claim"


class NodeUnavailableError(ArenaError):
    """The room is held by another cluster node, which this node cannot reach right now (the
    nodes' bus is down): the request was not sent; try again, or connect to that node."""

    code = "node_unavailable"


class BadKey(ArenaError):
    """A ``hello`` as a bot without a valid key (missing, unknown or revoked), or a bot's session
    resumed without its key."""

    code = "bad_key"


class TooManyGames(ArenaError):
    """A ``create_room`` or ``rematch`` past the games a player may start in an hour."""

    code = "too_many_games"


class RatedNeedsAccount(ArenaError):
    """A rated room asked for, or joined, by a guest: rated games are between accounts."""

    code = "rated_needs_account"


class RatedNeedsClock(ArenaError):
    """A rated room without a clock: untimed games are casual."""

    code = "rated_needs_clock"


class UnratedGame(ArenaError):
    """A rated room for a game that has no rating pool (another board or rule)."""

    code = "unrated_game"


class RatedPosition(ArenaError):
    """A rated room from a set-up position: rated games start from the empty board."""

    code = "rated_position"


class UnknownPool(ArenaError):
    """A ``leaderboard`` for a pool the server does not have."""

    code = "unknown_pool"


class BadPage(ArenaError):
    """A ``leaderboard`` page out of range."""

    code = "bad_page"


class NameTaken(ArenaError):
    """``register``: an account or a bot key has this name, or one that would pass for it."""

    code = "name_taken"


class WeakPassword(ArenaError):
    """The password is shorter than 8 characters, the name itself, or a very common one."""

    code = "weak_password"


class LongPassword(ArenaError):
    """The password is longer than 128 characters."""

    code = "long_password"


class BadLogin(ArenaError):
    """Wrong name or password (an unknown account and a bot account answer the same)."""

    code = "bad_login"


class AccountDisabled(ArenaError):
    """The operator disabled this account (said only after a correct password)."""

    code = "account_disabled"


class TooManyRegistrations(ArenaError):
    """Too many accounts registered from this address this hour."""

    code = "too_many_registrations"


class InGame(ArenaError):
    """Logging in or registering while seated in a game still being played."""

    code = "in_game"


class Busy(ArenaError):
    """The server's password hashing queue (or its book of seeks) is full; try again later."""

    code = "busy"


class NoAccounts(ArenaError):
    """This server keeps no accounts (it runs without a database, ``--memory``)."""

    code = "no_accounts"


class NotLoggedIn(ArenaError):
    """``logout``, ``change_password`` or ``create_tournament`` on a connection that is a guest."""

    code = "not_logged_in"


class NoSuchSeek(ArenaError):
    """The seek does not exist: never placed, cancelled, expired or just taken by another."""

    code = "no_such_seek"


class OwnSeek(ArenaError):
    """``accept_seek`` of one of your own seeks."""

    code = "own_seek"


class TooManySeeks(ArenaError):
    """A player's open seeks, or seeks placed this minute, are at their bound."""

    code = "too_many_seeks"


class OutOfRange(ArenaError):
    """``accept_seek`` by a player whose rating lies outside the seek's ``range``."""

    code = "out_of_range"


class AnalysisRefused(ArenaError):
    """``analyse`` of a live game that is not a training game (fair play: nobody gets it)."""

    code = "analysis_refused"


class BadPosition(ArenaError):
    """``analyse`` of a position that is illegal, already over, or past the board."""

    code = "bad_position"


class AnalysisFailed(ArenaError):
    """The analysing bot failed, left or ran out of time on an ``analyse`` (try again)."""

    code = "analysis_failed"


def all_codes() -> dict[str, type[ArenaError]]:
    """Every stable error code and the class that carries it (for docs and tests)."""
    found: dict[str, type[ArenaError]] = {}
    stack: list[type[ArenaError]] = [ArenaError]
    while stack:
        cls = stack.pop()
        found.setdefault(cls.code, cls)
        stack.extend(cls.__subclasses__())
    return found


class NoSuchTournament(ArenaError):
    """The tournament named does not exist (or is no longer kept)."""

    code = "no_such_tournament"


class TournamentClosed(ArenaError):
    """The tournament does not take that now: joining a finished event (or a round robin or
    swiss once it started), starting one that is not open, leaving one that is over."""

    code = "tournament_closed"


class TournamentFull(ArenaError):
    """The tournament holds the most entrants (or watchers) it may."""

    code = "tournament_full"


class TooManyTournaments(ArenaError):
    """Past the events an account may create in a day, or the events open at once."""

    code = "too_many_tournaments"


class NotTournamentCreator(ArenaError):
    """Only the event's creator may start it."""

    code = "not_tournament_creator"


class EntryCheckRunning(ArenaError):
    """A bot account asked to enter its first rated event: the server checks it first (an
    ``entry_check`` message follows when it is done; then join again)."""

    code = "entry_check_running"


class EntryCheckFailed(ArenaError):
    """The bot account failed its entry check (the message names the checks): no rated event
    until it is checked again."""

    code = "entry_check_failed"


class NotExaminer(ArenaError):
    """``certified`` from anyone but the server's own examiner, or about no check running."""

    code = "not_examiner"

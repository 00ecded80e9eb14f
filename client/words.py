"""The words a user reads: error codes and game results as sentences."""

from __future__ import annotations

from client.values import Result

#: User-facing words for every stable error code of docs/PROTOCOL.md.
ERROR_WORDS: dict[str, str] = {
    "bad_frame": "The server could not read a message from this client.",
    "bad_message": "The server did not understand that request.",
    "unknown_type": "The server does not support that yet.",
    "not_hello": "Not signed in yet; please wait a moment.",
    "unsupported_protocol": "This client and the server speak different protocol versions.",
    "bad_session": "Your old session expired; you are signed in afresh.",
    "bad_options": "Those game settings are not allowed.",
    "no_such_room": "That room does not exist (any more).",
    "no_such_game": "That game is not in the history.",
    "no_history": "This server keeps no game history.",
    "room_full": "That room is full; you can still watch it.",
    "too_many_rooms": "You have enough games open already: finish or leave one first.",
    "not_in_room": "You are not in that room.",
    "not_a_player": "Only the two players can do that; you are watching.",
    "not_your_turn": "It is not your turn.",
    "illegal_move": "You cannot play there.",
    "stale_ply": "The board changed before your move arrived; it has been refreshed.",
    "game_over": "The game is already over.",
    "rematch_unavailable": "A rematch needs a finished game and both players still here.",
    "no_bot_available": "No bot is free for that game right now; try again or play a human.",
    "rate_limited": "Slow down a little: too many actions at once.",
    "internal_error": "The server hit a problem with that request. Please try again.",
    "forbidden_move": "Forbidden for black under renju (an overline, double four or double three).",
    "wrong_phase": "Not now: the opening asks for something else (see the side panel).",
    "too_early": "Not yet: each side must have moved (a takeback needs a move of yours).",
    "too_late": "Too late to abort: both sides have moved. Resign or offer a draw.",
    "offer_too_soon": "You offered that recently; wait a few moves before offering again.",
    "no_offer": "That offer no longer stands.",
    "rated_game": "Takebacks are for casual games only.",
    "cannot_claim": "Not yet: your opponent may still come back.",
    "node_unavailable": "That room is on another server, out of reach for now; try again soon.",
    "bad_key": "Only a bot holding a key from the server's operator can sign in as a bot.",
    "too_many_games": "You have started enough games for this hour; come back a little later.",
    # accounts
    "bad_login": "Wrong name or password.",
    "name_taken": "That name is taken (or looks too much like one that is): pick another.",
    "weak_password": (
        "That password is too weak: use 8 to 128 characters, not holding your name and not "
        "a common password."
    ),
    "long_password": "That password is too long: at most 128 characters.",
    "too_many_logins": "Too many login attempts: wait a few minutes and try again.",
    "too_many_registrations": "Too many new accounts from here: try again in an hour.",
    "account_disabled": "This account is disabled: ask the server's operator.",
    "in_game": "Finish or leave the game you are playing first.",
    "busy": "The server is busy right now: try again in a moment.",
    # ratings
    "rated_needs_account": "Rated games are for players with an account: log in first.",
    "rated_needs_clock": "Rated games need a clock: pick one.",
    "unrated_game": "This game type is casual only (custom boards are not rated).",
    "rated_position": "A rated game cannot start from a set-up position.",
    "unknown_pool": "There is no leaderboard for that game and speed.",
    "bad_page": "There is no such leaderboard page.",
    "no_accounts": "This server keeps no accounts; play as a guest.",
    "not_logged_in": "Log in first.",
    # quick pairing
    "no_such_seek": "That seek is gone: it was taken or cancelled.",
    "own_seek": "That is your own seek: wait for someone to accept it.",
    "too_many_seeks": "You are seeking enough games already (3 at most, 30 a minute).",
    "out_of_range": "Your rating is outside the range that seek asks for.",
    # analysis
    "analysis_refused": (
        "No analysis of a game in play (fair play): only finished games, your own positions "
        "and training games."
    ),
    "bad_position": "The engine cannot analyse that position (over already, or not legal).",
    "analysis_failed": "The engine could not finish that analysis: try again.",
    # tournaments
    "no_such_tournament": "That tournament does not exist (or is no longer kept).",
    "tournament_closed": "That tournament does not take that now (started, or over).",
    "tournament_full": "That tournament is full (players, or watchers).",
    "too_many_tournaments": "You have created enough tournaments for today.",
    "not_tournament_creator": "Only the tournament's creator can start it.",
    "entry_check_running": "The server is checking this bot before its first rated event.",
    "entry_check_failed": "This bot failed its entry check: no rated event for now.",
    "not_examiner": "Only the server's examiner reports entry checks.",
}

REASON_WORDS: dict[str, str] = {
    "line": "{winner} wins with {k} in a row",
    "draw": "Draw: the board is full",
    "resign": "{loser} resigned, {winner} wins",
    "timeout": "{loser} ran out of time, {winner} wins",
    "disconnect": "{loser} disconnected, {winner} wins",
    "abandoned": "Game abandoned",
    "adjudicated": "Adjudicated: {winner} wins",
    "forbidden": "{loser} played a forbidden move, {winner} wins",
    "forfeit": "{loser} forfeits ({fault}), {winner} wins",
    "draw_agreed": "Draw agreed",
    "aborted": "Game aborted: no result",
    "opponent_gone": "{loser} left the game, {winner} wins",
}

#: Why a player forfeits, as a few words (the ``fault`` of a ``forfeit``).
FAULT_WORDS: dict[str, str] = {
    "crash": "its engine crashed",
    "hang": "its engine hung",
    "illegal_move": "it chose an illegal move",
    "error": "its engine failed",
    "timeout": "out of time",
    "disconnect": "disconnected",
}


def error_text(code: str, message: str = "") -> str:
    """The words to show a user for an ``error`` code (falls back to the server's message)."""
    words = ERROR_WORDS.get(code)
    if words is not None:
        return words
    return message or f"Something went wrong ({code})."


def result_text(result: Result, names: tuple[str, str], k: int) -> str:
    """A sentence describing ``result`` between ``names`` (winner's name first)."""
    template = REASON_WORDS.get(result.reason, "{winner} wins ({reason})")
    if result.winner is None:
        if result.reason in ("line", "adjudicated"):
            return "Draw"
        winner = loser = "nobody"
    else:
        winner, loser = names[result.winner], names[1 - result.winner]
    fault = FAULT_WORDS.get(result.fault or "", result.fault or "its engine failed")
    return template.format(winner=winner, loser=loser, k=k, reason=result.reason, fault=fault)

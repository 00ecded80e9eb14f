"""The shared language of mnk-arena: the m,n,k-game rules and wire protocol v1."""

from protocol import native  # first: it decides whether the compiled build may be imported
from protocol.errors import ArenaError, GameOverError, IllegalMoveError, MalformedMoveError
from protocol.rules import Board, Game, Move, Outcome, Termination, Variant, WinRule
from protocol.variants import GOMOKU, GOMOKU_STANDARD, TICTACTOE, make_variant
from protocol.wire import PROTOCOL_VERSION, decode, encode, parse

__all__ = [
    "GOMOKU",
    "GOMOKU_STANDARD",
    "PROTOCOL_VERSION",
    "TICTACTOE",
    "ArenaError",
    "Board",
    "Game",
    "GameOverError",
    "IllegalMoveError",
    "MalformedMoveError",
    "Move",
    "Outcome",
    "Termination",
    "Variant",
    "WinRule",
    "decode",
    "encode",
    "make_variant",
    "native",
    "parse",
]

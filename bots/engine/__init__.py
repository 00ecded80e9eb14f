"""The mnk-arena search engine: alpha-beta with threat search, levels, and an exact solver."""

from bots.engine.levels import LEVELS, Engine, choose_move, choose_move_with_search, level_limit
from bots.engine.limits import WIN, Limit, SearchResult, is_mate
from bots.engine.search import search

__all__ = [
    "LEVELS",
    "WIN",
    "Engine",
    "Limit",
    "SearchResult",
    "choose_move",
    "choose_move_with_search",
    "is_mate",
    "level_limit",
    "search",
]

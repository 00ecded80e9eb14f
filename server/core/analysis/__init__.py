"""Analysis: an ``analyse`` request checked and keyed by its position, answered from the cache or
by one bot job per position, the bot's answer checked and rebuilt, and the one blunder rule that
marks a game's moves."""

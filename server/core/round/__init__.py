"""A game being played, as lichess's ``round`` module: the game actions (draw offers, takebacks,
aborts, claiming a win over a player who is gone), what the sweep ends when time runs out, and a
bot's search report shown to spectators; the room itself is the ``game`` domain's."""

"""The game: one room (a table), its clocks and lag refunds, its opening rule (swap1, swap2), a
set-up position, renju's forbidden cells, the game actions (offers, takebacks, aborts, claims),
what the sweep ends when time runs out, and the messages a room sends; the per-move path, most
of it compiled with mypyc."""

"""The journal: the durable records the arena hands its store (players, game headers, moves, live
rooms) and how a restart or an adopting node rebuilds the rooms from them."""

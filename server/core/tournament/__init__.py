"""Tournaments: the pairing formats (round robin, swiss, arena) as pure functions on frozen
values, with their standings and tie-breaks; the event's state as the journal rebuilds it;
and the desk that creates, joins, starts and runs events, whose games are ordinary rooms
seated through the arena and whose results come back from each game's end, once per game."""

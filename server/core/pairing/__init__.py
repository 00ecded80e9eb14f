"""Quick pairing: seeks and the book that holds them, the waves that pair each pool by rating
(the matcher), what past pairings forbid, the room a pairing makes, and the ``seeks`` pages and
pushes."""

"""``mnk-tournament``: round robins, gauntlets, swiss and SPRT matches refereed by a server.

Pure parts (no I/O): :mod:`.stats`, :mod:`.openings`, :mod:`.schedule`, :mod:`.results`.
I/O parts: :mod:`.referee` (how a game gets played), :mod:`.processes` (server and bot
processes), :mod:`.director` (the loop), :mod:`.report` and :mod:`.chart` (output), :mod:`.cli`.
"""

"""``python -m bots.tournament``: the same as ``mnk-tournament``."""

from bots.tournament.cli import main

main()

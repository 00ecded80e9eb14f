"""``python -m bots``: the same as ``mnk-bot``."""

from bots.cli import main

main()

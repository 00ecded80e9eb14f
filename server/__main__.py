"""``python -m server``: the same as ``mnk-server``."""

from server.cli import main

main()

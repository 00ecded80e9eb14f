"""``python -m client``: the same as ``mnk-client``."""

import sys

from client.cli import main

sys.exit(main())

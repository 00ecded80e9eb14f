"""mnk-arena pygame desktop client."""

import os

# pygame prints a banner on import unless told not to; set before any module here imports it.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

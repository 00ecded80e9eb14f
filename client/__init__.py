"""mnk-arena pygame desktop client."""

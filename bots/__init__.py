"""mnk-arena bots: the minimax engine and the processes that connect engines to the server."""

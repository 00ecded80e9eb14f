"""mnk-arena game server: sans-I/O rooms and lobby under a thin asyncio WebSocket shell."""

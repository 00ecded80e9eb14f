"""The asyncio shell: the WebSocket server, connections, lanes, commit pipeline and bot pool."""

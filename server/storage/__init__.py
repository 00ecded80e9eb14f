"""Storage: the Storage interface and its stores (memory, SQLite, PostgreSQL)."""

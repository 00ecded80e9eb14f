"""Players and their connections: who the arena knows (ids, session tokens, bots by key), a
``hello``, players coming online and going offline in rooms, and what a connection may hold or
have in flight."""

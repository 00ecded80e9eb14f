"""The sans-I/O core: players, rooms, clocks and the lobby; it never awaits or touches a socket."""

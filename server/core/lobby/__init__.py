"""The lobby: where rooms are found by code (this process's or reserved across a cluster), the
list of open rooms in opening order pushed to its subscribers, and the pages of the lobby's
lists."""

"""A transport double for the pygame client's ``App``: it records what the app sends and hands
it queued server messages, so the app runs headless without a server."""

from __future__ import annotations

from typing import Any


class FakeNet:
    """Records every request (numbered, as the real client's ids are) and renames; the app
    reads ``inbox`` on its next step."""

    url = "ws://127.0.0.1:8765"

    def __init__(self, inbox: list[dict[str, Any]] | None = None) -> None:
        self.sent: list[dict[str, Any]] = []
        self.inbox: list[dict[str, Any]] = inbox if inbox is not None else []
        self.renamed: list[str] = []

    def send(self, message: dict[str, Any]) -> int:
        self.sent.append(dict(message, id=len(self.sent) + 1))
        return len(self.sent)

    def poll(self) -> list[dict[str, Any]]:
        out, self.inbox = self.inbox, []
        return out

    def rename(self, name: str) -> None:
        self.renamed.append(name)

    def types(self) -> list[str]:
        """The types of the requests sent, in order."""
        return [m["type"] for m in self.sent]

    def asked(self, kind: str = "list_bots") -> int:
        """How many requests of ``kind`` were sent."""
        return sum(m["type"] == kind for m in self.sent)

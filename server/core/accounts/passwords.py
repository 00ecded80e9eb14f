"""What a password must be: 8 to 128 characters, not holding the name, not one of the most
common."""

from __future__ import annotations

from protocol.errors import LongPassword, WeakPassword
from server.core.players.names import name_key

MIN_PASSWORD = 8
MAX_PASSWORD = 128

#: The most common passwords of 8 characters or more (from the public breach lists' top
#: entries), compared case-folded: a guesser tries these first.
COMMON = frozenset(
    [
        "password",
        "password1",
        "password12",
        "password123",
        "password1234",
        "passw0rd",
        "p@ssw0rd",
        "p@ssword",
        "12345678",
        "123456789",
        "1234567890",
        "12345678910",
        "987654321",
        "87654321",
        "11111111",
        "00000000",
        "88888888",
        "12341234",
        "11223344",
        "1q2w3e4r",
        "1q2w3e4r5t",
        "1qaz2wsx",
        "qwertyui",
        "qwertyuiop",
        "qwerty123",
        "qwerty12",
        "qwerty1234",
        "asdfghjk",
        "asdfghjkl",
        "zxcvbnm1",
        "iloveyou",
        "iloveyou1",
        "sunshine",
        "princess",
        "football",
        "baseball",
        "superman",
        "batman123",
        "trustno1",
        "letmein1",
        "welcome1",
        "welcome123",
        "abcd1234",
        "abc12345",
        "abcdefgh",
        "aa123456",
        "a1234567",
        "1234qwer",
        "qazwsxedc",
        "charlie1",
        "computer",
        "internet",
        "whatever",
        "starwars",
        "dragon123",
        "monkey123",
        "michael1",
        "jennifer",
        "jordan23",
        "liverpool",
        "chelsea1",
        "arsenal1",
        "minecraft",
        "pokemon1",
        "master123",
        "changeme",
        "administrator",
        "admin123",
        "welcome!",
        "football1",
        "tictactoe",
        "gomoku123",
        "mnkarena",
        "mnk-arena",
    ]
)


def check_password(name: str, password: str) -> None:
    """Refuse a password that is too long (``long_password``) or too easy to guess
    (``weak_password``); the messages never repeat the password."""
    if len(password) > MAX_PASSWORD:
        raise LongPassword(f"a password is at most {MAX_PASSWORD} characters")
    if len(password) < MIN_PASSWORD:
        raise WeakPassword(f"a password is at least {MIN_PASSWORD} characters")
    folded = password.casefold()
    if holds_name(name, password):
        raise WeakPassword("a password may not be the name or hold it")
    if folded in COMMON:
        raise WeakPassword("that password is one of the most common: choose another")


def holds_name(name: str, password: str) -> bool:
    """Whether ``password`` is ``name`` or holds it (``alicealice``, ``Alice2024!``, ``al1ce``),
    compared case-folded and as look-alike keys; a name under 3 characters only when equal."""
    folded, own = password.casefold(), name.casefold()
    if folded == own or name_key(password) == name_key(name):
        return True
    if len(own) < 3:
        return False
    key = name_key(name)
    return own in folded or (len(key) >= 3 and key in name_key(password))

"""Accounts: registering, logging in and out, changing and resetting a password, the guessers'
back-off and the registration window, the password rule, and display names that cannot look
alike; the password work itself (Argon2id) is the shell's, off the loop."""

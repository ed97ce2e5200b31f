"""tablecam: a camera over the game table that keeps the score and checks the rules."""

__version__ = "0.1.0"

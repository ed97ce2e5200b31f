"""The one exception type for mistakes a user can make.

Every package may import this module (it needs nothing but the standard library).
Raise UserError with one clear sentence; the CLI prints it and exits with status 2,
the server answers it with a 4xx. Anything else escaping is a bug in tablecam.
"""


class UserError(Exception):
    """Bad input from the user: a file, an image, a parameter. The message is one sentence."""

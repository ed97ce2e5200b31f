"""Pure game engines: state types, legal moves, validation with reasons, scoring.

Standard library only: no images, no I/O beyond reading the package's own data files.
"""

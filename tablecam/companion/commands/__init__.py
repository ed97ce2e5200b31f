"""One module per `tablecam` sub-command.

Each module defines `register(subparsers)`, which adds its parser and sets
`handler=` to a function taking the parsed arguments and returning an exit status.
A handler is a thin shell over a library function; heavy imports (OpenCV, Flask)
go inside the handler so that `tablecam replay` starts fast.
The CLI finds the modules itself: adding a command is adding a file here.
"""

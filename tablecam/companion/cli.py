"""The `tablecam` console command.

Bad input ends in one sentence on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys

from tablecam import __version__
from tablecam.errors import UserError
from tablecam.companion import commands


class _Parser(argparse.ArgumentParser):
    # argparse prints the whole usage block on a mistake; one sentence is kinder at the table.
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"tablecam: {message} (see `tablecam {self.prog.split(' ', 1)[-1]} --help`).\n"
                  if " " in self.prog else f"tablecam: {message} (see `tablecam --help`).\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tablecam", description="A camera over the game table that keeps the score.")
    parser.add_argument("--version", action="version", version=f"tablecam {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        importlib.import_module(f"{commands.__name__}.{info.name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.handler(args) or 0)
    except UserError as exc:
        print(f"tablecam: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"tablecam: no such file: {exc.filename}.", file=sys.stderr)
        return 2
    except IsADirectoryError as exc:
        print(f"tablecam: {exc.filename} is a directory, not a file.", file=sys.stderr)
        return 2
    except PermissionError as exc:
        print(f"tablecam: not allowed to open {exc.filename}.", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"tablecam: malformed JSON at line {exc.lineno}: {exc.msg}.", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our output went away (e.g. `| head`); that is not an error of ours.
        sys.stderr.close()
        return 0
    except Exception as exc:  # a bug in tablecam: still one sentence, but a different status
        print(f"tablecam: internal error ({type(exc).__name__}: {exc}); please report it.", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

"""The `mergedrv` command: git's merge-driver call is served before the
argument parser is even imported (one process per file per merge); every
other use goes to the full command line in cli.py."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["merge"]:  # any other command (a hook's check) does not load the merge
        from .commands.merge import fast_args

        args = fast_args(argv)
        if args is not None:
            from .commands.merge import run

            return run(args)
    from .cli import main as cli_main

    return cli_main(argv)

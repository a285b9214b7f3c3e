"""Command line: argument parsing and dispatch only.

Each command's work lives in its own module, imported when the command runs,
so `mergedrv merge` (one process per file per merge) pays for nothing else.
"""

from __future__ import annotations

import argparse
import sys

from . import __version__

EPILOG = """\
examples:
  mergedrv merge %O %A %B -p %P -l %L -s %S -x %X -y %Y   (as git's merge driver)
  mergedrv demo                 show plain git and mergedrv merging real records
  mergedrv install              wire the driver and hooks into this repository
  mergedrv check --staged       check the staged records (pre-commit hook)
  mergedrv check --base origin/main --head HEAD   check every commit of a range (CI)
  mergedrv resolve --add        keyed-merge files a rebase left conflicted
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # usage errors: exit 2 with a hint
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``command``, only that subcommand's (faster start)."""
    p = _Parser(
        prog="mergedrv",
        description="A git merge driver and hooks for keyed records: markdown tables whose rows carry stable IDs.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"mergedrv {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, add in SUBCOMMANDS.items():
        if command is None or command == name:
            add(sub)
    return p


def _add_merge(sub) -> None:
    m = sub.add_parser(
        "merge",
        help="three-way keyed merge of one file (git merge driver)",
        description="Merge %%O (base), %%A (ours) and %%B (theirs); the result replaces %%A. "
        "Exit 0: clean; 1: conflicts (git's diff3 markers, one stderr line per conflict).",
        epilog="git config merge.keyed.driver 'mergedrv merge %O %A %B -p %P -l %L -s %S -x %X -y %Y'",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    m.add_argument("base", help="%%O: the merge base")
    m.add_argument("ours", help="%%A: ours; overwritten with the result")
    m.add_argument("theirs", help="%%B: theirs")
    m.add_argument("-p", "--path", help="%%P: the path in the repository (selects the record in .mergedrv.toml)")
    m.add_argument("-l", "--marker-size", help="%%L: conflict marker size (default 7)")
    m.add_argument("-s", "--base-label", help="%%S: label of the base section")
    m.add_argument("-x", "--ours-label", help="%%X: label of our section")
    m.add_argument("-y", "--theirs-label", help="%%Y: label of their section")
    m.add_argument("--config", help="read this configuration instead of ./.mergedrv.toml")
    m.add_argument("--strict", action="store_true", help="a key added identically on both sides is a conflict too")
    m.add_argument("--no-cell-merge", action="store_true", help="a row changed on both sides conflicts even if different cells changed")


# Every subcommand: name -> function adding its parser.  Keep the functions
# free of imports; the work is imported lazily in _dispatch.
SUBCOMMANDS = {
    "merge": _add_merge,
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and argv[0] in SUBCOMMANDS else None)
    if argv[:1] == ["merge"]:
        # git treats any exit code but 0 as a conflict: keep usage errors at 1
        try:
            ns = parser.parse_args(argv)
        except SystemExit as exc:
            return 0 if exc.code == 0 else 1
    else:
        ns = parser.parse_args(argv)
    if ns.command is None:
        parser.print_help()
        return 2
    try:
        return _dispatch(ns)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1


def _dispatch(ns: argparse.Namespace) -> int:
    if ns.command == "merge":
        from .driver import DriverArgs, run

        return run(
            DriverArgs(
                ns.base,
                ns.ours,
                ns.theirs,
                ns.path,
                ns.marker_size,
                ns.base_label,
                ns.ours_label,
                ns.theirs_label,
                ns.config,
                ns.strict,
                ns.no_cell_merge,
            )
        )
    raise AssertionError(ns.command)  # pragma: no cover

"""The command lines of `mergedrv renumber` and `mergedrv next` (parsers and
runners; cli.py loads this module only when one of them runs or help is shown)."""

from __future__ import annotations

import argparse


def add_renumber(sub) -> None:
    r = sub.add_parser(
        "renumber",
        help="move the numbered keys this branch and REF both added to the next free numbers",
        description="Run on a branch: each numbered key (a key_pattern ending in digits, or numbered = true) that "
        "the branch added since its merge base with REF, and that REF added too with a different row, moves to the "
        "next free number, above the highest on both sides, with the key's own width (ADR-0013 -> ADR-0014). "
        "The move rewrites the record row; every whole-word occurrence of the old key in the files the branch "
        "changed (ADR-00130 stays); and the files the branch changed whose names carry the number the way the "
        "row's links do (0013-use-y.md -> 0014-use-y.md, with git mv; also a file it added named from the number on, "
        "or carrying the key), with the links to them. It touches nothing "
        "REF added and no file the branch did not change, then commits the move. "
        "Exit 0: moved, or nothing to move; 1: a key it cannot move (the branch and REF changed the same row "
        "citing it); 2: usage, configuration or git error.",
        epilog="examples:\n  mergedrv renumber --onto main\n  mergedrv renumber --onto origin/main --dry-run\n"
        "  mergedrv renumber --onto main --no-commit   (stage the move, commit it yourself)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("--onto", required=True, metavar="REF", help="the branch whose numbers stand (e.g. main, origin/main)")
    r.add_argument("--dry-run", action="store_true", help="print the moves, change nothing")
    r.add_argument("--no-commit", action="store_true", help="stage the move without committing it")
    r.add_argument("--repo", default=".", metavar="DIR", help="the repository (default: the current one)")


def add_next(sub) -> None:
    n = sub.add_parser(
        "next",
        help="print the next free number of a numbered record, counting every branch",
        description="Print the next free key of record NAME: above the highest number held by the working tree, "
        "any local branch or any remote-tracking branch (refs/remotes/*), with the keys' width. Take it for a "
        "new row, and no open branch holds it (fetch first to see the others' branches).",
        epilog="examples:\n  mergedrv next ADR\n  git fetch && mergedrv next ADR",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    n.add_argument("name", metavar="NAME", help="the record's name in .mergedrv.toml")
    n.add_argument("--repo", default=".", metavar="DIR", help="the repository (default: the current one)")


def run_renumber(ns) -> int:
    from . import renumber
    return renumber.run(renumber.Request(ns.onto, ns.dry_run, not ns.no_commit, ns.repo))


def run_next(ns) -> int:
    from . import next as next_command
    return next_command.run(next_command.Request(ns.name, ns.repo))

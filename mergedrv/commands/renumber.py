"""`mergedrv renumber --onto REF`: move the numbered keys this branch added,
and REF added too, to the next free numbers (`renumbering.py` does the move).

Exit 0: moved, or nothing to move; 1: a key it cannot move (the branch and
REF changed the same row that cites it); 2: usage, configuration or git error.
"""

from __future__ import annotations

import sys

from ..git import toplevel
from ..renumbering import move
from ..values import Value


class Request(Value):
    """`mergedrv renumber --onto REF [--dry-run] [--no-commit] [--repo DIR]` (built once, in cli.py)."""

    __slots__ = ("onto", "dry_run", "commit", "repo")

    def __init__(self, onto: str, dry_run: bool = False, commit: bool = True, repo: str = ".") -> None:
        self.onto = onto
        self.dry_run = dry_run
        self.commit = commit
        self.repo = repo


def run(req: Request) -> int:
    root = toplevel(req.repo)
    moves, stuck = move(root, req.onto, print, req.dry_run, req.commit)
    for line in stuck:
        print(line, file=sys.stderr)
    if not moves:
        print(f"nothing to move: no numbered key this branch added is taken on {req.onto}")
    return 1 if stuck else 0

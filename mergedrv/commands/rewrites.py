"""The rewrite checks of `mergedrv check`: a commit made while git replays another
(pre-commit) and a rebase's or `am`'s branch update (`--ref-update`, the
reference-transaction hook) must not lose a key the original did not delete."""

from __future__ import annotations

import os
import sys

from ..findings import render
from .workdir import configured_paths


def replayed(s, only: set[str] | None) -> list:
    """While git replays a commit (a rebase stop, cherry-pick, revert, `am`):
    the keys the commit being made drops that its original did not delete."""
    if only is not None and "merge-keys" not in only:
        return []
    from ..replaying import original

    root = os.getcwd()
    if original(root) is None:
        return []  # the ordinary commit: the history package stays unimported
    from ..history.dropped import staged_drops

    return staged_drops(s.cfg, root, s.parent, s.snap, configured_paths(s.cfg))


def run_ref_update(req) -> int:
    """`check --ref-update STATE` (reference-transaction hook): exit 1 refuses the update."""
    from ..history.dropped import ALLOW, ref_drops

    if req.ref_update != "prepared" or os.environ.get(ALLOW) == "1":
        return 0  # "committed" and "aborted" cannot be refused; ALLOW: a deletion made on purpose
    from ..git import toplevel

    root = toplevel(".")  # git runs the hook at the top of the work tree
    os.chdir(root)
    findings = ref_drops(root, sys.stdin.read())
    if not findings:
        return 0
    print(render(findings, req.format))
    print(f"mergedrv: refusing the branch update: {len(findings)} key{'s' if len(findings) != 1 else ''} lost by the "
          "rewrite; nothing is lost, the rewritten commits stay reachable (HEAD)", file=sys.stderr)
    return 1

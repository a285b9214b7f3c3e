"""The rewrite checks of `mergedrv check`: a commit made while git replays another
(pre-commit) and a rebase's or `am`'s branch update (`--ref-update`, the
reference-transaction hook) must not lose a key the original did not delete;
after a rebase (post-rewrite), the repair of numbers it left stale in HEAD."""

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


def stale_head(root: str) -> str | None:
    """After a rebase (post-rewrite): the one-line repair when HEAD holds
    derived numbers its parent did not have stale, or a pin below its count
    (both branches moved them, git kept one move where the sides agreed
    byte for byte, and a rebase runs no hook that could set them), else None.
    Only where the work tree holds HEAD's records (`mergedrv fix` then sets
    what HEAD's commit left)."""
    from .. import config as cfgmod
    from ..checks import Context
    from ..checks.ratchet import pinned
    from ..git import GitRev
    from .fix_staged import stale_since_parent
    from .workdir import records_as_at_head

    head = GitRev(root, "HEAD")
    data = head.read(cfgmod.CONFIG_NAME) if head.exists else None
    if data is None:
        return None
    try:
        cfg = cfgmod.load_bytes(data)
    except cfgmod.ConfigError:
        return None
    if not records_as_at_head(root, cfg):
        return None  # (the work tree is the person's: they decide)
    ctx = Context(cfg, head)
    low = [r.name for r in ctx.records() if r.pin is not None and ctx.record_docs(r) and len(pinned(r, ctx.keys(r))) > r.pin]
    at_head, before = stale_since_parent(root, cfg)
    stale = [k for k, want in at_head.items() if before.get(k) != want]
    if not low and not stale:
        return None
    what = ", ".join([f"{n}'s pin" for n in low] + sorted({k[0] for k in stale}))
    return (f"mergedrv: the rebase left derived numbers stale in HEAD ({what}): both branches moved them and git kept "
            "one move; `mergedrv fix && git commit -a --amend --no-edit` sets them")

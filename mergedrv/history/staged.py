"""The staged change and a merge being concluded: `check --staged`, `--merge-head`, and
the post-rewrite input.
"""

from __future__ import annotations

import os

from .. import config as _config
from ..findings import Finding
from ..git import GitError, index_tree, resolve_commit
from .changes import merge_changes, name_only, needs_git, rename_flag, tree_changes
from .checkpoint import checkpoint
from .entries import Reader
from .merge_keys import Bases, MergeInput, merge_keys


def _head(repo):
    return _try_commit(repo, "HEAD")  # None on an unborn branch


def _merge_heads(repo) -> list:
    """The commits being merged into HEAD: MERGE_HEAD once git has written it."""
    return [repo.get(oid) for oid in repo.listall_mergeheads()]


def _fetch_heads(repo) -> list:
    try:
        with open(os.path.join(repo.path, "FETCH_HEAD"), "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    ids = [line.split("\t", 1)[0] for line in text.splitlines() if line and "\tnot-for-merge\t" not in line]
    return [c for c in (_try_commit(repo, i) for i in ids) if c is not None]


def _try_commit(repo, rev: str):
    try:
        return resolve_commit(repo, rev)
    except GitError:
        return None


def _pending_merge_heads(repo) -> list:
    """The commits a running `git merge` is merging, for its pre-merge-commit hook.

    git writes MERGE_HEAD only after that hook, so the heads come from the
    arguments git leaves in GIT_REFLOG_ACTION (``merge A B``), or from
    FETCH_HEAD when `git pull` runs the merge.
    """
    heads = _merge_heads(repo)
    if heads:
        return heads
    action = os.environ.get("GIT_REFLOG_ACTION", "").split()
    if action[:1] == ["merge"]:
        heads = [_try_commit(repo, arg) for arg in action[1:] if not arg.startswith("-")]
        return [h for h in heads if h is not None]
    if action[:1] == ["pull"]:
        return _fetch_heads(repo)
    return []


def checkpoint_staged(cfg: _config.Config, repo) -> list[Finding]:
    """`check --staged`: the checkpoint rule on the staged change.

    While a merge is being concluded (MERGE_HEAD exists) the index is judged as
    that merge: checkpoint on the paths that differ from every parent, and
    merge-keys, since a conflicted merge is committed through pre-commit, not
    pre-merge-commit.
    """
    tree, head = index_tree(repo), _head(repo)
    heads = _merge_heads(repo) if head is not None else []
    if heads:
        parents = [head, *heads]
        paths = merge_changes([tree_changes(p.tree, tree) for p in parents])
        return checkpoint(cfg, paths) + merge_keys(Reader(repo, cfg), Bases(repo), MergeInput(tree, parents, None))
    changes = tree_changes(head.tree if head is not None else None, tree)
    paths = set(changes)
    if head is not None and needs_git(cfg, changes) and rename_flag(repo):
        paths = name_only(repo, ["--cached", str(head.id)])
    return checkpoint(cfg, paths)


def merge_head(cfg: _config.Config, repo) -> list[Finding]:
    """`check --merge-head` (pre-merge-commit): the merge in the index against HEAD and MERGE_HEAD."""
    head = _head(repo)
    heads = _pending_merge_heads(repo)
    if head is None or not heads:
        raise GitError("no merge in progress (no MERGE_HEAD, and GIT_REFLOG_ACTION names none); "
                       "--merge-head is for the pre-merge-commit hook")
    tree = index_tree(repo)
    parents = [head, *heads]
    paths = merge_changes([tree_changes(p.tree, tree) for p in parents])
    return (
        checkpoint(cfg, paths)
        + merge_keys(Reader(repo, cfg), Bases(repo), MergeInput(tree, parents, None))
        + _merged_snapshot(cfg, repo, tree, parents)
    )


def _merged_snapshot(cfg: _config.Config, repo, tree, parents) -> list[Finding]:
    """The record checks on the merge as it will be committed: a merge that
    git resolved without the driver (both sides moved a pin to the same
    value) must not be committed with a ratchet it breaks."""
    from ..git import merge_sides
    from ..checks import run_checks
    from ..git import Tree

    snap = Tree(repo, tree, "merge")
    parent = Tree(repo, parents[0].tree, parents[0].short_id)
    from ..checks.inherited import mark

    only = {"config-matches", "keys-unique", "key-format", "column-format", "table-shape", "detached-row", "refs", "ratchet", "rollup", "log-append-only"}
    sides = merge_sides(repo, parents)
    data = snap.read(_config.CONFIG_NAME)
    return mark(cfg, run_checks(cfg, snap, parent, None, only, **sides), sides.get("sides") or [parent], only, data)


def parse_rewritten(text: str) -> list[tuple[str, str]]:
    """git's post-rewrite input: ``old new [extra]`` per line."""
    pairs = []
    for n, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) < 2:
            raise GitError(f"post-rewrite input line {n}: expected `old-sha new-sha`, got {line!r}")
        pairs.append((fields[0], fields[1]))
    return pairs

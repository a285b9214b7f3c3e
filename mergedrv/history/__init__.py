"""History checks: `checkpoint` and `merge-keys` on commits, the range walk for
CI (`check --base --head`), and the pre-merge-commit and post-rewrite checks.

Trees and blobs are read with pygit2; git itself runs only where its answer
cannot be reproduced in-process (rename detection, all merge bases), and only
for the rare commit whose verdict depends on it.  One module per concern:

  changes     changed paths (libgit2 tree diffs; git only for rename detection)
  checkpoint  the checkpoint rule on a set of changed paths
  entries     keyed rows of a version (Entry, Parsed, Reader)
  merge_keys  keys a merge commit lost, doubled or took from the wrong side
  rewritten   rebased commits against their originals (post-rewrite)
  walk        the commits of a range, each checked against its parent(s)
  staged      the staged change and a merge being concluded
"""

from __future__ import annotations

from .changes import merge_changes, name_only, name_only_many, needs_git, rename_flag, tree_changes
from .checkpoint import CHECKPOINT, checkpoint
from .entries import Entry, Parsed, Reader, parsed_tree
from .merge_keys import MERGE_KEYS, Bases, MergeInput, merge_keys
from .rewritten import rewritten
from .staged import checkpoint_staged, merge_head, parse_rewritten
from .walk import EMPTY_TREE, HISTORY_CHECKS, RANGE_CHECKS, SnapshotChecks, Step, Summary, check_range, check_step, range_commits, step, steps

__all__ = [
    "CHECKPOINT", "EMPTY_TREE", "HISTORY_CHECKS", "MERGE_KEYS", "RANGE_CHECKS", "Bases", "Entry", "MergeInput", "Parsed",
    "Reader", "SnapshotChecks", "Step", "Summary", "check_range", "check_step", "checkpoint", "checkpoint_staged",
    "merge_changes", "merge_head", "merge_keys", "name_only", "name_only_many", "needs_git", "parse_rewritten",
    "parsed_tree", "range_commits", "rename_flag", "rewritten", "step", "steps", "tree_changes",
]

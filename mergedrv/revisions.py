"""Which three revisions git is combining, the questions beside
`git.operation`: (base, ours, theirs) of the merge, rebase step,
cherry-pick or revert under way, found from git's own state files, refs
and environment, or from the labels git gave the merge driver."""

from __future__ import annotations

import os

from .git import OPERATIONS, GitError, git, git_or_none, git_path

Revisions = tuple[str, str, str]  # (base, ours, theirs)


def three_revisions(root: str | os.PathLike[str], op: str) -> Revisions | None:
    """(base, ours, theirs) commits of the operation git stopped in, named
    as `git.operation` names it: a rebase step, a cherry-pick, a revert or a merge."""
    head = dict(OPERATIONS, rebase="REBASE_HEAD").get(op)
    if head is None or not os.path.isfile(git_path(root, head)):
        return None
    if op == "revert":  # the reverted commit is the base, its parent theirs
        return head, "HEAD", f"{head}^"
    if op == "merge":
        try:
            base = git(root, "merge-base", "HEAD", "MERGE_HEAD").decode().split()[0]
        except (GitError, IndexError):
            return None
        return base, "HEAD", head
    return f"{head}^", "HEAD", head


def labelled_revisions(root: str, path: str | None, labels: Revisions | None, base: bytes, theirs: bytes) -> Revisions | None:
    """(base, ours, theirs) of a cherry-pick or revert from the labels
    (base, ours, theirs) git 2.44 and later passes (%S %X %Y): theirs
    ``abc1234 (subject)`` and the base ``parent of abc1234 (subject)`` (a
    revert: the other way round), trusted only if that commit and its
    parent hold the very base and theirs git gave the driver."""
    import re

    if labels is None or labels[1] != "HEAD" or not path:
        return None
    named = re.compile(r"([0-9a-f]{4,64}) \(.*\)", re.S)
    base_label, theirs_label = labels[0], labels[2]
    picked_theirs, picked_base = named.fullmatch(theirs_label), named.fullmatch(base_label)
    revs: Revisions
    if base_label == f"parent of {theirs_label}" and picked_theirs:
        picked = picked_theirs.group(1)
        revs = (f"{picked}^", "HEAD", picked)
    elif theirs_label == f"parent of {base_label}" and picked_base:
        picked = picked_base.group(1)
        revs = (picked, "HEAD", f"{picked}^")
    else:
        return None
    full = git_or_none(root, "rev-parse", "-q", "--verify", f"{picked}^{{commit}}")
    if full is None:
        return None
    picked_s = full.decode().strip()
    found = (revs[0].replace(picked, picked_s), revs[1], revs[2].replace(picked, picked_s))
    return holds(root, found, path, base, theirs)


def holds(root: str, revs: Revisions | None, path: str | None, base: bytes | None, theirs: bytes | None) -> Revisions | None:
    """``revs`` if its base and theirs hold at ``path`` the very versions git
    gave the driver (or nothing is given to compare), else None."""
    if revs is None or not path or base is None or theirs is None:
        return revs
    same = git_or_none(root, "cat-file", "blob", f"{revs[0]}:{path}") == base and git_or_none(root, "cat-file", "blob", f"{revs[2]}:{path}") == theirs
    return revs if same else None


def merge_revisions(root: str, path: str | None = None, base: bytes | None = None, theirs: bytes | None = None) -> Revisions | None:
    """(base, ours, theirs) of what git is merging: `git merge` names its
    other head in GITHEAD_<hash> (MERGE_HEAD once it stopped); a rebase
    step picks the last commit of its done list onto HEAD, from that
    commit's parent; `rebase --apply` names it in rebase-apply/original-commit,
    a range cherry-pick or revert on the first line of its sequencer todo (a
    stopped one: CHERRY_PICK_HEAD, REVERT_HEAD).  These last are trusted
    only if that commit (and its parent) hold at ``path`` the ``base`` and
    ``theirs`` git gave the driver (another merge run mid-pick, a stash,
    is not that commit's)."""
    import re

    heads = [k[8:] for k in os.environ if re.fullmatch(r"GITHEAD_[0-9a-f]{40,64}", k)]
    if not heads:  # after git stopped (`mergedrv resolve`): the merge it is in
        merging = git_or_none(root, "rev-parse", "-q", "--verify", "MERGE_HEAD")
        heads = [merging.decode().strip()] if merging else []
    if len(heads) == 1:
        found = git_or_none(root, "merge-base", "HEAD", heads[0])
        return (found.decode().split()[0], "HEAD", heads[0]) if found else None

    def state(name: str) -> bytes | None:
        where = git_or_none(root, "rev-parse", "--git-path", name)
        if where is None:
            return None
        try:
            with open(os.path.join(root, where.decode("utf-8", "surrogateescape").strip()), "rb") as fh:
                return fh.read()
        except OSError:
            return None

    def commit(rev: bytes) -> str | None:
        found = git_or_none(root, "rev-parse", "--verify", "-q", rev.decode("ascii", "replace") + "^{commit}")
        return found.decode().strip() if found else None

    done = [ln.split() for ln in (state("rebase-merge/done") or b"").splitlines() if ln.strip() and not ln.startswith(b"#")]
    if done:
        if len(done[-1]) < 2 or done[-1][0] not in (b"pick", b"p", b"edit", b"e", b"reword", b"r", b"squash", b"s", b"fixup", b"f"):
            return None
        picked_s = commit(done[-1][1])
        return (f"{picked_s}^", "HEAD", picked_s) if picked_s else None
    if state("rebase-apply/rebasing") is not None:  # `rebase --apply`: git am replaying the original commit
        original = (state("rebase-apply/original-commit") or b"").strip()
        picked_s = commit(original) if original else None
        return holds(root, (f"{picked_s}^", "HEAD", picked_s), path, base, theirs) if picked_s else None
    todo = [ln.split() for ln in (state("sequencer/todo") or b"").splitlines() if ln.strip() and not ln.startswith(b"#")]
    if todo and len(todo[0]) >= 2:  # a range cherry-pick or revert: the first line of its todo is the commit being applied
        picked_s = commit(todo[0][1])
        if picked_s and todo[0][0] in (b"pick", b"p"):
            return holds(root, (f"{picked_s}^", "HEAD", picked_s), path, base, theirs)
        if picked_s and todo[0][0] == b"revert":
            return holds(root, (picked_s, "HEAD", f"{picked_s}^"), path, base, theirs)
        return None
    for ref, picking in (("CHERRY_PICK_HEAD", True), ("REVERT_HEAD", False)):  # a cherry-pick or revert that stopped
        found = git_or_none(root, "rev-parse", "-q", "--verify", ref)
        if found:
            x = found.decode().strip()
            return holds(root, (f"{x}^", "HEAD", x) if picking else (x, "HEAD", f"{x}^"), path, base, theirs)
    return None

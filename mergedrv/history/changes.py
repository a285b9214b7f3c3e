"""Changed paths of a commit or the index: libgit2 tree diffs, and git's own
`diff --name-only` only where rename detection could change a verdict.
"""

from __future__ import annotations

from functools import lru_cache

from .. import config as _config
from ..git import config_value, core, git


def tree_changes(old, new) -> dict[str, str]:
    """Path -> status letter (A, D, M, T) between two trees; ``old`` None is the empty tree.

    The paths and letters of ``git diff-tree -r --no-renames --name-status``,
    from libgit2's tree diff (unchanged subtrees are skipped by id): a file
    that becomes a symlink or a submodule is T, a file replaced by a folder is
    the deletion of one and the additions under the other.
    """
    flags = core().GIT_DIFF_INCLUDE_TYPECHANGE
    diff = new.diff_to_tree(flags=flags, swap=True) if old is None else old.diff_to_tree(new, flags=flags)
    return {d.new_file.path: d.status_char() for d in diff.deltas}


@lru_cache(maxsize=1 << 16)
def anchored(pattern: str, path: str) -> bool:
    """A git ``:(glob)`` pathspec match: the pattern names a path from the root."""
    return _config.glob_match("/" + pattern.lstrip("/"), path)


def required(doc: str, paths: set[str]) -> bool:
    if _config.is_glob(doc):
        return any(anchored(doc, p) for p in paths)
    return doc.strip("/") in paths


def _relevant(cfg: _config.Config, path: str) -> bool:
    """Whether ``path`` can change a checkpoint verdict (a `when` or `require` path)."""
    for rule in cfg.checkpoints:
        if any(anchored(w, path) for w in rule.when) or any(required(r, {path}) for r in rule.require):
            return True
    return False


def rename_flag(repo) -> str | None:
    """How `git diff` detects renames here (``diff.renames``): -M, -C, or None when off."""
    value = config_value(repo, "diff.renames")
    if value is None:
        return "-M"  # git's default since 2.9
    value = value.lower()
    if value in ("copies", "copy"):
        return "-C"
    return None if value in ("false", "no", "off", "0") else "-M"


def needs_git(cfg: _config.Config, changes: dict[str, str]) -> bool:
    """Whether git's rename detection could change the checkpoint verdict of ``changes``.

    ``git diff --name-only`` names a renamed file under its new path only, so
    only a deleted path can drop out, and only when something was added.
    """
    if not cfg.checkpoints or "A" not in changes.values():
        return False
    return any(s == "D" and _relevant(cfg, p) for p, s in changes.items())


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def name_only(repo, git_diff: list[str]) -> set[str]:
    """The paths ``git diff --name-only GIT_DIFF`` lists (one subprocess)."""
    return {_decode(p) for p in git(repo.workdir or repo.path, "diff", "--name-only", "-z", *git_diff).split(b"\0") if p}


def name_only_many(repo, commits: list) -> dict[str, set[str]]:
    """Commit id -> the paths ``git diff --name-only PARENT COMMIT`` lists, for many
    non-merge commits in one `git diff-tree --stdin` subprocess."""
    flag = rename_flag(repo)
    if flag is None or not commits:
        return {}
    ids = [str(c.id) for c in commits]
    out: dict[str, set[str]] = {i: set() for i in ids}
    raw = git(repo.workdir or repo.path, "diff-tree", "--stdin", "-r", flag, "--name-only", "-z", input=("\n".join(ids) + "\n").encode())
    current, pending = None, iter(ids)
    expected = next(pending, None)
    for token in raw.split(b"\0"):
        if not token:
            continue
        text = _decode(token)
        if text == expected:
            current, expected = text, next(pending, None)
        elif current is not None:
            out[current].add(text)
    return out


def merge_changes(parent_changes: list[dict[str, str]]) -> set[str]:
    """Paths whose content differs from every parent: what a merge introduced."""
    first, *rest = parent_changes
    return {p for p in first if all(p in other for other in rest)}

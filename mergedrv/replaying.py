"""Whether git is replaying a commit while one is being made (a rebase stop,
cherry-pick, revert, `am`), read from the git folder's files without a git
process: the pre-commit hook asks on every commit."""

from __future__ import annotations

import os


def git_dir(root: str) -> str:
    """The (worktree's) git folder of the work tree at ``root``."""
    found = os.environ.get("GIT_DIR")
    if found:
        return os.path.join(root, found)
    dot = os.path.join(root, ".git")
    if os.path.isdir(dot):
        return dot
    from .git import git_or_none

    out = git_or_none(root, "rev-parse", "--absolute-git-dir")
    return out.decode("utf-8", "surrogateescape").strip() if out else dot


def read(path: str) -> bytes | None:
    """A small file's bytes, None if it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def original(root: str) -> tuple[str, str] | None:
    """What git is replaying while a commit is being made: (how, the original
    commit or the patch file), or None when nothing is."""
    gd = git_dir(root)
    if os.path.isfile(os.path.join(gd, "rebase-merge", "amend")):
        return None  # an `edit` stop: the commit is amended on purpose (the branch update is still judged)
    rebasing = os.path.isdir(os.path.join(gd, "rebase-merge")) or os.path.isdir(os.path.join(gd, "rebase-apply"))
    for name, how in (("CHERRY_PICK_HEAD", "pick"), ("REVERT_HEAD", "revert"), ("REBASE_HEAD", "pick")):
        if name == "REBASE_HEAD" and not rebasing:
            break  # git leaves REBASE_HEAD behind when a rebase that stopped is over: it names nothing now
        data = read(os.path.join(gd, name))
        if data and data.strip():
            if name == "REBASE_HEAD" and os.path.isfile(os.path.join(gd, "rebase-apply", "applying")):
                break  # `am` writes REBASE_HEAD too; its original is the patch
            return how, data.decode().strip()
    patch = os.path.join(gd, "rebase-apply", "patch")
    if os.path.isfile(os.path.join(gd, "rebase-apply", "applying")) and os.path.isfile(patch):
        return "am", patch
    return None

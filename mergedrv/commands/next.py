"""`mergedrv next NAME`: the next free number of a numbered record, above
every key that any local or remote-tracking branch (or the working tree) holds."""

from __future__ import annotations

from collections import Counter

from .. import numbering
from ..errors import Error
from ..git import GitRev, WorkTree, git, git_or_none, toplevel
from ..values import Value
from ..renumbering import load_config, record_rows


class Request(Value):
    """`mergedrv next NAME [--repo DIR]` (built once, in cli.py)."""

    __slots__ = ("name", "repo")

    def __init__(self, name: str, repo: str = ".") -> None:
        self.name = name
        self.repo = repo


def branch_commits(root: str) -> list[str]:
    """The commits of every local branch and remote-tracking branch (refs/remotes/*), and HEAD's."""
    out = git(root, "for-each-ref", "--format=%(objectname)", "refs/heads", "refs/remotes").decode().split()
    head = git_or_none(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}") or b""  # none in a fresh repository
    return list(dict.fromkeys([*out, *head.decode().split()]))


def next_key(keys: set[str]) -> str | None:
    """Above the highest number of the keys' most common prefix, with its widest width."""
    parts = [p for p in map(numbering.split, keys) if p is not None]
    if not parts:
        return None
    prefix = Counter(p[0] for p in parts).most_common(1)[0][0]
    mine = [p for p in parts if p[0] == prefix]
    return numbering.make(prefix, max(p[1] for p in mine) + 1, max(p[2] for p in mine))


def run(req: Request) -> int:
    root = toplevel(req.repo)
    cfg = load_config(root)
    record = cfg.record_named(req.name)
    if record is None:
        names = ", ".join(r.name for r in cfg.records) or "none"
        raise Error(f"{cfg.path}: no record named {req.name!r} (records: {names})")
    if not numbering.is_numbered(record):
        raise Error(f"{cfg.path}:{record.line}: record {record.name}: its keys are not numbered "
                    "(give it a key_pattern ending in digits, or numbered = true)")
    keys: set[str] = set(record_rows(cfg, record, WorkTree(root)))
    for commit in branch_commits(root):
        keys |= set(record_rows(cfg, record, GitRev(root, commit)))
    free = next_key(keys)
    if free is None:
        raise Error(f"record {record.name}: no key ends in a number yet; nothing to count from")
    print(free)
    return 0

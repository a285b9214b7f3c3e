"""Keys a rewrite drops: a commit made while git replays another (rebase, cherry-pick,
revert, `am`) must not lose a key the original did not delete (issue #22 item 3).

`staged_drops` judges the commit being made (the pre-commit hook, where git runs
it); `ref_drops` judges the branch a rebase or `am` is about to update (the
reference-transaction hook, since `git rebase --continue` and `git am
--continue` run no pre-commit hook).  Both read git's files with its plumbing.
"""

from __future__ import annotations

import os
from collections import Counter

from .. import config as cfgmod
from ..findings import Finding
from ..git import GitRev, git_or_none
from ..replaying import git_dir as _git_dir, original, read as _read

CHECK = "merge-keys"
Keys = dict[tuple[str, str, str], tuple[str, int]]  # (record, key, its file under key_scope = "file", "#N" for its N-th table under "table", else "") -> (path, 1-based line)


def keys_of(cfg: cfgmod.Config, snap) -> Keys:
    """Every record's keys in ``snap``, with where each is first defined (a
    record with ``key_scope = "file"``: each file's keys apart; with
    ``key_scope = "table"``: a key in N tables is N keys, ``"#2"`` and on
    for the second and later, so a rewrite dropping it from one table is seen
    and a row moved to another table is not)."""
    from ..checks import Context

    ctx = Context(cfg, snap)
    out: Keys = {}
    for r in cfg.records:
        if r.per_table():
            tables: dict[str, int] = {}  # key -> the tables holding it so far
            for path, doc in ctx.record_docs(r):
                for table in doc.keyed_tables():
                    for key, row in {str(row.key): row for row in reversed(table.rows)}.items():  # (its first row; keyed rows have keys; twice in one table: keys-unique's finding)
                        tables[key] = n = tables.get(key, 0) + 1
                        out[(r.name, key, _nth(n))] = (path, row.line + 1)
            continue
        if not r.per_file():
            out.update({(r.name, k, ""): at for k, at in ctx.keys(r).items()})
            continue
        for path, doc in ctx.record_docs(r):
            for row in doc.rows():
                out.setdefault((r.name, row.key, path), (path, row.line + 1))  # type: ignore[arg-type] # keyed rows have keys
    return out


def _nth(n: int) -> str:
    """The third part of a per-table key's identity: "" for its first table, "#N" for its N-th."""
    return "" if n == 1 else f"#{n}"


def _rev(root: str, rev: str, listed: list[str] | None) -> GitRev | None:
    snap = GitRev(root, rev, listed)
    return snap if snap.exists else None


def _delta(cfg, root: str, rev: str, listed) -> tuple[set, set]:
    """The keys commit ``rev`` added and deleted against its first parent."""
    after = _rev(root, rev, listed)
    before = _rev(root, f"{rev}^", listed)
    a = set(keys_of(cfg, after)) if after is not None else set()
    b = set(keys_of(cfg, before)) if before is not None else set()
    return a - b, b - a


def _patch_delta(cfg: cfgmod.Config, patch: bytes, known: Keys) -> tuple[set, set]:
    """The keys a patch (`am`) deletes: keys of ``known`` (HEAD's) on its removed
    rows of record files that none of its added rows carries (what it adds is
    not read: a patch's rows carry no header)."""
    from ..model.cells import clean_key, split_cells

    names = {rk[1] for rk in known}
    removed: set = set()
    kept: set = set()
    net: Counter = Counter()  # a per-table key: the rows the patch removes less those it adds
    record = None
    where = ""
    for line in patch.split(b"\n"):
        if line.startswith(b"+++ "):
            name = line[4:].decode("utf-8", "replace").strip()
            name = name[2:] if name.startswith("b/") else name
            record = cfg.record_for(name)
            where = name if record is not None and record.per_file() else ""
            continue
        if record is None or line[:1] not in (b"+", b"-") or line.startswith(b"--- ") or not line[1:].lstrip().startswith(b"|"):
            continue
        for cell in split_cells(line[1:]).cells:
            key = clean_key(cell)
            if key in names and (record.name, key, where) in known:
                if record.per_table():
                    net[(record.name, key)] += 1 if line[:1] == b"-" else -1
                else:
                    (removed if line[:1] == b"-" else kept).add((record.name, key, where))
    for (name, key), n in net.items():  # its last n tables' definitions: which table a patch row is in is not read
        held = sum(1 for rk in known if rk[:2] == (name, key))
        removed.update((name, key, _nth(m)) for m in range(max(held - n, 0) + 1, held + 1))
    return set(), removed - kept


def _original_delta(cfg, root: str, how: str, what: str, listed, known: Keys) -> tuple[set, set]:
    """The keys the original added and deleted (a revert: the reverse of its commit's)."""
    if how == "am":
        return _patch_delta(cfg, _read(what) or b"", known)
    added, deleted = _delta(cfg, root, what, listed)
    return (deleted, added) if how == "revert" else (added, deleted)


def _label(how: str, what: str) -> str:
    if how == "am":
        return "the patch being applied (`git am`)"
    return f"{'reverting' if how == 'revert' else 'picking'} {what[:7]}"


def repair(path: str) -> str:
    """How to put a dropped key back while the commit is being made."""
    return (f"put it back: `git checkout -m -- {path} && mergedrv resolve --add {path}` redoes the keyed merge "
            f"(then decide what still conflicts), or `git checkout --ours -- {path}` takes the base's rows and you "
            f"re-add the commit's own; then `git commit` (or `--continue`)")


def staged_drops(cfg: cfgmod.Config, root: str, parent, index, listed: list[str] | None) -> list[Finding]:
    """The pre-commit check while git replays a commit: keys of HEAD (or added by
    the original) that the index lacks and the original did not delete."""
    found = original(root)
    if found is None or parent is None:
        return []
    how, what = found
    before, after = keys_of(cfg, parent), keys_of(cfg, index)
    added, deleted = _original_delta(cfg, root, how, what, listed, before)
    out = []
    for rk in sorted((set(before) | added) - deleted - set(after)):
        key = rk[1]
        path, line = before.get(rk) or _where_added(cfg, root, how, what, rk, listed)
        why = ("is lost" if rk in before else "is not added")
        out.append(Finding(path, line, CHECK,
                           f"{key} {why}: the commit being made ({_label(how, what)}) drops it, and the original did not "
                           f"delete it; {repair(path)}"))
    return out


def _where_added(cfg, root, how, what, rk, listed) -> tuple[str, int]:
    snap = _rev(root, what, listed) if how != "am" else None
    at = keys_of(cfg, snap).get(rk) if snap is not None else None
    record = cfg.record_named(rk[0])
    return at or (record.path if record else cfgmod.CONFIG_NAME, 1)


ZERO = "0" * 40
ALLOW = "MERGEDRV_ALLOW_DROP"  # set to 1: the reference-transaction check lets the update through


def _updates(text: str) -> list[tuple[str, str, str]]:
    """reference-transaction's input: ``old new ref`` per line."""
    out = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 3:
            out.append((fields[0], fields[1], fields[2]))
    return out


def _config_of(root: str, rev: str) -> cfgmod.Config | None:
    snap = _rev(root, rev, [cfgmod.CONFIG_NAME])
    data = snap.read(cfgmod.CONFIG_NAME) if snap is not None else None
    if data is None:
        return None
    try:
        return cfgmod.load_bytes(data)
    except cfgmod.ConfigError:
        return None  # the checks of the commit that broke it said so


def ref_drops(root: str, text: str) -> list[Finding]:
    """The reference-transaction check, `prepared` state: a rebase about to
    update the branch it rewrote, or `am` about to update the current branch,
    with a key lost that the originals did not delete.  Nothing else is read."""
    gd = _git_dir(root)
    merge_dir, apply_dir = os.path.join(gd, "rebase-merge"), os.path.join(gd, "rebase-apply")
    am = os.path.isfile(os.path.join(apply_dir, "applying"))
    state = merge_dir if os.path.isdir(merge_dir) else apply_dir if os.path.isdir(apply_dir) and not am else None
    updates = [u for u in _updates(text) if u[2].startswith("refs/heads/") and u[1] != ZERO]
    if state is not None:
        branch = (_read(os.path.join(state, "head-name")) or b"").decode("utf-8", "replace").strip()
        for old, new, ref in updates:
            if ref == branch:
                return _rebase_drops(root, state, ref, new)
    elif am:
        for old, new, ref in updates:
            if old != ZERO:
                return _am_drops(root, os.path.join(apply_dir, "patch"), ref, old, new)
    return []


def _short(root: str, rev: str) -> str:
    out = git_or_none(root, "rev-parse", "--short", rev)
    return out.decode().strip() if out else rev[:7]


def _am_drops(root: str, patch: str, ref: str, old: str, new: str) -> list[Finding]:
    """`git am` adding one commit on top of the branch (not `--abort` resetting it)."""
    parent = git_or_none(root, "rev-parse", "-q", "--verify", f"{new}^")
    cfg = _config_of(root, new) if parent is not None and parent.decode().strip() == old else None
    if cfg is None:
        return []
    listed = _paths(cfg)
    before = keys_of(cfg, _rev(root, old, listed))
    after = keys_of(cfg, _rev(root, new, listed))
    _, deleted = _patch_delta(cfg, _read(patch) or b"", before)
    out = []
    commit = _short(root, new)
    for rk in sorted(set(before) - deleted - set(after)):
        path, line = before[rk]
        out.append(Finding(path, line, CHECK,
                           f"{rk[1]} is lost: {commit} (`git am`) drops it, and the patch did not delete it; {ref} is not "
                           f"updated. Put the row back (it is at {_short(root, old)}:{path} line {line}), `git add {path}`, "
                           f"then `git am --continue`; or `git am --abort` ({ALLOW}=1 lets a deletion made on purpose through)"))
    return out


def _paths(cfg: cfgmod.Config) -> list[str] | None:
    paths = [cfgmod.CONFIG_NAME] + [r.path for r in cfg.records]
    return None if any(cfgmod.is_glob(p) for p in paths) else [p.lstrip("/") for p in paths]


def _rebase_drops(root: str, state: str, ref: str, new: str) -> list[Finding]:
    """The rebased branch against the originals: every key the new base has or an
    original added, and no original deleted, must be at the new tip."""
    cfg = _config_of(root, new)
    onto = (_read(os.path.join(state, "onto")) or b"").decode().strip()
    orig = (_read(os.path.join(state, "orig-head")) or b"").decode().strip()
    if cfg is None or not onto or new == orig:
        return []  # `git rebase --abort` puts the branch back where it was
    if git_or_none(root, "merge-base", "--is-ancestor", onto, new) is None:
        return []  # not the rebased commits (they sit on the new base)
    listed = _paths(cfg)
    pairs = []
    for name in ("rewritten-list", "rewritten"):
        for line in (_read(os.path.join(state, name)) or b"").decode().splitlines():
            fields = line.split()
            if len(fields) >= 2:
                pairs.append((fields[0], fields[1]))
    expected = keys_of(cfg, _rev(root, onto, listed))
    by_old: dict[str, str] = {}
    for old, rewritten in pairs:
        if old in by_old:
            continue
        by_old[old] = rewritten
        added, deleted = _delta(cfg, root, old, listed)
        snap = _rev(root, old, listed)
        at = keys_of(cfg, snap) if added and snap is not None else {}
        expected = {k: v for k, v in expected.items() if k not in deleted}
        expected.update({k: at.get(k, (_record_path(cfg, k[0]), 1)) for k in added})
    lost = sorted(set(expected) - set(keys_of(cfg, _rev(root, new, listed))))
    if not lost:
        return []
    originals = {v: k for k, v in by_old.items()}
    return [_lost_at(cfg, root, ref, onto, new, rk, expected[rk], originals, listed) for rk in lost]


def _lost_at(cfg, root: str, ref: str, onto: str, new: str, rk, where: tuple[str, int], originals: dict,
             listed) -> Finding:
    """The finding for a key the rebased branch lost, naming the commit that dropped it."""
    chain = (git_or_none(root, "rev-list", "--reverse", "--first-parent", f"{onto}..{new}") or b"").decode().split()
    culprit, had = (chain[-1] if chain else new), rk in keys_of(cfg, _rev(root, onto, listed))
    for c in chain:
        now = rk in keys_of(cfg, _rev(root, c, listed))
        if had and not now:
            culprit = c
            break
        had = had or now
    label = _short(root, culprit)
    orig = originals.get(culprit)
    origin = f" (rebased from {_short(root, orig)})" if orig else ""
    path, line = where
    source = onto if rk in keys_of(cfg, _rev(root, onto, listed)) else (orig or onto)
    head = _short(root, new)
    commit = "`git commit -a --amend`" if culprit == new else "`git commit -a` (a commit that restores it)"
    return Finding(path, line, CHECK,
                   f"{rk[1]} is lost: {label}{origin} drops it, and no original commit deleted it; {ref} is not updated "
                   f"(the rebase stays in progress, the rebased commits are kept: HEAD is {head}). Put the row back "
                   f"(it is at {_short(root, source)}:{path} line {line}), then {commit} "
                   f"and `git rebase --continue`; or `git rebase --abort` ({ALLOW}=1 lets a deletion made on purpose through)")


def _record_path(cfg, name: str) -> str:
    """The path of the record ``name`` (a key's record is always configured)."""
    record = cfg.record_named(name)
    assert record is not None  # (keys come from the configuration's own records)
    return record.path

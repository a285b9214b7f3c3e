"""The `merge-keys` check: keys a merge commit lost, defined twice, or took from the wrong side.
"""

from __future__ import annotations

from collections.abc import Iterable

from .. import config as _config
from ..findings import Finding
from ..git import git_or_none
from ..values import Value
from ..names import normalize_name
from .changes import tree_changes
from .entries import Entry, Keys, Reader, duplicates, line_numbers, same_entry


MERGE_KEYS = "merge-keys"


class MergeInput(Value):
    """A merge to verify: its result tree, its parents, and how to name them."""

    __slots__ = ("result", "parents", "label")

    def __init__(self, result, parents: list, label: str | None) -> None:
        self.result = result  # a tree
        self.parents = parents  # commits, first parent first
        self.label = label  # short hash of the merge commit (None for the index)


class Bases:
    """Merge bases of parent pairs: pygit2's one base first, all of git's on demand."""

    def __init__(self, repo) -> None:
        self.repo = repo
        self._one: dict[tuple, list] = {}
        self._all: dict[tuple, list] = {}

    def one(self, a, b) -> list:
        k = (a.id, b.id)
        if k not in self._one:
            oid = self.repo.merge_base(a.id, b.id)
            self._one[k] = [self.repo.get(oid)] if oid is not None else []
        return self._one[k]

    def all(self, a, b) -> list:
        """Every best common ancestor (several after a criss-cross), via `git merge-base --all`."""
        k = (a.id, b.id)
        if k not in self._all:
            out = git_or_none(self.repo.path, "--git-dir", self.repo.path, "merge-base", "--all", str(a.id), str(b.id))
            self._all[k] = [self.repo.get(o.decode()) for o in (out or b"").split()] or self.one(a, b)
        return self._all[k]


def record_paths(cfg: _config.Config, changes: Iterable[str]) -> set[str]:
    return {p for p in changes if cfg.record_for(p) is not None}


def merge_keys(reader: Reader, bases: Bases, merge: MergeInput) -> list[Finding]:
    """Keys a merge lost, defined twice, or took from the wrong side.

    A key any parent has must be in the merge unless another parent deleted
    it since their merge base; a key defined twice in a file of the merge
    must be defined twice in a parent; a cell changed by one side only must
    have that side's value.  Octopus merges: each parent is paired with the
    first for the cell rule, and the other rules hold across all parents.
    """
    cfg = reader.cfg
    parents = merge.parents
    paths: set[str] = set()
    for parent in parents:
        paths |= record_paths(cfg, tree_changes(parent.tree, merge.result))
    if not paths:
        return []
    result = reader.keys(merge.result, paths)
    sides = [reader.keys(p.tree, paths) for p in parents]
    out = _unreadable(reader, merge, paths)
    per_table = {r.name for r in cfg.records if r.per_table()}
    out += _lost(reader, bases, merge, paths, result, sides, per_table)
    out += _doubled(merge, result, sides, per_table)
    out += _wrong_side(reader, bases, merge, paths, result, sides)
    return out


def _unreadable(reader: Reader, merge: MergeInput, paths: set[str]) -> list[Finding]:
    out = []
    for path in sorted(paths):
        rows = reader.rows(merge.result, path)
        if isinstance(rows, str):
            out.append(Finding(path, 0, MERGE_KEYS, f"cannot check the merged keys: {rows}", merge.label))
    return out


def _count(keys: Keys, key, counted: bool) -> int:
    """How many times ``keys`` holds ``key``: its tables' (``counted``: a record
    with ``key_scope = "table"``, where a key may stand in several), else 0 or 1."""
    return len(keys.get(key, ())) if counted else int(key in keys)


def _deleted_by(reader: Reader, bases: Bases, paths, keeper, other, key, other_keys: Keys, every: bool,
                n: int = 1, counted: bool = False) -> bool:
    """Whether ``other`` (which holds ``key`` fewer than ``n`` times) deleted
    its ``n``-th definition since its merge base with ``keeper``."""
    if _count(other_keys, key, counted) >= n:
        return False
    found = bases.all(keeper, other) if every else bases.one(keeper, other)
    return any(_count(reader.keys(b.tree, paths), key, counted) >= n for b in found)


def _lost(reader, bases, merge: MergeInput, paths, result: Keys, sides: list[Keys], per_table: set[str]) -> list[Finding]:
    """Keys a parent has that the merge lacks and no other parent deleted.  Under
    ``key_scope = "table"`` (``per_table``: those records' names) a key stands
    in as many tables as it does: a parent's definition in a second table is
    lost when the merge holds the key in fewer, unless another parent deleted
    one since their base (moving a row to another table keeps the count)."""
    out = []
    reported: set[tuple[str, str]] = set()
    parents = merge.parents
    for i, (parent, keys) in enumerate(zip(parents, sides)):
        for key, entries in keys.items():
            counted = key[0] in per_table
            need, have = _count(keys, key, counted), _count(result, key, counted)
            if have >= need or key in reported:
                continue
            others = [j for j in range(len(parents)) if j != i]
            if all(any(_deleted_by(reader, bases, paths, parent, parents[j], key, sides[j], every, n, counted)
                       for every in (False, True) for j in others) for n in range(have + 1, need + 1)):
                continue
            reported.add(key)
            e = entries[0]
            keeps = [parents[j].short_id for j in others if _count(sides[j], key, counted) >= need]
            why = f"{' and '.join([parent.short_id, *keeps])} have it" if keeps else f"{parent.short_id} has it"
            if have:  # (a per-table key the merge holds in fewer tables)
                message = (f"{_shown(key[1])} is lost from a table: {why} in {need} tables (lines {line_numbers(entries)} of "
                           f"{parent.short_id}), the merge in {have}, and no other side deleted it")
            else:
                message = f"{_shown(key[1])} is lost: {why} (line {e.line} of {parent.short_id}) and no other side deleted it"
            out.append(Finding(e.path, e.line, MERGE_KEYS, message, merge.label))
    return out


def _doubled(merge: MergeInput, result: Keys, sides: list[Keys], per_table: set[str]) -> list[Finding]:
    out = []
    for key, entries in sorted(result.items()):
        if key[0] in per_table:
            continue  # a key in two tables is allowed; keys-unique reports one defined twice in a table
        for path, dups in sorted(duplicates(entries).items()):
            if any(path in duplicates(side.get(key, [])) for side in sides):
                continue  # defined twice before the merge: keys-unique's business
            out.append(
                Finding(path, dups[1].line, MERGE_KEYS,
                        f"{_shown(key[1])} is defined twice (lines {line_numbers(dups)}); no parent defines it twice", merge.label)
            )
    return out


def single_entry(keys: Keys, key) -> Entry | None:
    entries = keys.get(key, [])
    return entries[0] if len(entries) == 1 else None


def _wrong_side(reader, bases, merge: MergeInput, paths, result: Keys, sides: list[Keys]) -> list[Finding]:
    out = []
    first, parents = sides[0], merge.parents
    for j in range(1, len(parents)):
        base_trees = [b.tree for b in bases.one(parents[0], parents[j])]
        base_keys = [reader.keys(t, paths) for t in base_trees]
        others = [sides[k] for k in range(1, len(parents)) if k != j]
        for key in sorted(set(first) | set(sides[j])):
            got = single_entry(result, key)
            a, b = single_entry(first, key), single_entry(sides[j], key)
            if got is None or (key in first and a is None) or (key in sides[j] and b is None):
                continue
            olds = [single_entry(bk, key) for bk in base_keys]
            if any(key in bk and o is None for bk, o in zip(base_keys, olds)):
                continue
            present = [o for o in olds if o is not None]
            if len(present) not in (0, len(olds)) or len({o.cells for o in present}) > 1:
                continue  # the bases disagree (criss-cross): no single base to judge by
            old = present[0] if present else None
            if any(not same_entry(single_entry(o, key), old) for o in others):
                continue  # a third parent of an octopus touched it too
            seq = _sequence(reader.cfg, got.path)
            if seq:  # a sequence column is renumbered by the merge: never a side's change to keep
                old, a, b, got = (_without(e, seq) for e in (old, a, b, got))
            finding = _side_check(key, old, a, parents[0], b, parents[j], got, merge.label)
            if finding:
                out.append(finding)
    return out


def _sequence(cfg, path: str) -> str | None:
    """The normalized name of the sequence column of ``path``'s record (None: none)."""
    record = cfg.record_for(path)
    return None if record is None or not getattr(record, "sequence", None) else normalize_name(record.sequence)


def _without(entry, name: str):
    """``entry`` without its cell in column ``name`` (None stays None)."""
    return None if entry is None else type(entry)(entry.path, entry.line, tuple(c for c in entry.cells if c[0] != name))


def _side_check(key, old: Entry | None, a: Entry | None, pa, b: Entry | None, pb, got: Entry, label) -> Finding | None:
    """The first cell that one side alone changed (or added) and the merge did not take."""
    if old is None:
        if (a is None) == (b is None):
            return None  # added on both sides: the driver's double-definition rule
        side, commit = (a, pa) if a is not None else (b, pb)
        if side is not None and side.cells != got.cells:  # (one of the two is not None)
            column = next((n for n, v in side.cells if got.cell(n) != v), "")
            return Finding(got.path, got.line, MERGE_KEYS,
                           f"{_shown(key[1])}: added by {commit.short_id} only, but the merge changed it"
                           f"{column_named(column)} (line {side.line} of {commit.short_id})", label)
        return None
    if a is None or b is None:
        return None  # modify/delete: the merge kept the row, which is its decision
    for name, before in old.cells:
        va, vb, vm = a.cell(name), b.cell(name), got.cell(name)
        if va is None or vb is None or vm is None:
            continue
        for mine, theirs, commit, row in ((va, vb, pb, b), (vb, va, pa, a)):
            if mine == before and theirs != before and vm != theirs:
                return Finding(got.path, got.line, MERGE_KEYS,
                               f"{_shown(key[1])}: only {commit.short_id} changed{column_named(name)}, but the merge does not have "
                               f"its value (line {row.line} of {commit.short_id})", label)
    return None


def _shown(key: str) -> str:
    """`model.shown`, imported when a finding is written: a range check that
    runs only `checkpoint` loads no record model (tree-sitter)."""
    from ..model.cells import shown

    return shown(key)


def column_named(name: str) -> str:
    if not name:
        return " its continuation lines"
    return f" column {name!r}"

"""History checks: `checkpoint` and `merge-keys` on commits, the range walk for
CI (`check --base --head`), and the pre-merge-commit and post-rewrite checks.

Trees and blobs are read with pygit2; git itself runs only where its answer
cannot be reproduced in-process (rename detection, all merge bases), and only
for the rare commit whose verdict depends on it.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections import OrderedDict
from functools import lru_cache
from collections.abc import Iterable

from . import config as _config
from .findings import Finding, render
from .gitio import GitError, config_value, core, git, git_or_none, index_tree, resolve_commit
from .values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (~4 ms of a CI step's start)
if TYPE_CHECKING:  # the record model (tree-sitter) is imported only when a record is read
    from . import model

CHECKPOINT = "checkpoint"
MERGE_KEYS = "merge-keys"
PROGRESS_MIN = 300  # ranges longer than this get a progress bar on a terminal
_NAMES_SHOWN = 10  # triggering paths named in one checkpoint message


# --- changed paths ------------------------------------------------------------


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
def _anchored(pattern: str, path: str) -> bool:
    """A git ``:(glob)`` pathspec match: the pattern names a path from the root."""
    return _config.glob_match("/" + pattern.lstrip("/"), path)


def _required(doc: str, paths: set[str]) -> bool:
    if _config.is_glob(doc):
        return any(_anchored(doc, p) for p in paths)
    return doc.strip("/") in paths


def _relevant(cfg: _config.Config, path: str) -> bool:
    """Whether ``path`` can change a checkpoint verdict (a `when` or `require` path)."""
    for rule in cfg.checkpoints:
        if any(_anchored(w, path) for w in rule.when) or any(_required(r, {path}) for r in rule.require):
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


# --- checkpoint ---------------------------------------------------------------


def checkpoint(cfg: _config.Config, paths: set[str], commit: str | None = None) -> list[Finding]:
    """One finding per `[[checkpoint]]` that ``paths`` trigger without every required document."""
    out = []
    for rule in cfg.checkpoints:
        triggered = sorted(p for p in paths if any(_anchored(w, p) for w in rule.when))
        if not triggered:
            continue
        missing = [r for r in rule.require if not _required(r, paths)]
        if not missing:
            continue
        shown = ", ".join(triggered[:_NAMES_SHOWN])
        if len(triggered) > _NAMES_SHOWN:
            shown += f" and {len(triggered) - _NAMES_SHOWN} more"
        out.append(
            Finding(
                cfg.path,
                rule.line,
                CHECKPOINT,
                f"changes {shown} but not {', '.join(missing)}; "
                "a change to a `when` path must update every `require` document in the same commit",
                commit,
            )
        )
    return out


# --- keyed rows of a version --------------------------------------------------


class Entry(Value):
    """One keyed row: where it is and its content, cell by cell (padding stripped)."""

    __slots__ = ("path", "line", "cells")

    def __init__(self, path: str, line: int, cells: tuple[tuple[str, bytes], ...]) -> None:
        self.path = path
        self.line = line  # 1-based
        self.cells = cells

    def __hash__(self) -> int:
        return hash(self._fields())

    def cell(self, column: str) -> bytes | None:
        for name, value in self.cells:
            if name == column:
                return value
        return None


Keys = dict[tuple[str, str], list[Entry]]  # (record name, key) -> its rows


def _entry(path: str, table: model.Table, row: model.Row) -> Entry:
    names: list[str] = []
    for i, name in enumerate(table.columns):
        names.append(name if name not in names else f"{name}#{i}")
    cells = [c.strip() for c in row.cells().cells]
    pairs = [(names[i] if i < len(names) else f"#{i}", value) for i, value in enumerate(cells)]
    if len(row.lines) > 1:
        pairs.append(("", b"\n".join(line.strip() for line in row.lines[1:])))
    return Entry(path, row.line + 1, tuple(pairs))


class Lru(OrderedDict):
    """A dict that keeps only its ``size`` most recently used entries."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def __getitem__(self, key):
        value = super().__getitem__(key)
        self.move_to_end(key)
        return value

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        if len(self) > self.size:
            self.popitem(last=False)


class Parsed:
    """Parsed documents by blob id, shared by the commits of a range.

    A range reads each version of a record as one commit's file and again as
    the next commit's parent; a 250 KB record takes ~20 ms to parse.  Only the
    most recent versions are kept, so memory stays flat over long ranges.
    """

    def __init__(self, repo, size: int = 48) -> None:
        self.repo = repo
        self._docs: Lru = Lru(size)
        self._data: Lru = Lru(size)

    def data(self, oid) -> bytes:
        """A blob's bytes (read once: a delta-compressed blob costs milliseconds to rebuild)."""
        if oid not in self._data:
            self._data[oid] = self.repo.get(oid).data
        return self._data[oid]

    def get(self, oid, key: str | None, log: bool = False, key_pattern: str | None = None) -> model.Document:
        """The parsed blob; raises model.Unmodelable as model.parse does."""
        from . import model

        k = (oid, key, log, key_pattern)
        if k not in self._docs:
            try:
                self._docs[k] = model.parse(self.data(oid), key, log, key_pattern)
            except model.Unmodelable as exc:
                self._docs[k] = exc
        doc = self._docs[k]
        if isinstance(doc, model.Unmodelable):
            raise doc
        return doc


def parsed_tree(repo, commit, parsed: Parsed):
    """A commit's files as a snapshot whose documents come from ``parsed``."""
    from .gitio import Tree

    class ParsedTree(Tree):
        def read(self, path: str) -> bytes | None:
            try:
                entry = self.tree[path]
            except KeyError:
                return None
            return parsed.data(entry.id) if entry.type_str == "blob" else None

        def parse(self, path: str, key: str | None, log: bool = False, key_pattern: str | None = None) -> model.Document:
            return parsed.get(self.tree[path].id, key, log, key_pattern)

    return ParsedTree(repo, commit.tree, commit.short_id)


class Reader:
    """Keyed rows of record files at given trees, parsed once per blob."""

    def __init__(self, repo, cfg: _config.Config, parsed: Parsed | None = None) -> None:
        self.repo = repo
        self.cfg = cfg
        self.parsed = parsed or Parsed(repo)
        self._parsed: Lru = Lru(256)
        self._keys: Lru = Lru(256)

    def rows(self, tree, path: str) -> list[tuple[model.Table, model.Row]] | str | None:
        """The keyed rows of ``path`` in ``tree``; None if absent, a reason if unreadable."""
        from . import model

        record = self.cfg.record_for(path)
        if record is None or tree is None:
            return None
        try:
            oid = tree[path].id
        except KeyError:
            return None
        cache_key = (oid, record.key, record.key_pattern)
        if cache_key not in self._parsed:
            if tree[path].type_str != "blob":
                return None
            try:
                doc = self.parsed.get(oid, record.key, key_pattern=record.key_pattern)
                self._parsed[cache_key] = [(t, r) for t in doc.keyed_tables() for r in t.rows if r.key]
            except model.Unmodelable as exc:
                self._parsed[cache_key] = str(exc) or "cannot be read as a record"
        return self._parsed[cache_key]

    def keys(self, tree, paths: Iterable[str]) -> Keys:
        """(record, key) -> rows, over the record files among ``paths`` in ``tree``."""
        wanted = tuple(sorted(paths))
        memo = (tree.id if tree is not None else None, wanted)
        if memo not in self._keys:
            self._keys[memo] = self._collect(tree, wanted)
        return self._keys[memo]

    def _collect(self, tree, paths: tuple[str, ...]) -> Keys:
        out: Keys = {}
        for path in paths:
            rows = self.rows(tree, path)
            if not isinstance(rows, list):
                continue
            name = self.cfg.record_for(path).name
            for table, row in rows:
                out.setdefault((name, row.key), []).append(_entry(path, table, row))
        return out


def _duplicates(entries: list[Entry]) -> dict[str, list[Entry]]:
    """Path -> the entries of one key defined more than once in that file."""
    by_path: dict[str, list[Entry]] = {}
    for e in entries:
        by_path.setdefault(e.path, []).append(e)
    return {p: es for p, es in by_path.items() if len(es) > 1}


def _lines(entries: list[Entry]) -> str:
    return " and ".join(str(e.line) for e in entries)


# --- merge-keys ---------------------------------------------------------------


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


def _record_paths(cfg: _config.Config, changes: Iterable[str]) -> set[str]:
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
        paths |= _record_paths(cfg, tree_changes(parent.tree, merge.result))
    if not paths:
        return []
    result = reader.keys(merge.result, paths)
    sides = [reader.keys(p.tree, paths) for p in parents]
    out = _unreadable(reader, merge, paths)
    out += _lost(reader, bases, merge, paths, result, sides)
    out += _doubled(merge, result, sides)
    out += _wrong_side(reader, bases, merge, paths, result, sides)
    return out


def _unreadable(reader: Reader, merge: MergeInput, paths: set[str]) -> list[Finding]:
    out = []
    for path in sorted(paths):
        rows = reader.rows(merge.result, path)
        if isinstance(rows, str):
            out.append(Finding(path, 0, MERGE_KEYS, f"cannot check the merged keys: {rows}", merge.label))
    return out


def _deleted_by(reader: Reader, bases: Bases, paths, keeper, other, key, other_keys: Keys, every: bool) -> bool:
    """Whether ``other`` (which lacks ``key``) deleted it since its merge base with ``keeper``."""
    if key in other_keys:
        return False
    found = bases.all(keeper, other) if every else bases.one(keeper, other)
    return any(key in reader.keys(b.tree, paths) for b in found)


def _lost(reader, bases, merge: MergeInput, paths, result: Keys, sides: list[Keys]) -> list[Finding]:
    out = []
    reported: set[tuple[str, str]] = set()
    parents = merge.parents
    for i, (parent, keys) in enumerate(zip(parents, sides)):
        for key, entries in keys.items():
            if key in result or key in reported:
                continue
            others = [j for j in range(len(parents)) if j != i]
            if any(_deleted_by(reader, bases, paths, parent, parents[j], key, sides[j], False) for j in others):
                continue
            if any(_deleted_by(reader, bases, paths, parent, parents[j], key, sides[j], True) for j in others):
                continue
            reported.add(key)
            e = entries[0]
            keeps = [parents[j].short_id for j in others if key in sides[j]]
            why = f"{' and '.join([parent.short_id, *keeps])} have it" if keeps else f"{parent.short_id} has it"
            out.append(
                Finding(
                    e.path,
                    e.line,
                    MERGE_KEYS,
                    f"{key[1]} is lost: {why} (line {e.line} of {parent.short_id}) and no other side deleted it",
                    merge.label,
                )
            )
    return out


def _doubled(merge: MergeInput, result: Keys, sides: list[Keys]) -> list[Finding]:
    out = []
    for key, entries in sorted(result.items()):
        for path, dups in sorted(_duplicates(entries).items()):
            if any(path in _duplicates(side.get(key, [])) for side in sides):
                continue  # defined twice before the merge: keys-unique's business
            out.append(
                Finding(path, dups[1].line, MERGE_KEYS,
                        f"{key[1]} is defined twice (lines {_lines(dups)}); no parent defines it twice", merge.label)
            )
    return out


def _single(keys: Keys, key) -> Entry | None:
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
            got = _single(result, key)
            a, b = _single(first, key), _single(sides[j], key)
            if got is None or (key in first and a is None) or (key in sides[j] and b is None):
                continue
            olds = [_single(bk, key) for bk in base_keys]
            if any(key in bk and o is None for bk, o in zip(base_keys, olds)):
                continue
            present = [o for o in olds if o is not None]
            if len(present) not in (0, len(olds)) or len({o.cells for o in present}) > 1:
                continue  # the bases disagree (criss-cross): no single base to judge by
            old = present[0] if present else None
            if any(not _same(_single(o, key), old) for o in others):
                continue  # a third parent of an octopus touched it too
            finding = _side_check(key, old, a, parents[0], b, parents[j], got, merge.label)
            if finding:
                out.append(finding)
    return out


def _side_check(key, old: Entry | None, a: Entry | None, pa, b: Entry | None, pb, got: Entry, label) -> Finding | None:
    """The first cell that one side alone changed (or added) and the merge did not take."""
    if old is None:
        if (a is None) == (b is None):
            return None  # added on both sides: the driver's double-definition rule
        side, commit = (a, pa) if a is not None else (b, pb)
        if side.cells != got.cells:
            column = next((n for n, v in side.cells if got.cell(n) != v), "")
            return Finding(got.path, got.line, MERGE_KEYS,
                           f"{key[1]}: added by {commit.short_id} only, but the merge changed it"
                           f"{_column(column)} (line {side.line} of {commit.short_id})", label)
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
                               f"{key[1]}: only {commit.short_id} changed{_column(name)}, but the merge does not have "
                               f"its value (line {row.line} of {commit.short_id})", label)
    return None


def _column(name: str) -> str:
    if not name:
        return " its continuation lines"
    return f" column {name!r}"


# --- rewritten commits (post-rewrite) -----------------------------------------


Effect = dict[tuple[str, str], tuple[Entry | None, Entry | None]]  # key -> (before, after)


def _changed_records(reader: Reader, commit) -> set[str]:
    parent = commit.parents[0].tree if commit.parents else None
    return _record_paths(reader.cfg, tree_changes(parent, commit.tree))


def _same(a: Entry | None, b: Entry | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and a.cells == b.cells)


def _effect(reader: Reader, commit, paths: set[str]) -> tuple[Effect, set]:
    """The keys ``commit`` added, changed or deleted, and the keys it leaves defined twice."""
    parent = commit.parents[0].tree if commit.parents else None
    before, after = reader.keys(parent, paths), reader.keys(commit.tree, paths)
    effect: Effect = {}
    doubled = {key for key, entries in after.items() if _duplicates(entries)}
    for key in set(before) | set(after):
        if len(before.get(key, [])) > 1 or len(after.get(key, [])) > 1:
            continue
        b, a = _single(before, key), _single(after, key)
        if not _same(b, a):
            effect[key] = (b, a)
    return effect, doubled


def _compose(effects: list[Effect]) -> Effect:
    """Several commits' effects as one (a squash), keys back at their start dropped."""
    out: Effect = {}
    for effect in effects:
        for key, (before, after) in effect.items():
            out[key] = (out[key][0] if key in out else before, after)
    return {k: v for k, v in out.items() if not _same(*v)}


def rewritten(reader: Reader, pairs: list[tuple[str, str]]) -> list[Finding]:
    """The rewritten commits add, change and delete the same keys as the originals.

    ``pairs`` are git's post-rewrite ``old new`` lines; several olds that map
    to one new commit (a squash) are compared as one combined change.  A key
    the original added or changed must be in the rewritten commit with every
    cell the original set; a key it deleted must be gone; a key it did not
    touch must not be touched; no key may be defined twice anew.
    """
    repo = reader.repo
    groups: dict[str, list[str]] = {}
    for old, new in pairs:
        groups.setdefault(new, []).append(old)
    out: list[Finding] = []
    for new, olds in groups.items():
        new_commit, old_commits = _commit(repo, new), [_commit(repo, o) for o in olds]
        paths = _changed_records(reader, new_commit)
        for c in old_commits:
            paths |= _changed_records(reader, c)
        effects = [_effect(reader, c, paths) for c in old_commits]
        original = _compose([e for e, _ in effects])
        was_doubled = set().union(*(d for _, d in effects))
        parent = new_commit.parents[0].tree if new_commit.parents else None
        before, after = reader.keys(parent, paths), reader.keys(new_commit.tree, paths)
        label = ",".join(c.short_id for c in old_commits)
        for key in sorted(set(original) | set(before) | set(after)):
            finding = _replayed(key, original.get(key), before.get(key, []), after.get(key, []),
                                key in was_doubled, label)
            if finding:
                out.append(finding.replace(commit=new_commit.short_id))
    return out


def _commit(repo, rev: str):
    try:
        commit = repo.get(rev)
    except ValueError:
        commit = None
    if commit is None or commit.type_str != "commit":
        raise GitError(f"post-rewrite: {rev!r} is not a commit in this repository")
    return commit


def _replayed(key, original, before: list[Entry], after: list[Entry], was_doubled: bool, label: str) -> Finding | None:
    """How the rewritten commit's change of ``key`` departs from the original's, if it does."""
    name = key[1]
    if len(after) > 1:
        if was_doubled or _duplicates(before):
            return None
        dups = next(iter(_duplicates(after).values()), after)
        return Finding(dups[-1].path, dups[-1].line, MERGE_KEYS,
                       f"{name} is defined twice after the rewrite (lines {_lines(dups)}); the original ({label}) "
                       "defines it once", None)
    if len(before) > 1:
        return None
    nb, na = (before[0] if before else None), (after[0] if after else None)
    if original is None:
        if _same(nb, na):
            return None
        kind = "adds" if nb is None else "deletes" if na is None else "changes"
        where = na or nb
        return Finding(where.path, where.line, MERGE_KEYS,
                       f"{name}: the rewritten commit {kind} it; the original ({label}) did not", None)
    o_before, o_after = original
    if o_after is None:
        if na is None:
            return None
        return Finding(na.path, na.line, MERGE_KEYS,
                       f"{name}: the original ({label}) deletes it; the rewritten commit keeps it", None)
    if na is None:
        return Finding(o_after.path, o_after.line, MERGE_KEYS,
                       f"{name} is lost: the original ({label}) has it at line {o_after.line}; "
                       "the rewritten commit does not", None)
    if o_before is None:
        if nb is None and na.cells != o_after.cells:
            return Finding(na.path, na.line, MERGE_KEYS,
                           f"{name}: the rewritten commit adds it with other content than the original "
                           f"({label}, line {o_after.line})", None)
        return None
    for column, value in o_after.cells:
        if o_before.cell(column) != value and na.cell(column) != value:
            return Finding(na.path, na.line, MERGE_KEYS,
                           f"{name}: the original ({label}) set{_column(column)}; the rewritten commit does not "
                           "have that value", None)
    return None


# --- commits of a range -------------------------------------------------------


EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_FROM_ROOT = {"0" * 40, EMPTY_TREE}  # GitHub's `before` for a new branch; git's empty tree


def range_commits(repo, base: str, head: str) -> list:
    """Every commit in ``base..head`` (all parents), oldest first; parents before children.

    ``base`` may be the null hash or the empty tree: every commit from the root.
    """
    git2 = core()

    head_c = resolve_commit(repo, head, "--head")
    walker = repo.walk(head_c.id, git2.GIT_SORT_TOPOLOGICAL | git2.GIT_SORT_REVERSE)
    if base in _FROM_ROOT:
        return list(walker)
    base_c = resolve_commit(repo, base, "--base")
    if base_c.id != head_c.id and not repo.descendant_of(head_c.id, base_c.id):
        raise GitError(
            f"--base {base} ({base_c.short_id}) is not an ancestor of --head {head} ({head_c.short_id}); "
            f"pass their merge base: --base $(git merge-base {base} {head})"
        )
    walker.hide(base_c.id)
    return list(walker)


class Step(Value):
    """One commit of a range and what it changed."""

    __slots__ = ("commit", "paths", "records", "renames")

    def __init__(self, commit, paths: set[str], records: set[str], renames: bool) -> None:
        self.commit = commit
        self.paths = paths  # checkpoint's view: `git diff --name-only` paths, or a merge's own changes
        self.records = records  # record and log files whose blob changed vs the parent(s)
        self.renames = renames  # git's rename detection may drop a deleted path from ``paths``


def step(cfg: _config.Config, commit) -> Step:
    """What ``commit`` changed against its parent(s), from its trees alone."""
    parents = commit.parents
    renames = False
    if not parents:
        changes = tree_changes(None, commit.tree)
        paths = set(changes)
    elif len(parents) == 1:
        changes = tree_changes(parents[0].tree, commit.tree)
        paths = set(changes)
        renames = needs_git(cfg, changes)
    else:
        paths = merge_changes([tree_changes(p.tree, commit.tree) for p in parents])
        changes = dict.fromkeys(paths, "M")
    files = {p for p in changes if cfg.record_for(p) is not None or cfg.log_for(p) is not None}
    return Step(commit, paths, files, renames)


def steps(repo, cfg: _config.Config, commits: list) -> list[Step]:
    """Every commit's Step; rename-sensitive ones get git's view in one subprocess."""
    out = [step(cfg, c) for c in commits]
    pending = [s for s in out if s.renames]
    if pending:
        listed = name_only_many(repo, [s.commit for s in pending])
        for s in pending:
            s.paths = listed.get(str(s.commit.id), s.paths)
    return out


class _Progress:
    """A rich progress bar on a terminal for long ranges; silent otherwise."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar = None
        if enabled and total > PROGRESS_MIN:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn("checking commits"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                console=Console(stderr=True), transient=True)
            self.task = self.bar.add_task("commits", total=total)
            self.bar.start()

    def advance(self) -> None:
        if self.bar is not None:
            self.bar.advance(self.task)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


class Summary(Value):
    """What a range check counted, for its last line."""

    __slots__ = ("commits", "merges", "findings", "failing", "seconds")

    def __init__(self, commits: int = 0) -> None:
        self.commits = commits
        self.merges = 0
        self.findings = 0
        self.failing = 0  # commits with at least one finding
        self.seconds = 0.0

    def line(self) -> str:
        verdict = "ok" if not self.findings else f"{self.findings} finding{'s' if self.findings != 1 else ''} in {self.failing} commit{'s' if self.failing != 1 else ''}"
        return (f"mergedrv check: {self.commits} commit{'s' if self.commits != 1 else ''} "
                f"({self.merges} merge{'s' if self.merges != 1 else ''}) checked in {self.seconds:.2f}s: {verdict}")


def check_range(repo, cfg: _config.Config, base: str, head: str, only: set[str] | None = None,
                progress: bool = False) -> tuple[list[Finding], Summary]:
    """Every check on every commit of ``base..head``, each against its own parent(s)."""
    started = time.perf_counter()
    commits = range_commits(repo, base, head)
    parsed = Parsed(repo)
    reader, bases = Reader(repo, cfg, parsed), Bases(repo)
    snapshot_checks = SnapshotChecks.make(repo, cfg, bases, parsed, only)
    summary = Summary(commits=len(commits))
    findings: list[Finding] = []
    bar = _Progress(len(commits), progress)
    try:
        for s in steps(repo, cfg, commits):
            found = check_step(cfg, s, reader, bases, only, snapshot_checks)
            summary.merges += len(s.commit.parents) > 1
            summary.failing += bool(found)
            findings += found
            bar.advance()
    finally:
        bar.close()
    summary.findings = len(findings)
    summary.seconds = time.perf_counter() - started
    return findings, summary


def check_step(cfg, s: Step, reader: Reader, bases: Bases, only=None,
               snapshot_checks: SnapshotChecks | None = None) -> list[Finding]:
    """The history checks and the per-snapshot checks of one commit."""
    commit = s.commit
    label = commit.short_id
    out: list[Finding] = []
    if _wanted(only, CHECKPOINT):
        out += checkpoint(cfg, s.paths, label)
    if len(commit.parents) > 1 and _wanted(only, MERGE_KEYS):
        out += merge_keys(reader, bases, MergeInput(commit.tree, list(commit.parents), label))
    if snapshot_checks is not None and (s.records or _config.CONFIG_NAME in s.paths):
        out += snapshot_checks(s)
    return out


def _wanted(only: set[str] | None, check: str) -> bool:
    return only is None or check in only


RANGE_CHECKS = ("pin-claims", "ratchet", "keys-unique", "table-shape", "log-append-only")
HISTORY_CHECKS = (CHECKPOINT, MERGE_KEYS)


class SnapshotChecks:
    """The per-snapshot checks (`checks.run_checks`) at each commit of a range.

    The configuration is the range's, but each commit is held to its own pins
    (the ``pin = N`` lines of its own .mergedrv.toml; none before it had one),
    since pins move with the rows.  Only the record and log files the commit
    changed are examined (all of them when it changed the configuration), and
    only what the commit introduced is reported: a finding its parent (each
    parent, for a merge) already had on the same files is not repeated.
    """

    def __init__(self, repo, cfg: _config.Config, bases: Bases, parsed: Parsed, wanted: set[str]) -> None:
        self.repo, self.cfg, self.bases, self.parsed, self.wanted = repo, cfg, bases, parsed, wanted
        self._cfgs: dict = {}
        self._raw: Lru = Lru(64)

    @classmethod
    def make(cls, repo, cfg: _config.Config, bases: Bases, parsed: Parsed, only: set[str] | None) -> SnapshotChecks | None:
        """None when ``only`` names history checks alone (the record checks stay unimported)."""
        wanted = set(RANGE_CHECKS) if only is None else only - set(HISTORY_CHECKS)  # `_only` validated the ids
        return cls(repo, cfg, bases, parsed, wanted) if wanted else None

    def config_at(self, commit) -> tuple[_config.Config, bytes | None]:
        """The range's configuration with ``commit``'s own pins, and its config file's bytes."""
        from .pins import pin_lines

        try:
            oid = commit.tree[_config.CONFIG_NAME].id
        except KeyError:
            oid = None
        if oid not in self._cfgs:
            data = self.repo.get(oid).data if oid is not None else None
            pins = pin_lines(data) if data is not None else {}
            records = [r.replace(pin=pins[r.name][1] if r.name in pins else None) for r in self.cfg.records]
            self._cfgs[oid] = (self.cfg.replace(records=records), data)
        return self._cfgs[oid]

    def raw(self, commit, paths: tuple[str, ...] | None) -> list[Finding]:
        """Everything the checks find at ``commit`` on ``paths``, against its own parent."""
        from .checks import run_checks

        k = (commit.id, paths)
        if k not in self._raw:
            cfg, data = self.config_at(commit)
            parents = list(commit.parents)
            context: dict = {} if data is None else {"config_data": data}
            if len(parents) > 1:
                base = self.bases.one(parents[0], parents[1])
                context["sides"] = [parsed_tree(self.repo, p, self.parsed) for p in parents]
                context["base"] = parsed_tree(self.repo, base[0], self.parsed) if base else None
            parent = parsed_tree(self.repo, parents[0], self.parsed) if parents else None
            self._raw[k] = run_checks(cfg, parsed_tree(self.repo, commit, self.parsed), parent, commit.message,
                                      only=self.wanted, paths=paths, **context)
        return self._raw[k]

    def __call__(self, s: Step) -> list[Finding]:
        commit = s.commit
        paths = None if _config.CONFIG_NAME in s.paths else tuple(sorted(s.records))
        found = self.raw(commit, paths)
        if not found:
            return []
        known = set()
        for parent in commit.parents:
            known |= {_shape(f) for f in self.raw(parent, paths)}
        return [f.replace(commit=commit.short_id) for f in found if _shape(f) not in known]


_LINE_REF = re.compile(r"\bline \d+|(?<=\.md):\d+|\b[0-9a-f]{7,40}\b")


def _shape(f: Finding) -> tuple[str, str, str]:
    """A finding without its line numbers and commit hashes: the same problem, moved."""
    return (f.path, f.check, _LINE_REF.sub("#", f.message))


# --- the staged change and a merge being concluded ----------------------------


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
    from .gitio import merge_sides
    from .checks import run_checks
    from .gitio import Tree

    snap = Tree(repo, tree, "merge")
    parent = Tree(repo, parents[0].tree, parents[0].short_id)
    only = {"keys-unique", "key-format", "column-format", "table-shape", "refs", "ratchet", "rollup", "log-append-only"}
    return run_checks(cfg, snap, parent, None, only, **merge_sides(repo, parents))


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


# --- the command --------------------------------------------------------------


def _range_config(repo, head: str, path: str | None) -> _config.Config:
    if path:
        return _config.load(path)
    commit = resolve_commit(repo, head, "--head")
    try:
        blob = repo.get(commit.tree[_config.CONFIG_NAME].id)
    except KeyError:
        raise GitError(f"{head} has no {_config.CONFIG_NAME}; pass --config PATH") from None
    return _config.load_bytes(blob.data, shown=f"{commit.short_id}:{_config.CONFIG_NAME}")


def _work_config(repo, path: str | None) -> _config.Config:
    if path:
        return _config.load(path)
    found = _config.find(repo.workdir or ".")
    if found is None:
        raise GitError(f"no {_config.CONFIG_NAME} at the top of this working tree; pass --config PATH")
    return _config.load(found)


def _only(text: str | None) -> set[str] | None:
    """``--only a,b``: the check ids to run (None: all)."""
    if not text:
        return None
    ids = {i.strip() for i in text.split(",") if i.strip()}
    if ids <= set(HISTORY_CHECKS):
        return ids  # no record check asked for: the checks (and tree-sitter) stay unimported
    from .checks import CHECK_IDS

    unknown = sorted(ids - set(CHECK_IDS) - set(HISTORY_CHECKS))
    if unknown:
        raise GitError(f"--only: unknown check id {unknown[0]!r}; use one of: {', '.join((*CHECK_IDS, *HISTORY_CHECKS))}")
    return ids


def run(ns) -> int:
    """`mergedrv check` in range, --merge-head and --rewritten modes: print, summarise, exit 0/1/2."""
    from .gitio import repository

    fmt = getattr(ns, "format", None) or "text"
    try:
        only = _only(getattr(ns, "only", None))
        repo = repository(".", index=bool(getattr(ns, "merge_head", False)))
        summary = None
        if getattr(ns, "rewritten", None):
            if ns.rewritten != "rebase":
                return 0  # `git commit --amend` rewrites on purpose
            pairs = parse_rewritten(sys.stdin.read())
            findings = rewritten(Reader(repo, _work_config(repo, ns.config)), pairs) if pairs else []
        elif getattr(ns, "merge_head", False):
            findings = merge_head(_work_config(repo, ns.config), repo)
        else:
            if not ns.base or not ns.head:
                raise GitError("--base and --head go together: mergedrv check --base origin/main --head HEAD")
            cfg = _range_config(repo, ns.head, ns.config)
            findings, summary = check_range(repo, cfg, ns.base, ns.head, only, progress=sys.stderr.isatty())
    except (GitError, _config.ConfigError) as exc:
        print(f"mergedrv check: {exc}", file=sys.stderr)
        return 2
    if only is not None:
        findings = [f for f in findings if f.check in only]
    if findings or fmt == "json":
        print(render(findings, fmt))
    if summary is not None:
        print(summary.line(), file=sys.stderr)
    elif findings:
        print(f"mergedrv check: {len(findings)} finding{'s' if len(findings) != 1 else ''}", file=sys.stderr)
    return 1 if findings else 0

"""The post-rewrite check: a rebased commit must carry the keyed rows its original changed.
"""

from __future__ import annotations

from ..findings import Finding
from ..git import GitError
from .changes import tree_changes
from .entries import Entry, Reader, duplicates, line_numbers, same_entry
from .merge_keys import MERGE_KEYS, column_named, record_paths, single_entry


Effect = dict[tuple[str, str], tuple[Entry | None, Entry | None]]  # key -> (before, after)


def _changed_records(reader: Reader, commit) -> set[str]:
    parent = commit.parents[0].tree if commit.parents else None
    return record_paths(reader.cfg, tree_changes(parent, commit.tree))




def _effect(reader: Reader, commit, paths: set[str]) -> tuple[Effect, set]:
    """The keys ``commit`` added, changed or deleted, and the keys it leaves defined twice."""
    parent = commit.parents[0].tree if commit.parents else None
    before, after = reader.keys(parent, paths), reader.keys(commit.tree, paths)
    effect: Effect = {}
    doubled = {key for key, entries in after.items() if duplicates(entries)}
    for key in set(before) | set(after):
        if len(before.get(key, [])) > 1 or len(after.get(key, [])) > 1:
            continue
        b, a = single_entry(before, key), single_entry(after, key)
        if not same_entry(b, a):
            effect[key] = (b, a)
    return effect, doubled


def _compose(effects: list[Effect]) -> Effect:
    """Several commits' effects as one (a squash), keys back at their start dropped."""
    out: Effect = {}
    for effect in effects:
        for key, (before, after) in effect.items():
            out[key] = (out[key][0] if key in out else before, after)
    return {k: v for k, v in out.items() if not same_entry(*v)}


def rewritten(reader: Reader, pairs: list[tuple[str, str]], notes: list[Finding] | None = None) -> list[Finding]:
    """The rewritten commits add, change and delete the same keys as the originals.

    ``pairs`` are git's post-rewrite ``old new`` lines; several olds that map
    to one new commit (a squash) are compared as one combined change.  A key
    the original added or changed must be in the rewritten commit with every
    cell the original set; a key it deleted must be gone; a key it did not
    touch must not be touched; no key may be defined twice anew.  Each
    rewritten commit's pin claims are judged as moves (`claims`): a claim
    whose numbers the rewrite shifted goes to ``notes``, a wrong one is a finding.
    """
    repo = reader.repo
    groups: dict[str, list[str]] = {}
    for old, new in pairs:
        groups.setdefault(new, []).append(old)
    out: list[Finding] = []
    for new, olds in groups.items():
        new_commit, old_commits = _commit(repo, new), [_commit(repo, o) for o in olds]
        if _superseded(repo, new_commit):
            continue  # amended after the rebase stopped (a refused branch update): HEAD holds its replacement
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
        out += claims(repo, new_commit, label, notes if notes is not None else [])
    return out


def claims(repo, commit, label: str, notes: list[Finding]) -> list[Finding]:
    """The pin claims of a rewritten commit's message against the move of its
    own pins: shifted claims are said in ``notes`` (naming the commit and its
    original), a claimed move the pin did not make is a finding."""
    from .. import config as cfgmod
    from ..checks import run_checks
    from ..git import Tree

    data = Tree(repo, commit.tree).read(cfgmod.CONFIG_NAME)
    if data is None or not commit.parents:
        return []
    try:
        cfg = cfgmod.load_bytes(data)
    except cfgmod.ConfigError:
        return []
    where = f"{commit.short_id}^{{message}}"
    said: list[Finding] = []
    parent = commit.parents[0]
    found = run_checks(cfg, Tree(repo, commit.tree, commit.short_id), Tree(repo, parent.tree, parent.short_id), commit.message,
                       only={"pin-claims"}, config_data=data, message_path=where, notes=said)
    for n in said:
        notes.append(n.replace(message=f"{commit.short_id} (rebased from {label}) carries a shifted claim: {n.message}"))
    return [f.replace(commit=commit.short_id) for f in found if f.path == where]  # a claim judged; not a pin left unclaimed


def _superseded(repo, commit) -> bool:
    """Whether ``commit`` is not in HEAD's history: git lists the commit its
    sequencer made, and when the branch update was refused and the user amended
    that commit before `git rebase --continue`, the list still names the one
    replaced; HEAD's history holds what landed (judged by the hooks then)."""
    if repo.head_is_unborn or repo.head_is_detached:
        return False
    head = repo.head.target
    return head != commit.id and not repo.descendant_of(head, commit.id)


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
        if was_doubled or duplicates(before):
            return None
        dups = next(iter(duplicates(after).values()), after)
        return Finding(dups[-1].path, dups[-1].line, MERGE_KEYS,
                       f"{name} is defined twice after the rewrite (lines {line_numbers(dups)}); the original ({label}) "
                       "defines it once", None)
    if len(before) > 1:
        return None
    nb, na = (before[0] if before else None), (after[0] if after else None)
    if original is None:
        if same_entry(nb, na):
            return None
        kind = "adds" if nb is None else "deletes" if na is None else "changes"
        where = na or nb
        assert where is not None  # (not the same_entry: not both absent)
        fix = "; " + _repair(name, "the rewritten commit's parent", where) if kind == "deletes" else ""
        return Finding(where.path, where.line, MERGE_KEYS,
                       f"{name}: the rewritten commit {kind} it; the original ({label}) did not{fix}", None)
    o_before, o_after = original
    if o_after is None:
        if na is None:
            return None
        return Finding(na.path, na.line, MERGE_KEYS,
                       f"{name}: the original ({label}) deletes it; the rewritten commit keeps it", None)
    if na is None:
        return Finding(o_after.path, o_after.line, MERGE_KEYS,
                       f"{name} is lost: the original ({label}) has it at line {o_after.line}; "
                       f"the rewritten commit does not; {_repair(name, label, o_after)}", None)
    if o_before is None:
        if nb is None and na.cells != o_after.cells:
            return Finding(na.path, na.line, MERGE_KEYS,
                           f"{name}: the rewritten commit adds it with other content than the original "
                           f"({label}, line {o_after.line})", None)
        return None
    for column, value in o_after.cells:
        if o_before.cell(column) != value and na.cell(column) != value:
            return Finding(na.path, na.line, MERGE_KEYS,
                           f"{name}: the original ({label}) set{column_named(column)}; the rewritten commit does not "
                           "have that value", None)
    return None


def _repair(name: str, source: str, where: Entry) -> str:
    """How to put back a key a finished rebase dropped."""
    return (f"repair: put the row of {name} back ({source} has it, {where.path} line {where.line}) and commit it, "
            "or undo the rebase with `git reset --hard ORIG_HEAD` and rebase again with the driver installed")

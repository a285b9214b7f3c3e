"""Folders of same-template files for `mergedrv init`: one glob `[[record]]`
with ``key_scope = "file"`` where several files of a directory tree hold a
table keyed by one column, unique within each file, and history shows rows
added to them (meeting agendas' attendees, weekly reports, release checklists).
"""

from __future__ import annotations

from collections import Counter

from .. import model
from ..config.globs import glob_match
from . import history as inithistory, keys as initkeys
from .choose import Proposal, describes_things, not_maintained

MIN_FILES = 3  # files holding the key column that make a folder
MIN_FULL = 2  # of them, files with enough rows to judge the column by (a smaller one only must not repeat a key)
MIN_EVIDENCE = 3  # changes that added rows to the folder's files, and merges that joined changes to them
SLIPS = 0.1  # of the files, those that break the key column (a value twice, an empty cell: each a finding)
SHARE = 0.5  # of the markdown files the glob matches, those holding the key column; of those, the files sharing one header
LEGEND = 0.9  # of the files holding a column, those holding one set of keys in it: the template's own table


class Folder:
    """One directory's glob, its key column and the files holding it."""

    __slots__ = ("glob", "dir", "key", "cand", "holders", "matched", "why", "slips")

    def __init__(self, glob: str, dir: str, key: str, holders: list[str], matched: list[str]) -> None:
        self.glob, self.dir, self.key, self.holders, self.matched = glob, dir, key, holders, matched
        self.cand: initkeys.Candidate | None = None
        self.why = ""
        self.slips: list[tuple[str, str]] = []  # (file, why it breaks the key column: a finding)


def _dirs(path: str) -> list[str]:
    """Every directory above ``path``, outermost first (none for a file at the top)."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _glob(d: str, paths: list[str]) -> str:
    """The narrowest glob of the `.md` files under ``d`` covering ``paths``."""
    return f"{d}/*.md" if all(p.rsplit("/", 1)[0] == d for p in paths) else f"{d}/**/*.md"


def _column(name: str, paths: list[str], cands) -> tuple[initkeys.Candidate | None, list, str]:
    """``name`` read as a key within each of ``paths``: the best file's
    candidate (for its kind and rank), the files that break it (path, why:
    a value twice, an empty or group cell, or a refusal of a file with rows
    enough to judge by; at most SLIPS of them, each a finding), and why not
    ("" if it is a key column of the folder).  ``cands(path, name)``: the
    column read as keys."""
    full, best = 0, None
    bad: list[tuple[str, str]] = []
    for path in paths:
        if len(bad) > SLIPS * len(paths):
            break  # (enough files break it: the rest are not read)
        cand = cands(path, name)
        if cand is None:
            bad.append((path, f"no column {name!r} read"))
            continue
        twice = initkeys.repeated(cand)
        if cand.labels or cand.empty:
            bad.append((path, f"column {cand.header!r} has {'group labels' if cand.labels else 'empty cells'}"))
        elif cand.refused and (len(cand.keys) >= 3 or twice):
            bad.append((path, cand.refused))
        elif dup := cand.dup or next(iter(initkeys.repeated(cand, per_table=False)), ""):  # (a folder's keys are unique in each file, not each table)
            bad.append((path, f"column {cand.header!r} holds {dup!r} twice, which keys-unique reports"))
        if not cand.refused:
            full += 1
            best = best if best is not None and (best.rank, -len(best.keys)) <= (cand.rank, -len(cand.keys)) else cand
    if len(bad) > SLIPS * len(paths):
        return None, [], f"{bad[0][0]}: {bad[0][1]}" + (f" (and {len(bad) - 1} more files)" if len(bad) > 1 else "")
    if full < MIN_FULL or best is None:
        return None, [], f"column {name!r} has enough rows to judge in only {full} file{'s' * (full != 1)}"
    return best, bad, ""


def _boilerplate(name: str, paths: list[str], cands) -> bool:
    """Whether column ``name`` holds one set of keys in most of ``paths``: a
    table each file copies from the template (a legend, a fixed schedule),
    not one rows are added to."""
    sets = Counter(frozenset(c.keys) for p in paths if (c := cands(p, name)) is not None and c.keys)
    return bool(sets) and sets.most_common(1)[0][1] >= LEGEND * len(paths)


def _evidence(paths: list[str], hist) -> tuple[int, int, int, str]:
    """(changes that added rows, merges that joined changes, authors adding rows) to ``paths``, and why that is too little."""
    adds = sum(hist.of(p).row_adds for p in paths)
    merged = sum(len(hist.of(p).merges) for p in paths)
    adders = set().union(*(hist.of(p).adders for p in paths)) if paths else set()
    if adds + merged < MIN_EVIDENCE:
        return adds, merged, len(adders), f"history shows rows added in {adds} changes and {merged} merges of them"
    if len(adders) < 2 and merged < 2:
        return adds, merged, len(adders), f"the changes adding rows to them are by {len(adders)} author"
    return adds, merged, len(adders), ""


def _clashes(own: Proposal, holds: bool, name: str) -> bool:
    """Whether a file's own proposal keeps the folder's glob from taking it
    in: a record keyed otherwise (or by more columns), or a log of a file
    that does not hold the key column (one that does is the folder's)."""
    if own.kind == "record":
        return model.normalize_name(own.key) != name or bool(own.more)
    return not holds


def _template(name: str, paths: list[str], tables: dict[str, list[tuple[str, ...]]]) -> tuple[tuple[str, ...], int]:
    """The header most of ``paths``' tables with column ``name`` share, and how many files hold it."""
    counts = Counter(h for p in paths for h in dict.fromkeys(h for h in tables[p] if name in h))
    return counts.most_common(1)[0] if counts else ((), 0)


def _try(d: str, paths: list[str], tables: dict[str, list[tuple[str, ...]]], every: list[str], cands, hist,
         own: dict[str, Proposal]) -> tuple[Folder | None, str]:
    """The folder record of directory ``d`` (``paths``: its files holding a
    table, ``tables`` the header of each table of each; ``every``: the
    tree's markdown files), or why not."""
    columns = {p: {c for h in tables[p] for c in h if c} for p in paths}
    headers = Counter(name for p in paths for name in columns[p])
    order = sorted(headers, key=lambda n: (-headers[n], initkeys.KEY_NAMES.index(n) if n in initkeys.KEY_NAMES else len(initkeys.KEY_NAMES)))
    notes = []
    for name in order:
        holders = [p for p in paths if name in columns[p]]
        if len(holders) < MIN_FILES:
            break
        _, n = _template(name, holders, tables)
        if n < SHARE * len(holders):
            alike = "no two alike" if n < 2 else f"at most {n} alike"
            notes.append(f"{d}/: the {len(holders)} tables with column {name!r} differ in their headers ({alike})")
            continue
        cand, slips, why = _column(name, holders, cands)
        if cand is None:
            notes.append(why)
            continue
        if _boilerplate(name, holders, cands):
            notes.append(f"{d}/: column {cand.header!r} holds the same keys in most files (the template's own table, never added to)")
            continue
        glob = _glob(d, holders)
        matched = [p for p in every if glob_match(glob, p)]
        if len(holders) < SHARE * len(matched):
            notes.append(f"{glob}: only {len(holders)} of its {len(matched)} files hold column {cand.header!r}")
            continue
        archived = next((p for p in matched if inithistory.archive_folder(p)), None)
        if archived is not None:
            return None, f"{glob} would take in the archived {archived}"
        mine = set(holders)
        clash = next((p for p in matched if p in own and _clashes(own[p], p in mine, name)), None)
        if clash is not None:
            return None, f"{glob}: {clash} is proposed on its own, as a {own[clash].kind} of another key"
        folder = Folder(glob, d, cand.header, holders, matched)
        folder.cand, folder.slips = cand, slips
        adds, merged, adders, why = _evidence(holders, hist)
        if not why and cand.kind == "title" and (adds < 3 or adders < 3):
            why = f"its keys are titles, and the {adds} changes adding rows to them are by {adders} author{'s' * (adders != 1)}"
        if why:
            return None, f"{glob}: {len(holders)} files hold column {cand.header!r}, but {why}"
        joined = f", {merged} merge{'s' * (merged != 1)}" if merged else ""
        folder.why = (f"{glob}: {len(holders)} files of one template keyed by {cand.header!r}, unique per file "
                      f"(rows added in {adds} changes by {adders} authors{joined}).")
        return folder, ""
    if not notes:
        return None, f"{d}/: no column held by {MIN_FILES} of its files"
    return None, f"{d}/: " + "; ".join(n.removeprefix(f"{d}/: ") for n in notes[:3])  # (the folder named once)


def folders(docs: dict[str, model.Document], data: dict[str, bytes], hist, cands: dict[str, list[initkeys.Candidate]],
            own: dict[str, Proposal], skip: set[str], why_not: list[tuple[int, str]] | None = None) -> list[Folder]:
    """The folder records of the tree, outermost directory first (a folder
    that does not qualify is tried again as each of its subdirectories).
    ``docs``: the files holding tables; ``cands``: each one's columns read
    as keys (None for a file init proposes nothing for); ``own``: the per-file
    proposals; ``skip``: files that are no record; ``why_not`` gets (files,
    reason) for each directory tried that is no folder record)."""
    eligible = sorted(p for p in docs if p not in skip and "/" in p and not not_maintained(p) and p.endswith(".md")
                      and not inithistory.archive_folder(p))
    if hist.commits <= 1:
        return []
    tables = {p: [tuple(t.columns) for t in docs[p].tables] for p in eligible}
    read: dict[tuple[str, str], initkeys.Candidate | None] = {}

    def column(path: str, name: str) -> initkeys.Candidate | None:
        """Column ``name`` of ``path`` read as keys: its `candidates` entry, or read alone (a file init proposes nothing for)."""
        if (path, name) not in read:
            known = cands.get(path)
            read[(path, name)] = (next((c for c in known if c.name == name), None) if known is not None
                                  else initkeys.column_of(docs[path], name))
        return read[(path, name)]

    every = list(data)
    under: dict[str, list[str]] = {}
    for p in eligible:
        for d in _dirs(p):
            under.setdefault(d, []).append(p)
    found: list[Folder] = []
    done: set[str] = set()
    for d in sorted(under, key=lambda d: (d.count("/"), d)):
        if any(d == e or d.startswith(e + "/") for e in done) or len(under[d]) < MIN_FILES or describes_things(d + "/x.md"):
            continue
        if any(c in d for c in "*?[]{}\\!"):
            continue  # (a glob of it would read its name as wildcards)
        folder, why = _try(d, under[d], tables, every, column, hist, own)
        if folder is None and why_not is not None:
            why_not.append((len(under[d]), why if why.startswith(d) else f"{d}/: {why}"))
        if folder is not None and not any(set(folder.matched) & set(f.matched) for f in found):
            found.append(folder)
            done.add(d)
    return found


def proposal(folder: Folder, taken: set[str]) -> Proposal:
    """The `[[record]]` proposal of a folder: its glob, key column and per-file key scope, no pin."""
    import re

    base = re.sub(r"[^A-Z0-9]+", "_", folder.dir.rsplit("/", 1)[-1].upper()).strip("_") or "FOLDER"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    why = [folder.why]
    if folder.slips:
        path, what = folder.slips[0]
        more = f" (and {len(folder.slips) - 1} more file{'s' * (len(folder.slips) != 2)})" if len(folder.slips) > 1 else ""
        why.append(f"An exception: {path}: {what}{more}.")
    assert folder.cand is not None
    return Proposal("record", folder.glob, why, name=name, key=folder.key, cand=folder.cand, scope="file",
                    keys=list(folder.cand.keys))

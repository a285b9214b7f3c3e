"""The upstream repository read with pygit2 at revisions: no checkout, no network.

Blobs are read once and parsed once (cached by object id, so a file unchanged
between two revisions costs one parse); each revision has a file-name index
for resolving a cited path by its unique suffix; a removal between two
revisions is attributed to the commit that deleted or renamed the file.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..git import GitError
from . import definitions


@dataclass(slots=True)
class Resolution:
    """How a cited path maps onto a revision's tree."""

    how: str  # "exact", "by-name" (a unique suffix), "ambiguous", "absent"
    path: str | None = None
    candidates: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Removal:
    """The commit that removed a path between two revisions."""

    path: str
    commit: str  # full id
    short: str
    subject: str
    renamed_to: str | None = None  # the new path, when the commit renamed it
    then: Removal | None = None  # the later removal of ``renamed_to``, if any

    @property
    def final(self) -> str | None:
        """Where the file is at the newer revision, if a rename kept it."""
        hop = self
        while hop.then is not None:
            hop = hop.then
        return hop.renamed_to

    def describe(self) -> str:
        verb = f"renamed to {self.renamed_to}" if self.renamed_to else "deleted"
        text = f"{verb} by {self.short} \"{self.subject}\""
        return f"{text}; then {self.then.describe()}" if self.then else text


class Upstream:
    """An upstream repository and its caches of blobs and parsed symbols."""

    def __init__(self, path: str) -> None:
        import pygit2

        found = pygit2.discover_repository(os.path.expanduser(path))
        if found is None:
            raise GitError(f"{path}: not a git repository (--upstream wants a clone of the upstream)")
        self.path = path
        self.repo = pygit2.Repository(found)
        self._blobs: dict[object, bytes] = {}
        self._symbols: dict[tuple[object, str | None], definitions.Symbols] = {}
        self._lines: dict[object, list[str]] = {}

    def revision(self, rev: str) -> Revision:
        import pygit2

        try:
            commit = self.repo.revparse_single(rev).peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError) as exc:
            raise GitError(f"{self.path}: unknown revision {rev!r} ({exc})") from None
        return Revision(self, rev, commit)

    def blob(self, oid) -> bytes:
        data = self._blobs.get(oid)
        if data is None:
            data = self._blobs[oid] = self.repo.odb.read(oid)[1]
        return data

    def symbols(self, path: str, oid) -> definitions.Symbols:
        """The definitions of a blob, parsed once per object id and language."""
        lang = definitions.language(path)
        cached = self._symbols.get((oid, lang))
        if cached is None:
            cached = self._symbols[(oid, lang)] = definitions.symbols(path, self.blob(oid))
        return cached

    def lines(self, oid) -> list[str]:
        """The blob's lines (decoded, without endings)."""
        cached = self._lines.get(oid)
        if cached is None:
            cached = self._lines[oid] = self.blob(oid).decode("utf-8", "replace").splitlines()
        return cached

    def removals(self, old: Revision, new: Revision, paths: list[str]) -> dict[str, Removal]:
        """For each path absent at ``new``, the commit of ``old..new`` that
        removed it (the latest one), following renames that were removed again.

        A commit removes a path when the path is in every parent's tree and
        not in its own; a merge that only takes one side's deletion does not.
        """
        found = self._removing_commits(old, new, [p for p in paths if new.oid(p) is None])
        for removal in found.values():
            hop, seen = removal, {removal.path}
            while hop.renamed_to and new.oid(hop.renamed_to) is None and hop.renamed_to not in seen:
                seen.add(hop.renamed_to)
                nxt = self._removing_commits(old, new, [hop.renamed_to]).get(hop.renamed_to)
                if nxt is None:
                    break
                hop.then = nxt
                hop = nxt
        return found

    def _removing_commits(self, old: Revision, new: Revision, paths: list[str]) -> dict[str, Removal]:
        import pygit2

        found: dict[str, Removal] = {}
        remaining = set(paths)
        if not remaining:
            return found
        walker = self.repo.walk(new.commit.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)
        walker.hide(old.commit.id)
        for commit in walker:
            parents = [p.tree for p in commit.parents]
            if not parents:
                continue
            tree = commit.tree
            for path in list(remaining):
                if path not in tree and all(path in pt for pt in parents):
                    found[path] = Removal(path, str(commit.id), commit.short_id, _subject(commit), self._renamed(commit, path))
                    remaining.discard(path)
            if not remaining:
                break
        return found

    def _renamed(self, commit, path: str) -> str | None:
        """The path ``path`` was renamed to by ``commit`` (rename detection)."""
        import pygit2

        diff = self.repo.diff(commit.parents[0].tree, commit.tree)
        diff.find_similar(flags=pygit2.enums.DiffFind.FIND_RENAMES)  # git's defaults: 50% similar, limit 1000
        for delta in diff.deltas:
            if delta.status_char() == "R" and delta.old_file.path == path:
                return delta.new_file.path
        return None

    def where_defined(self, rev: Revision, queries: list[tuple[str, ...]]) -> dict[str, list[tuple[str, definitions.Definition]]]:
        """Definitions at ``rev`` named by each query ``(name, *context)``.

        A file is parsed only if its bytes hold a query's name and every one of
        its context words (a member's class), so a tree of thousands of files
        costs one scan, not thousands of parses.
        """
        out: dict[str, list[tuple[str, definitions.Definition]]] = {q[0]: [] for q in queries}
        if not queries:
            return out
        # trigger on the most telling word: a member's class, else the name
        need: dict[bytes, list[tuple[bytes, ...]]] = {}
        for name, *words in queries:
            trigger = (words[-1] if words else name).encode()
            need.setdefault(trigger, []).append((name.encode(), *(w.encode() for w in words)))
        rx = re.compile(b"|".join(re.escape(n) for n in sorted(need, key=len, reverse=True)))
        for path, oid in rev.files().items():
            if definitions.language(path) is None:
                continue
            data = self.blob(oid)
            if not rx.search(data):
                continue
            hits = set(rx.findall(data))
            if not any(all(_has_word(data, w) for w in words) for hit in hits for words in need[hit]):
                continue
            for d in self.symbols(path, oid).definitions:
                if d.name in out:
                    out[d.name].append((path, d))
        return out


def _has_word(data: bytes, word: bytes) -> bool:
    return re.search(rb"(?<![A-Za-z0-9_])" + re.escape(word) + rb"(?![A-Za-z0-9_])", data) is not None


def _subject(commit) -> str:
    return commit.message.strip().split("\n", 1)[0].strip()


class Revision:
    """The tree of one upstream commit, with a file-name index built on demand."""

    def __init__(self, upstream: Upstream, rev: str, commit) -> None:
        self.upstream = upstream
        self.rev = rev
        self.commit = commit
        self.short = commit.short_id
        self._files: dict[str, object] | None = None
        self._by_name: dict[str, list[str]] | None = None

    @property
    def label(self) -> str:
        return self.rev if self.rev.startswith(self.short) or self.short.startswith(self.rev) else f"{self.rev} ({self.short})"

    def oid(self, path: str):
        """The blob id at ``path``, or None."""
        if self._files is not None:
            return self._files.get(path)
        try:
            entry = self.commit.tree[path]
        except (KeyError, ValueError):
            return None
        return entry.id if entry.type_str == "blob" else None

    def files(self) -> dict[str, object]:
        """Every blob path of the tree and its id."""
        if self._files is None:
            files: dict[str, object] = {}
            stack = [("", self.commit.tree)]
            repo = self.upstream.repo
            while stack:
                prefix, tree = stack.pop()
                for entry in tree:
                    kind = entry.type_str
                    if kind == "blob":
                        files[prefix + entry.name] = entry.id
                    elif kind == "tree":
                        stack.append((prefix + entry.name + "/", repo[entry.id]))
            self._files = files
        return self._files

    def resolve(self, path: str) -> Resolution:
        """The file a cited path names: as written, else by a unique suffix."""
        clean = _clean(path)
        if self.oid(clean) is not None:
            return Resolution("exact", clean)
        if self._by_name is None:
            by_name: dict[str, list[str]] = {}
            for p in self.files():
                by_name.setdefault(p.rsplit("/", 1)[-1], []).append(p)
            self._by_name = by_name
        base = clean.rsplit("/", 1)[-1]
        matches = [p for p in self._by_name.get(base, []) if p == clean or p.endswith("/" + clean)]
        if len(matches) == 1:
            return Resolution("by-name", matches[0])
        if matches:
            return Resolution("ambiguous", None, sorted(matches))
        return Resolution("absent")


def _clean(path: str) -> str:
    """A cited path without leading ``./``, ``../`` or ``/``."""
    while path.startswith(("./", "../", "/")):
        path = path.split("/", 1)[1] if not path.startswith("/") else path[1:]
    return path

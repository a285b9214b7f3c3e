"""What the checks compare with a change's parent, and what range mode keeps
from one commit to the next (`Context` inherits it)."""

from __future__ import annotations

from .. import patterns

TYPE_CHECKING = False  # (typing costs a hook's process milliseconds to import)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from .. import config, model
    from ..git import Snapshot


def _underlines(tail: bytes) -> bool:
    """Could the first appended line recast the lines above it: a delimiter
    row (the line above becomes a table's header) or a setext underline?"""
    first = tail.split(b"\n", 1)[0].strip()
    return bool(first) and not first.strip(b"|:-= \t\r") and (b"-" in first or b"=" in first)


class Extended:
    """A log's parent, when the change only appended whole lines to it
    (`Deltas.changed_logs`, range mode) and the first of them recasts no line
    above (`_underlines`): the parent is the first ``lines`` lines, so its
    rows are the rows above them and it is not parsed."""

    __slots__ = ("lines",)

    def __init__(self, lines: int) -> None:
        self.lines = lines


class Deltas:
    """A Context's parent comparisons (unchanged files, changed logs) and its
    ``memo``: answers kept by what they depend on, shared by a range's commits."""

    # what the Context that inherits this sets and defines
    cfg: config.Config
    snap: Snapshot
    parent: Snapshot | None
    memo: dict | None
    _same: dict[str, bool]
    _appended: dict[str, Any]

    if TYPE_CHECKING:
        def read(self, path: str, snap: Snapshot | None = None) -> bytes | None: ...

        def files(self, pattern: str, snap: Snapshot | None = None) -> list[str]: ...

        def examined(self, pattern: str) -> bool: ...

        def doc(self, path: str, key: str | None = None, log: bool = False, snap: Snapshot | None = None,
                key_pattern: str | None = None) -> model.Document | None: ...

    def same_in_parent(self, path: str) -> bool:
        """The file is byte-identical in the parent (nothing to compare).

        A parent that knows its blob ids (``blob_id(path)``) is not read when
        the file's own blob id matches.
        """
        if self.parent is None:
            return False
        if path not in self._same:
            self._same[path] = self._same_in_parent(path)
        return self._same[path]

    def _same_in_parent(self, path: str) -> bool:
        blob_id = getattr(self.parent, "blob_id", None)
        own_id = getattr(self.snap, "blob_id", None)
        if blob_id is not None and own_id is not None and own_id(path) is not None:
            return own_id(path) == blob_id(path)  # both know their blob ids: nothing to read
        data = self.read(path)
        if blob_id is not None and data is not None:
            import hashlib

            if blob_id(path) == hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest():
                return True
        return data == self.read(path, self.parent)

    def changed_logs(self):
        """(path, document, parent's document) of each log file the change touches.

        A log to which the change only appended rows (a snapshot that can tell,
        ``appended(path, parent)``: range mode) comes as (path, None, the
        `Appended` lines): its documents are not parsed.  One to which it
        appended other whole lines comes as (path, document, `Extended`): the
        parent is not parsed; appended lines that hold no table row do not come.
        """
        if self.parent is None:
            return
        for log in self.cfg.logs:
            if not self.examined(log.path):
                continue
            for path in self.files(log.path):
                if self.same_in_parent(path):
                    continue
                added = self.appended(path)
                if added is not None:
                    yield path, None, added
                    continue
                tail = self._extension(path)
                if tail is not None and self._prose_only(tail):
                    continue  # lines that hold no table row were appended: nothing for a log check to judge
                doc = self.doc(path, log=True)
                if tail is not None and doc is not None and not _underlines(tail):  # the parent's rows are this one's above them
                    appended = tail.count(b"\n") + (not tail.endswith(b"\n"))  # (the last line may have no ending)
                    yield path, doc, Extended(len(doc.lines) - appended)
                else:
                    yield path, doc, self.doc(path, log=True, snap=self.parent)

    def _extension(self, path: str) -> bytes | None:
        """The whole lines the change appended to log ``path``, when the
        snapshot proves its parent's version a prefix of its own
        (``extension(path, parent)``: range mode), else None."""
        tell = getattr(self.snap, "extension", None)
        return tell(path, self.parent) if tell is not None and self.parent is not None else None

    @staticmethod
    def _prose_only(tail: bytes) -> bool:
        """``tail`` (appended whole lines) holds no pipe, no delimiter row and nothing the model refuses."""
        if b"|" in tail:
            return False
        if any(line.strip() and not line.strip(b":- \t\r\n") for line in tail.split(b"\n")):
            return False  # `---` may underline
        from .. import model

        try:
            model.check_modelable(tail)  # (a byte the model refuses is a finding of the file's, as a parse finds it)
        except model.Unmodelable:
            return False
        return True

    def shared(self, *name) -> dict | None:
        """A dict kept in ``memo`` under ``name`` for a pure function's answers
        (range mode: most rows are the same from one commit to the next), or
        in the process's parses (the hooks: the index, HEAD and the index
        `--fix` restaged share most rows); None without either."""
        memo = self.memo
        if memo is None:
            parses = getattr(self, "parses", None)
            memo = parses.pure if parses is not None else None
            if memo is None:
                return None
        found = memo.get(name)
        if found is None or len(found) > 200_000:
            found = memo[name] = {}
        return found

    def matching(self, pattern: str, texts: list) -> list:
        """`patterns.matching`, each text matched once per range (raises PatternError)."""
        memo = self.shared("matching", pattern)
        if memo is None:
            return patterns.matching(pattern, texts)
        patterns.compile(pattern)  # a bad pattern is reported as such, known texts or not
        unknown = [t for t in dict.fromkeys(texts) if t not in memo]
        if unknown:
            memo.update(zip(unknown, patterns.matching(pattern, unknown)))
        return [memo[t] for t in texts]

    def blob_key(self, paths: Iterable[str]) -> tuple | None:
        """The snapshot's blob ids of ``paths`` with the configuration's identity:
        a key for ``memo`` (None when there is no memo or the snapshot cannot tell)."""
        ids = getattr(self.snap, "blob_id", None)
        if self.memo is None or ids is None:
            return None
        return (id(self.cfg), *(ids(p) for p in paths))

    def appended(self, path: str):
        """The rows the change appended to log ``path``, when that is all it did
        and the snapshot can tell without parsing (else None)."""
        if path not in self._appended:
            tell = getattr(self.snap, "appended", None)
            self._appended[path] = tell(path, self.parent) if tell is not None and self.parent is not None else None
        return self._appended[path]

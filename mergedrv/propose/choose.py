"""Choosing what `mergedrv init` proposes for one file: a `[[record]]` (its
key column, further key columns for the tables the first does not key) or
a `[[log]]` (a table growing at its end, or dated prose), from the file and
the history `history` measured.  Each choice says in ``why`` what it measured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import model
from . import history as inithistory, keys as initkeys

LOG_SHARE = 0.85  # of the changes to a file that must append at its end
LOG_CHANGES = 3  # changes needed as evidence for a log
LOG_STOPPED = 10  # changes needed once it stopped growing (unchanged in the last FROZEN_AFTER commits)
OPTIONS_MERGES = 2  # merges joining changes to an options table's rows that make it a record
OPTIONS_ADDERS = 3  # changes, and their authors, that added rows to it
LOG_MERGE = "Merges: the base rows, then ours' appended rows, then theirs'."

@dataclass(slots=True)
class Proposal:
    kind: str  # "record" or "log"
    path: str
    why: list[str]
    name: str = ""
    key: str = ""
    key_pattern: str | None = None
    pin: int | None = None
    refs: list[str] = field(default_factory=list)
    ref_files: list[str] = field(default_factory=list)
    rollups: list = field(default_factory=list)  # config.Rollup
    counts: list = field(default_factory=list)  # config.Count
    keys: list[str] = field(default_factory=list)
    cand: initkeys.Candidate | None = None
    alts: list[str] = field(default_factory=list)
    frozen: str | None = None
    retired: str | None = None
    more: list = field(default_factory=list)  # further key columns: initkeys.Candidate, for the tables the first does not key
    patterns: dict = field(default_factory=dict)  # a further key column's header -> its key_pattern
    detached: list = field(default_factory=list)  # 1-based lines of detached rows
    grids: list = field(default_factory=list)  # config.Grid
    sequence: str | None = None  # a column numbering the rows 1..n (propose/sequence.py)
    scope: str = "record"  # key_scope: "file" for a folder's glob record (propose/folders.py)
    former: list[str] = field(default_factory=list)  # the key column's names in older versions (`keys.former_names`)

    def key_spec(self) -> str | tuple[str, ...]:
        """``key`` as the configuration says it: one column, or the list of them."""
        return (self.key, *(c.header for c in self.more), *self.former) if self.more or self.former else self.key

    def pattern_spec(self) -> model.PatternSpec:
        """``key_pattern`` as the configuration says it: one pattern, or one per key column."""
        if not self.more and not self.former:
            return self.key_pattern
        pairs = [(self.key, self.key_pattern)] + [(c.header, self.patterns.get(c.header)) for c in self.more]
        pairs += [(name, self.key_pattern) for name in self.former]  # (the same keys under an older name)
        return tuple((k, v) for k, v in pairs if v) or None



def history_refusal(cand: initkeys.Candidate, h: inithistory.FileHistory, versions: dict, path: str = "", young: bool = False) -> str:
    """Why history says ``cand`` is no key column: a value repeated in two
    older versions, or, for keys that are not IDs, rows added by too few
    changes and authors, and no merge that joined changes to its rows."""
    thin = "" if young or cand.kind == "id" or h.merges else _thin(cand, h, path)
    if thin:  # (said before any older version is parsed: no merge could outweigh it)
        return thin
    older, twice, new = [], [], False
    for sha, name in h.samples[1:]:
        data = versions.get((sha, name), b"")
        unique, n = initkeys.unique_in(data, cand.name, cand.dups, cand.per_table, slips=True)
        if unique is False:
            twice.append(sha[:8])
        if unique is not None:
            older.append(n)
            new = new or not set(cand.keys) <= set(initkeys.keys_in(data, cand.name) or ())
    if len(twice) > 1:  # one slip that was fixed is no evidence against a key
        return f"column {cand.header!r} held a value twice at {twice[0]} and {twice[1]}"
    cand.slip = twice[0] if twice else ""
    if young:  # a repository without history shows nothing
        return ""
    grew = not (h.seen >= 2 and h.row_adds == 0 and not (older and len(cand.keys) > older[-1]))
    if cand.kind == "id" and grew:  # IDs are keys even on two rows
        return ""
    cand.merged = merged_rows(cand, h, versions)
    if cand.merged and cand.kind != "title":  # (titles are rewritten as often as their rows are edited: rows added or nothing)
        return ""
    if not grew:
        return f"history: rows were never added (none of the {h.seen} changes read added one), and no merge joined changes to its rows"
    if older and not new:  # the file's other tables grew, not this column's
        return (f"history: column {cand.header!r} holds the same keys in the {len(older)} older version{'s' * (len(older) != 1)} read "
                "(rows were added to the file's other tables only)" + ("" if cand.merged else ", and no merge joined changes to its rows"))
    return _thin(cand, h, path)


def _thin(cand: initkeys.Candidate, h: inithistory.FileHistory, path: str) -> str:
    """Why the changes read are too few evidence for a key that is no ID: no
    rows added, or added by too few changes or authors ("" if enough)."""
    need = 3 if describes_things(path) or cand.kind == "title" else 2
    if h.seen >= 2 and h.row_adds == 0:
        return f"history: rows were never added (none of the {h.seen} changes read added one), and no merge joined changes to its rows"
    if h.row_adds < need:
        return f"column {cand.header!r} holds {cand.kind}s, and history shows rows added in only {h.row_adds} change{'s' * (h.row_adds != 1)}"
    if len(h.adders) < need:
        return f"column {cand.header!r} holds {cand.kind}s, and the {h.row_adds} changes that added rows are by {len(h.adders)} author{'s' * (len(h.adders) != 1)}"
    return ""


def merged_rows(cand: initkeys.Candidate, h: inithistory.FileHistory, versions: dict) -> int:
    """Merges whose result differs from both parents in the rows of the tables holding ``cand``."""
    parsed: dict = {}
    n = 0
    for sha, parents, name in h.merges:
        texts = [versions.get((c, name)) for c in (sha, *parents)]
        if None in texts:
            continue
        known = [t for t in texts if t is not None]
        if any(_table_lines(t) == _table_lines(known[0]) for t in known[1:]):
            continue  # a side's table lines are the merge's: the merge joined no changes to rows
        rows = [initkeys.rows_in(t, cand.name, parsed) for t in known]
        if rows[0] is not None and all(r is not None and r != rows[0] for r in rows[1:]):
            n += 1
    return n


_LINES: dict[bytes, frozenset] = {}


def _table_lines(text: bytes) -> frozenset:
    if text not in _LINES:
        if len(_LINES) > 512:
            _LINES.clear()
        _LINES[text] = frozenset(line.strip() for line in text.splitlines() if inithistory.row_line(line))
    return _LINES[text]


def _choose(path: str, cands: list[initkeys.Candidate], h, versions: dict, young: bool = False) -> tuple[initkeys.Candidate | None, list[str]]:
    """The key column of ``path`` among ``cands`` (its doc's `initkeys.candidates`, or None) and why the others were refused."""
    notes, passed, merged_refused = [], [], []
    for cand in cands:
        if cand.refused:
            notes.append(cand.refused)
            if merged_table(cand, h, versions) and not history_refusal(cand, h, versions, path, young):
                merged_refused.append(cand)
            continue
        why = history_refusal(cand, h, versions, path, young)
        if why:
            notes.append(why)
            continue
        if cand.kind == "id":
            return cand, notes
        passed.append(cand)
    if passed:  # names: the column whose rows most merges touched, one without a duplicate first
        return max(passed, key=lambda c: (c.merged, not c.dup, -passed.index(c))), notes
    if merged_refused:  # a table of options people merge: no other column keys the file
        return merged_refused[0], [n for n in notes if n != merged_refused[0].refused]
    return None, notes


def merged_table(cand: initkeys.Candidate, h: inithistory.FileHistory, versions: dict) -> bool:
    """Is ``cand``, refused as options alone, a table people merge: rows
    added by OPTIONS_ADDERS changes of as many authors, and OPTIONS_MERGES
    merges that joined changes to its rows (a linter's environment
    variables, one more with each linter; a static table shows neither)."""
    if not cand.if_merged or h.row_adds < OPTIONS_ADDERS or len(h.adders) < OPTIONS_ADDERS:
        return False
    cand.merged = cand.merged or merged_rows(cand, h, versions)
    return cand.merged >= OPTIONS_MERGES


def _more_keys(p: Proposal, doc: model.Document, h: inithistory.FileHistory, versions: dict) -> list[str]:
    """Further key columns of ``p``'s file: a column of stable keys in the
    tables its key column does not key (the roadmap's `#` tracks beside its
    `Block` portfolio), chosen by the rules of the first and, since such
    tables are often documentation, only where history shows rows added to
    them.  Returns why the other columns of those tables were refused."""
    notes: list[str] = []
    assert p.cand is not None  # (a record's proposal, made with its key column)
    chosen = (p.cand.name,)
    parsed: dict = {}  # each older version's tables, parsed once
    while True:
        found = None
        for cand in initkeys.candidates(doc, without=chosen):
            why = (cand.refused if not merged_table(cand, h, versions) else "") or (cand.labels and cand.kind != "id" and
                                   f"column {cand.header!r} holds group labels (`| **Core** | | |`), which it would read as keys") \
                or (cand.per_table and p.scope == "record" and f"column {cand.header!r} repeats its keys table by table, the record's key {chosen[0]!r} does not") \
                or _second_history(cand, chosen, h, versions, parsed, grown=cand.sibling and p.cand.merged > 0)
            if why:
                notes.append(why)
                continue
            found = cand
            break
        if found is None:
            return notes
        p.more.append(found)
        chosen += (found.name,)


def _second_history(cand: initkeys.Candidate, chosen: tuple[str, ...], h: inithistory.FileHistory, versions: dict,
                    parsed: dict | None = None, grown: bool = False) -> str:
    """Why history refuses ``cand`` as a further key column ("" if it shows
    its rows added, no value ever twice; ``grown``: a sibling of tables
    whose rows merges joined needs no rows added of its own)."""
    older = []
    for sha, name in h.samples[1:]:
        column = initkeys.column_in(versions.get((sha, name), b""), cand.name, chosen)
        if column is None:
            continue
        keys = column.keys
        if set(initkeys.repeated(column, per_table=cand.per_table)) - set(cand.dups):  # (per table: twice in one table; a finding today's tree holds too is no refusal)
            return f"column {cand.header!r} held a value twice at {sha[:8]}"
        older.append(set(keys))
    now = set(cand.keys)
    if not grown and not any(now - keys for keys in older):
        read = f"the {len(older)} older version{'s' * (len(older) != 1)} read that hold it" if older else "no older version read holds it"
        return f"column {cand.header!r} (of tables without {chosen[0]!r}): no row added since {read}"
    cand.older = len(older)
    return ""


def stopped(h: inithistory.FileHistory) -> str:
    """Why history shows a file that grew at its end no log: a handful of
    changes, then none for FROZEN_AFTER commits (a spec written once and
    given a few dated addenda), or ""."""
    if h.changes < LOG_STOPPED and h.last_index >= inithistory.FROZEN_AFTER:
        return f"it grew in only {h.changes} change{'s' * (h.changes != 1)}, the last {h.last_index} commits ago"
    return ""


def log_evidence(h: inithistory.FileHistory) -> str | None:
    if (h.seen >= LOG_CHANGES and h.appends >= LOG_SHARE * h.seen and h.entries + h.row_adds >= 0.5 * h.appends
            and not stopped(h)):
        rest = h.seen - h.appends
        return (f"{h.appends} of {h.seen} changes read only appended at its end ({_n(h.row_adds, 'row')}, {_n(h.entries, 'dated entry', 'dated entries')})"
                + (f"; {rest} edited it elsewhere, which log-append-only refuses from now on" if rest else ""))
    return None


def _n(count: int, one: str, many: str = "") -> str:
    """``count`` and the noun it counts (``1 row``, ``2 rows``)."""
    return f"{count} {one if count == 1 else many or one + 's'}"


_ENTRY = re.compile(rb"^[ \t>]*(?:[-*+][ \t]+|#{1,6}[ \t]+)?(?:\*\*|__)?\[?\d{4}-\d{2}-\d{2}", re.M)


def dated_prose(path: str, text: bytes, hist) -> bool:
    """A file of prose only that may be a prose log: three or more dated
    entries (``- **2026-07-02**``, ``## 2026-07-02 ...``), changed after it
    was added, maintained, not a description."""
    h = hist.of(path)
    if h.changes < LOG_CHANGES or not_maintained(path) or describes_things(path) or hist.frozen(path):
        return False
    found = 0
    for _ in _ENTRY.finditer(text):
        found += 1
        if found >= LOG_CHANGES:
            return True
    return False


PROSE_MERGE = "Merges: the base, ours' appended entries, theirs' (a change above the end: as text)."


def prose_log(path: str, h: inithistory.FileHistory, doc: model.Document | None = None, also: str = "") -> Proposal | None:
    """A `[[log]]` for a file of prose (no table, or prose after its first
    table: the state log's dated sections with tables inside) whose history
    shows entries appended at its end."""
    log = log_evidence(h)
    if not log:
        return None
    above = h.appends - h.tail_only
    what = "no table" if doc is None else "prose after its tables"
    return Proposal("log", path, [
        f"{path}: a prose log ({what}): {log}"
        + (f"; {above} appends also touched lines above the old end (refused from now on)" if above else
           "; none touched a line above it") + also + ".", PROSE_MERGE])


def log_proposal(path: str, h: inithistory.FileHistory, doc: model.Document, log: str, also: str = "") -> Proposal:
    from ..checks.logs import is_prose_log

    if is_prose_log(doc):
        found = prose_log(path, h, doc, also)
        if found:
            return found
    return Proposal("log", path, [f"{path}: {log}: a log" + also + ".", LOG_MERGE])


def _table_rows(doc: model.Document) -> int:
    return sum(len(body) for _, _, body in initkeys.tables_of(doc))


_NOT_MAINTAINED = {"test", "tests", "testdata", "fixtures", "__fixtures__", "examples", "samples", "vendor",
                   "third_party", "third-party", "node_modules", ".github"}
_DESCRIPTIONS = re.compile(r"^(?:readme|contributing|code_of_conduct|security|support|governance|install)\b", re.I)


def not_maintained(path: str) -> bool:
    """Test fixtures, examples and vendored copies hold tables nobody keeps as records."""
    return any(part.lower() in _NOT_MAINTAINED for part in path.split("/")[:-1])


def describes_things(path: str) -> bool:
    """A README-like file or one under docs/: its tables describe things."""
    return bool(_DESCRIPTIONS.match(path.rsplit("/", 1)[-1])) or path.split("/", 1)[0].lower() in ("docs", "doc")


def read_ahead(path: str, doc: model.Document, cands: list[initkeys.Candidate], h: inithistory.FileHistory, versions: dict) -> None:
    """Parse the older versions `history_refusal` will read for ``path``
    whatever its diffs show (`record_or_log` skips them only for a log whose
    key columns are all small), while the diffs are still being read."""
    if not any(not c.refused for c in cands):
        return
    if not h.merges and len(h.authors) < 2 and not any(c.kind == "id" for c in cands if not c.refused):
        return  # (one author and no merge: history refuses a key that is no ID before it reads an older version)
    small = 0.5 * max(_table_rows(doc), 1)
    if describes_things(path) or initkeys.options_table(doc) or any(len(c.keys) >= small for c in cands if not c.refused):
        for v in h.samples[1:]:
            if v in versions:
                initkeys.tables_in(versions[v])


def record_or_log(path, doc, hist, versions, taken, cands: list[initkeys.Candidate] | None = None):
    """A `[[record]]` or `[[log]]` proposal for ``path`` and None, or None and why not
    (``cands``: its columns read as keys, `initkeys.candidates`, if already read)."""
    h = hist.of(path)
    frozen = hist.frozen(path)
    if frozen:
        return None, f"{path}: " + (f"archived ({frozen})" if frozen.startswith("it sits under") else f"written once ({frozen})")
    log = log_evidence(h)
    if log and (describes_things(path) or initkeys.options_table(doc)):
        log = None  # a description or a table of options is no log, however it grew
    cands = initkeys.candidates(doc) if cands is None else cands
    small = 0.5 * max(_table_rows(doc), 1) if log else 0
    if log and not any(len(c.keys) >= small for c in cands if not c.refused):
        return log_proposal(path, h, doc, log), None  # a key column history passed would be too small to outweigh the log
    cand, notes = _choose(path, cands, h, versions, young=hist.commits <= 1)
    if (cand is not None and cand.kind != "id" and describes_things(path) and cand.rank >= len(initkeys.KEY_NAMES)
            and not cand.merged and len(h.adders) < 3):
        return None, f"{path}: a description; its column {cand.header!r} holds {cand.kind}s but is not named like a key"
    if cand is not None and log and (len(cand.keys) < small or cand.kind == "title"):
        cand = None  # a prose or table log that holds one small keyed table, or rows of titles: a log
    if cand is not None:
        p = Proposal("record", path, [], key=cand.header, cand=cand, frozen=frozen, keys=cand.keys, scope="table" if cand.per_table else "record")
        _more_keys(p, doc, h, versions)
        return p, None
    if log:
        return log_proposal(path, h, doc, log), None
    return None, f"{path}: " + ("; ".join(dict.fromkeys(notes[:2])) if notes else "no column of keys")

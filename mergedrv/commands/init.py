"""`mergedrv init`: propose a `.mergedrv.toml` a maintainer can commit unedited.

History is read once for every markdown file, merges included (`inithistory`);
only files that hold a table (or dated prose) are parsed.  A file becomes a
`[[record]]` when a column of its tables holds stable keys (`initkeys`:
present in nearly every row, unique but for one slip; not options,
parameters, measurements or templates) that are IDs, or names whose rows
merges joined or several changes added; a `[[log]]` when history shows it
growing at its end in nearly every commit that changed it (`propose.choose`
decides).  Pins only where the tree states the count; rollups, prose counts
and references only where the tree already agrees with them (`initderived`).
Every choice says in a comment why, and the checks are run on the proposal
before it is written.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from .. import model
from ..errors import Error
from ..git import git_or_none, toplevel
from ..values import Value
from ..propose import derived as initderived, folders as initfolders, history as inithistory, keys as initkeys
from ..propose.choose import (  # noqa: F401 - history_refusal: the tests reach it through init
    Proposal, dated_prose, describes_things, history_refusal, log_evidence, log_proposal, not_maintained, prose_log,
    read_ahead, record_or_log, stopped,
)
from ..propose.render import render, summary
from ..propose.sequence import propose_sequence, rekey_sequence

MAX_FILE = 5_000_000
_DELIMITER = re.compile(rb"^[ \t>]*\|?[ \t]*:?-+:?[ \t]*\|", re.M)
CHECKED = ("keys-unique", "key-format", "detached-row", "column-format", "table-shape", "refs", "ratchet", "rollup")


# --- reading ------------------------------------------------------------------


def markdown_files(root: Path) -> list[str]:
    out = git_or_none(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "*.md", "*.markdown")
    if out is None:
        return []
    names = sorted({p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p})
    return [n for n in names if (root / n).is_file() and (root / n).stat().st_size <= MAX_FILE]


def _read_all(root: Path) -> dict[str, bytes]:
    out = {}
    for path in markdown_files(root):
        try:
            out[path] = (root / path).read_bytes()
        except OSError:
            continue
    return out



def _retired(records: list[Proposal], files: dict[str, bytes]) -> None:
    """A file named like a list of retired keys becomes ``retired`` for the records whose keys it lists."""
    for p in records:
        if not p.key_pattern or p.scope != "record":
            continue
        rx = re.compile(p.key_pattern)
        for path, text in files.items():
            words = {w for w in re.split(r"[^A-Za-z0-9_.-]+", text.decode("utf-8", "replace")) if w}
            listed = sorted(w for w in words if rx.match(w))
            if listed:
                p.retired = path
                p.why.append(f"retired: {path} lists {len(listed)} {p.name} keys; a key removed must be listed there.")
                break


_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*[-_]")


def _token(text: str) -> str:
    """The first segment of an ID and its separator (`ENG-` of `ENG-KV-1`)."""
    m = _TOKEN.match(text)
    return m.group() if m else text


def _cand(p: Proposal) -> initkeys.Candidate:
    """A record proposal's key candidate (every proposed record has one)."""
    assert p.cand is not None
    return p.cand


def _translation(a: str, b: str) -> bool:
    """Are ``a`` and ``b`` one file and its translation (`README.md`, `README-CN.md`, `README.zh.md`)?"""
    (da, _, fa), (db, _, fb) = a.rpartition("/"), b.rpartition("/")
    sa, sb = sorted((fa.rsplit(".", 1)[0], fb.rsplit(".", 1)[0]), key=len)
    return da == db and sb.startswith(sa) and _LANGUAGE.fullmatch(sb[len(sa):]) is not None


_LANGUAGE = re.compile(r"[-_.][A-Za-z]{2,3}(?:[-_][A-Za-z]{2,4})?")  # `-CN`, `.zh-CN`, `_ja`, `-pt-BR`


def _references(proposals: list[Proposal]) -> None:
    """Drop a record whose keys are mostly keys of a bigger record: it refers to them."""
    records = [p for p in proposals if p.kind == "record"]
    owner: dict[str, Proposal] = {}  # a key -> the biggest record holding it
    rank = {id(p): i for i, p in enumerate(sorted(records, key=lambda p: (-len(p.keys), p.path)))}
    for p in sorted(records, key=lambda p: rank[id(p)]):
        for c in _cand(p).cores():
            owner.setdefault(c, p)
    for p in records:
        mine = set(_cand(p).cores())
        bigger = Counter(owner[c].path for c in mine if owner[c] is not p and rank[id(owner[c])] < rank[id(p)])
        if bigger and bigger.most_common(1)[0][1] >= 0.5 * len(mine):
            other = next(q for q in records if q.path == bigger.most_common(1)[0][0])
            share = len(mine & set(_cand(other).cores())) / max(len(set(_cand(other).cores())), 1)
            if share >= 0.5 and _translation(p.path, other.path):
                continue  # most of the bigger one's keys, in its translation (README-CN.md): a list of its own
            p.kind = "drop"
            p.why = [f"{p.path}: column {p.key!r} names keys of {bigger.most_common(1)[0][0]}: references, not keys"]


def _patterns(records: list[Proposal]) -> None:
    """Tight ID patterns, deepened until no record's pattern admits another's keys."""
    ids = [p for p in records if _cand(p).kind == "id"]
    by_token: dict[str, list[Proposal]] = {}
    for q in ids:
        for t in {_token(c) for c in _cand(q).cores()}:
            by_token.setdefault(t, []).append(q)
    depth = {id(p): 1 for p in ids}
    for round_ in range(4):
        clash = False
        for p in ids:
            if round_ == 0 or depth[id(p)] > round_:
                p.key_pattern, p.alts, _ = initkeys.key_pattern(p.keys, depth[id(p)])
        for p in ids:
            if p.key_pattern is None:
                continue
            rx = re.compile(p.key_pattern)
            others = {id(q): q for a in p.alts for q in by_token.get(_token(a), ()) if q is not p}
            if any(rx.match(k) for q in others.values() for k in q.keys):
                if round_ == 3:
                    p.why.append("Its pattern also admits keys of another record: split the families by hand.")
                elif depth[id(p)] == round_ + 1:
                    depth[id(p)] += 1
                    clash = True
        if not clash:
            return


def _more_patterns(records: list[Proposal]) -> None:
    """A pattern for each further key column of IDs, deepened until it admits
    no key of another record or of another column of its own."""
    for p in records:
        for c in p.more:
            if c.kind != "id":
                continue
            others = {k for q in records for k in q.keys if q is not p} | set(p.keys)
            others |= {k for d in p.more if d is not c for k in d.keys}
            for depth in range(1, 5):
                pattern, _, _ = initkeys.key_pattern(c.keys, depth)
                rx = re.compile(pattern)
                if not any(rx.match(initkeys.core(k)) or rx.match(k) for k in others):
                    p.patterns[c.header] = pattern
                    break


def _name_for(p: Proposal, taken: set[str]) -> str:
    base = p.alts[0][:-1] if len(p.alts) == 1 else Path(p.path).stem
    base = re.sub(r"[^A-Z0-9]+", "_", base.split("-")[0].upper() if len(p.alts) == 1 else base.upper()).strip("_") or "RECORD"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


# --- finishing a record ---------------------------------------------------------


def _former(p: Proposal, keys: list[str], older: list[bytes], doc: model.Document) -> None:
    """The key column's former names, from the older versions read
    (`keys.former_names`; none a column of today's tables holds, which
    would key that table), and why."""
    declared = {model.normalize_name(n) for n in (p.key, *(c.header for c in p.more))} | {c for t in doc.tables for c in t.columns}
    p.former = initkeys.former_names(keys, older, declared)
    if p.former:
        p.why.append(f"Former name{'s' * (len(p.former) > 1)} of the key column: {', '.join(map(repr, p.former))}"
                     " (older versions hold these keys under it), so merges of branches made before the rename merge by key.")


def _finish(p: Proposal, data: bytes, hist, versions: dict, taken: set[str], checkers: list | None = None,
            cache: model.ParseCache | None = None, root: Path | None = None):
    """Pin, misfits and derived numbers of a record; returns its keyed Document
    (``cache``: the one its unkeyed parse filled; ``root``: where a checker's
    file is read, for a count of its constant)."""
    from .. import derived

    rekey_sequence(p, data, [v for v in (versions.get(s) for s in hist.of(p.path).samples[1:]) if v])
    doc = model.parse(data, key=p.key_spec(), key_pattern=p.pattern_spec(), cache=cache)
    first = [t for t in doc.keyed_tables() if t.key_name == p.key]
    keys = [k for t in first for k in t.keys()]  # a keyed table's rows all carry a key
    p.keys = keys
    p.name = _name_for(p, taken)
    h = hist.of(p.path)
    _former(p, keys, [v for v in (versions.get(s) for s in h.samples[1:]) if v], doc)
    p.why.insert(0, f"{p.path}: {len(keys)} rows keyed by {p.key!r} ({_kind_line(p, h)}).")
    dups = _cand(p).dups
    if len(dups) == 1:
        p.why.append(f"Finding: {dups[0]!r} is in two rows; keys-unique reports it until one is renamed or the two are joined.")
    elif dups:
        p.why.append(f"Findings: {len(dups)} keys are in two rows ({dups[0]!r}, ...); keys-unique reports each until one is renamed or the two are joined.")
    if _cand(p).labels:
        again = sorted({k for k, n in Counter(_cand(p).keys).items() if n > 1})
        p.why.append(f"{_cand(p).labels} group rows (a name in the first cell only) label the rows below them"
                     + (f"; {len(again)} keys repeat across groups ({again[0]!r} …), which keys-unique reports"
                        " while the record model reads no groups." if again else "."))
    _describe_keys(p, doc)
    if p.key_pattern:
        rx = re.compile(p.key_pattern)
        odd = [k for k in keys if not rx.match(k)]
        p.why.append(f"key_pattern: the prefix famil{'ies' if len(p.alts) > 1 else 'y'} {', '.join(a[:-1] for a in p.alts)}"
                     + (f"; key-format reports {', '.join(odd[:5])}{' …' if len(odd) > 5 else ''}" if odd else "") + ".")
    rows = derived.Rows.of([doc], initkeys.row_cells)  # (each row's cells, split once for the run)
    rows.memo = {}  # each rollup tried reads the rows' groups once (the texts of a row's cells by its line, as the checks keep them)
    columns = list(dict.fromkeys(c for t in doc.keyed_tables() for c in _headers(t) if c))
    older = [data for data in (versions.get(s) for s in h.samples[1:]) if data]
    claims = []
    for rollup, what, total in initderived.rollups(doc, rows, columns, p.key):
        right, present = initderived.held(older, p.key_spec(), p.pattern_spec(), rollup=rollup)
        if right == present:  # kept right in every older version read that had it
            p.rollups.append(rollup)
            p.why.append(f"rollup: {what}.")
            claims += [f"the {rollup.total} row of table {rollup.heading!r} says {len(keys)}"] if total else []
    for grid, what, wrong in initderived.grids(doc, rows, columns):
        p.grids.append(grid)
        p.why.append(f"grid: {what}" + (f"; {len(wrong)} cells disagree ({'; '.join(wrong[:2])}{' …' if len(wrong) > 2 else ''}),"
                                         " `mergedrv fix` sets them." if wrong else "."))
    for count, what in initderived.counts(doc, rows, columns):
        right, present = initderived.held(older, p.key_spec(), p.pattern_spec(), count=count)
        if right == present:
            p.counts.append(count)
            p.why.append(f"count: {what}.")
            claims += [what.split(":", 1)[0]] if not count.where else []
    _pin(p, len(keys), claims + initderived.stated_in(p.path, len(keys), checkers or []))
    _checker_count(p, len(keys), checkers or [], rows, root)
    propose_sequence(p, doc, older)
    return doc


def _checker_count(p: Proposal, n: int, checkers: list, rows, root: Path | None) -> None:
    """A count of the constant a checker states for the record (``scripts/check.py:17
    expects 326``), kept in step with the rows, where a pattern of its line finds it alone."""
    if root is None:
        return
    for name, line, text in initderived.stated_at(p.path, n, checkers):
        try:
            data = (root / name).read_bytes()
        except OSError:
            continue
        count = initderived.checker_count(data, name, line, text, n, rows)
        if count is not None:
            p.counts.append(count)
            p.why.append(f"count: {name}:{line} states {n}, kept in step with the rows.")


KINDS = {"id": "IDs", "number": "unique numbers", "name": "unique names", "title": "unique titles"}  # a key column's kind, as a comment says it


def _kind_line(p: Proposal, h) -> str:
    out = [KINDS[_cand(p).kind] + (", per table: an entry may be listed in two (key_scope = \"table\")" if _cand(p).per_table else "")]
    if _cand(p).merged:
        out.append(f"{_cand(p).merged} merge{'s' * (_cand(p).merged != 1)} joined changes to its rows")
    if h.row_adds and _cand(p).kind != "id":  # the history a name key needs
        out.append(f"rows added in {h.row_adds} of {h.seen} changes read")
    if _cand(p).slip:
        out.append(f"a value twice at {_cand(p).slip} only")
    if _cand(p).if_merged:
        out.append(_KEPT_OPTIONS)
    return "; ".join(out)


_KEPT_OPTIONS = "a table of options, kept: changes by several people add rows to it and merges join them"


def _pin(p: Proposal, n: int, claims: list[str]) -> None:
    if p.scope != "record":  # (a pin counts the record's keys as one set)
        return
    if claims:
        p.pin = n
        p.why.append(f"pin = {n}: {claims[0]}.")
    else:
        p.why.append(f"No pin: the tree states no count of these rows (add `pin = {n}` to ratchet it).")


def _describe_keys(p: Proposal, doc: model.Document) -> None:
    """What ``p``'s further key columns and detached rows hold, said in its comment."""
    for c in p.more:
        n = sum(len(t.rows) for t in doc.keyed_tables() if t.key_name == c.header)
        kept = f"; {_KEPT_OPTIONS}" if c.if_merged else ""
        how = f"beside the columns of the {p.key!r} tables" if c.sibling else "rows added"
        p.why.append(f"Second key column {c.header!r}: {n} rows of the tables without {p.key!r} ({KINDS[c.kind]}, {how}{kept})"
                     + (f", keys match {p.patterns[c.header]}." if c.header in p.patterns else "."))
    detached = [t for t in doc.keyed_tables() if t.detached is not None]
    if detached:
        p.detached = [r.line + 1 for t in detached for r in t.rows]
        runs = ", ".join(str(t.start + 1) for t in detached[:4]) + (" …" if len(detached) > 4 else "")
        p.why.append(f"detached_rows: {len(p.detached)} rows sit below their table past blank lines or prose (lines {runs});"
                     " `check` reports each until moved up (\"keep\": no finding).")


def _headers(table: model.Table) -> list[str]:
    from ..derived import cell_text

    return [cell_text(c) for c in model.split_cells(table.header, table.column).cells]


_SPAN = re.compile(rb"`([^`\n]+)`")


def _removed(records: list[Proposal], hist, versions: dict) -> set[str]:
    """Keys the older versions read and the diffs read of the records held and their files no longer hold."""
    out: set[str] = set()
    for p in records:
        now = {initkeys.core(k) for k in p.keys}
        for sample in hist.of(p.path).samples[1:]:
            for col in (_cand(p).name, *(c.name for c in p.more)):
                out |= {initkeys.core(k) for k in initkeys.keys_in(versions.get(sample, b""), col) or []} - now
        if p.key_pattern:
            rx = re.compile(p.key_pattern)
            words = {w for line in hist.of(p.path).removed for w in re.split(r"[^A-Za-z0-9_.-]+", line.decode("utf-8", "replace"))}
            out |= {w for w in words if w and rx.match(w)} - now
    return out


def _backticked(data: dict[str, bytes], skip: set[str], tokens: set[str]) -> dict[str, list[tuple[str, str]]]:
    """An ID's first segment of ``tokens`` (`_token`: letters and digits, then a separator) -> (file,
    backticked word starting with it) of every file but ``skip``."""
    spans: dict[str, list[tuple[str, str]]] = {}
    starts = tuple(t.encode() for t in tokens)
    if not starts:
        return spans
    words = _starting(starts)
    for path, text in data.items():
        if path in skip or b"`" not in text or not any(t in text for t in starts):
            continue
        for span in (words(text) if words is not None else _SPAN.findall(text)):
            word = span.strip()
            if word.startswith(starts):  # its first segment is the token: the segment ends at the token's separator
                word = word.decode("utf-8", "replace")
                m = _TOKEN.match(word)
                spans.setdefault(m.group() if m else word, []).append((path, word))
    return spans


def _starting(starts: tuple[bytes, ...]):
    """A function giving the code spans of a text that `_SPAN` finds whose text, stripped, starts
    with one of ``starts`` (each without its leading blanks), found in C: one regex pairs the
    backticks as `_SPAN` does, and only a span that starts so fills its group.  None when a
    token holds a backtick, a line ending or a leading blank (then `_SPAN`'s spans are read)."""
    if any(not t or b"`" in t or b"\n" in t or t[:1].isspace() for t in starts):
        return None
    alts = b"|".join(re.escape(t) for t in sorted(starts, key=len, reverse=True))
    rx = re.compile(rb"`[ \t\r\x0b\x0c]*((?:" + alts + rb")[^`\n]*)`|`[^`\n]+`")
    return lambda text: [w for w in rx.findall(text) if w]


def _refs(records: list[Proposal], docs: dict[str, model.Document], spans: dict[str, list[tuple[str, str]]], removed: set[str]) -> None:
    """`refs` columns and `ref_files` whose IDs all name keys today (``spans``: `_backticked`): a file naming a key
    that history shows removed (or none at all) is left out, so day one has no refs finding."""
    universe = {k for p in records for k in p.keys} | {initkeys.core(k) for p in records for k in p.keys}
    pats = [p.key_pattern for p in records if p.key_pattern]
    if not pats:
        return
    anyrx = re.compile("|".join(f"(?:{x})" for x in pats))
    for p in records:
        if not p.key_pattern:
            continue
        for header, hit, miss in initderived.ref_columns([docs[p.path]], p.key_spec(), anyrx, universe):
            p.refs.append(header)
            p.why.append(f"refs: {hit} IDs in column {header!r} name keys.")
        rx = re.compile(p.key_pattern)
        tally: dict[str, list[int]] = {}
        gone: dict[str, set[str]] = {}
        for t in {_token(a) for a in p.alts}:
            for path, word in spans.get(t, ()):
                if path != p.path and rx.match(word):
                    tally.setdefault(path, [0, 0])[word not in universe] += 1
                    if word not in universe:
                        gone.setdefault(path, set()).add(word)
        kept = [(path, hit) for path, (hit, miss) in sorted(tally.items()) if hit >= 3 and not miss]
        p.ref_files = [path for path, _ in kept]
        if kept:
            p.why.append(f"ref_files: {len(kept)} file{'s' * (len(kept) != 1)} cite only live keys in backticks ({', '.join(f'{path} {hit}' for path, hit in sorted(kept, key=lambda x: -x[1])[:2])}{' …' if len(kept) > 2 else ''}).")
        out = sorted(path for path, (hit, miss) in tally.items() if hit >= 3 and miss)
        if out:
            words = sorted({w for path in out for w in gone[path]})
            was = [w for w in words if w in removed]
            why = (f"{len(was)} removed, as history shows, e.g. {was[0]}" if was else f"e.g. {words[0]}")
            p.why.append(f"Not in ref_files: {len(out)} file{'s' * (len(out) != 1)} cite{'s' * (len(out) == 1)} {len(words)} {p.name}"
                         f" ID{'s' * (len(words) != 1)} naming no key ({why}); add each once its citations are live.")


# --- proposing ----------------------------------------------------------------


def _prose_logs(paths: list[str], hist, proposals: list[Proposal], skipped: list[str]) -> None:
    """A `[[log]]` for each file of dated prose whose history shows entries appended at its end."""
    for path in paths:
        found = prose_log(path, hist.of(path))
        if found:
            proposals.append(found)
        else:
            h = hist.of(path)
            why = stopped(h) or f"{h.appends} of the {h.seen} changes read appended at its end, {h.entries} of them dated entries"
            skipped.append(f"{path}: dated prose, but {why}: no log")


def _may_hold_table(path: str, text: bytes) -> bool:
    """A maintained file with a line that reads as a table's delimiter row: the only files parsed."""
    return not not_maintained(path) and b"|" in text and _DELIMITER.search(text) is not None


def _parse_tables(data: dict[str, bytes], caches: dict[str, model.ParseCache], paths: set[str], docs: dict | None = None,
                  unread: list[str] | None = None) -> tuple[dict[str, model.Document], list[str]]:
    """The maintained files of ``paths`` holding a table, parsed (each with its
    ``caches`` entry, which its older versions' parses continue from), and
    those the model cannot read (with why), added to ``docs`` and ``unread``."""
    docs = {} if docs is None else docs
    unread = [] if unread is None else unread
    for path, text in data.items():
        if path in paths and _may_hold_table(path, text):
            try:
                doc = model.parse(text, cache=caches.setdefault(path, model.ParseCache()))
            except model.Unmodelable as exc:
                unread.append(f"{path}: not modelled ({exc})")
                continue
            if doc.tables:
                docs[path] = doc
    return docs, unread


def _older_versions(root: Path, hist, docs: dict[str, model.Document], caches: dict[str, model.ParseCache],
                   data: dict[str, bytes], rest: set[str], unread: list[str]) -> dict:
    """The older versions of the files holding tables that history weighs (those
    it sampled, and both sides of the merges that joined changes), in one read,
    while the ``rest`` of the files are parsed (`_parse_tables`); each parsed,
    when asked, from its file's parse today."""
    owned = {path: [*h.samples[1:], *((c, name) for sha, parents, name in h.merges for c in (sha, *parents))]
             for path, h in ((path, hist.of(path)) for path in docs if not hist.frozen(path))}
    reading = inithistory.start_versions(root, [v for path in owned for v in owned[path]])
    _parse_tables(data, caches, rest, docs, unread)  # (while git reads them)
    versions = reading.versions()
    for path, wanted in owned.items():
        initkeys.continuing(caches[path], [versions[v] for v in wanted if v in versions])
    return versions


EARLY = 1_000_000  # bytes of files parsed while git reads history


def _first_files(data: dict[str, bytes], skip: set[str]) -> set[str]:
    """The first files that may hold a table, up to EARLY bytes (but ``skip``)."""
    out: set[str] = set()
    size = 0
    for path, text in data.items():
        if size >= EARLY:
            break
        if path not in skip and _may_hold_table(path, text):
            out.add(path)
            size += len(text)
    return out


class _Tree:
    """What `propose` reads of the tree and its history, in the order that lets
    git read history while the files are parsed (`_read_tree`)."""

    __slots__ = ("data", "caches", "docs", "unread", "hist", "frozen", "archived", "prose", "versions", "measuring")

    def __init__(self, root: Path) -> None:
        reading = inithistory.start_read(root)  # git reads history while the archived files are parsed
        data = self.data = _read_all(root)
        self.caches: dict[str, model.ParseCache] = {}
        self.archived = {path for path in data if inithistory.archive_folder(path)}
        early = _first_files(data, self.archived)  # (every file holding a table is parsed, frozen or not: any will do)
        self.docs, self.unread = _parse_tables(data, self.caches, self.archived | early)
        hist = self.hist = reading.history()
        frozen = self.frozen = {path for path in data if hist.frozen(path)}
        # git reads the diffs of every file that may hold a table or be a prose log while they are parsed
        # (a file whose parse shows neither is measured for nothing: its figures are never read)
        self.measuring = inithistory.start_measure(root, hist, [p for p, text in data.items() if p not in frozen and (
            _may_hold_table(p, text) or dated_prose(p, text, hist))])
        _parse_tables(data, self.caches, set(data) - frozen - early, self.docs, self.unread)
        unmodelled = {u.split(": ", 1)[0] for u in self.unread}
        self.prose = [p for p, text in data.items() if p not in self.docs and p not in unmodelled and dated_prose(p, text, hist)]
        self.versions = _older_versions(root, hist, self.docs, self.caches, data, frozen - self.archived - early, self.unread)
        self.docs = {path: self.docs[path] for path in data if path in self.docs}  # (in the files' order)
        order = {path: i for i, path in enumerate(data)}
        self.unread.sort(key=lambda u: order.get(u.split(": not modelled (", 1)[0], 0))


def propose(root: Path, say=lambda msg: None) -> tuple[list[Proposal], list[str]]:
    """Proposals for the markdown files under ``root``, and the files left out (with why)."""
    tree = _Tree(root)
    data, caches, docs, hist, versions, frozen = tree.data, tree.caches, tree.docs, tree.hist, tree.versions, tree.frozen
    retired = [path for path in data if "retired" in Path(path).name.lower()]
    cands = {path: initkeys.candidates(doc) for path, doc in docs.items() if path not in retired and path not in frozen}
    for path in cands:
        read_ahead(path, docs[path], cands[path], hist.of(path), versions)
    checkers = initderived.checker_lines(root)
    tree.measuring.finish()  # (the diffs were read while the rest was parsed, the older versions read and the columns weighed)
    proposals: list[Proposal] = []
    skipped: list[str] = tree.unread
    taken: set[str] = set()
    for path, doc in docs.items():
        if path in retired:
            skipped.append(f"{path}: a list of retired keys")
            continue
        found, why = record_or_log(path, doc, hist, versions, taken, cands.get(path))
        if found:
            proposals.append(found)
        elif why:
            skipped.append(why)
    _prose_logs(tree.prose, hist, proposals, skipped)
    why_not: list[tuple[int, str]] = []
    found = initfolders.folders(docs, data, hist, cands, {p.path: p for p in proposals}, tree.archived | set(retired), why_not)
    covered = {path for f in found for path in f.matched}  # a folder's files: one glob record, none of their own
    proposals = [p for p in proposals if p.path not in covered]
    skipped[:] = [s for s in skipped if s.split(": ", 1)[0] not in covered]
    done = {f.dir for f in found}
    why_not = [(n, w) for n, w in why_not if not any(w.startswith(d + "/") for d in done)]
    skipped[:0] = [f"folder {w}" for _, w in sorted(why_not, key=lambda x: -x[0])[:3]]  # the biggest folders first: why no glob record
    folder_records = [initfolders.proposal(f, taken) for f in found]
    _references(proposals)
    for p in proposals:
        log = log_evidence(hist.of(p.path)) if p.kind == "drop" and not initkeys.options_table(docs[p.path]) else None
        if log and not describes_things(p.path) and not hist.frozen(p.path):
            found = log_proposal(p.path, hist.of(p.path), docs[p.path], log, "; " + p.why[0].split(": ", 1)[1])
            p.kind, p.why = "log", found.why
    skipped += [p.why[0] for p in proposals if p.kind == "drop"]
    proposals = [p for p in proposals if p.kind != "drop"]
    records = [p for p in proposals if p.kind == "record"]
    _patterns(records)
    _more_patterns(records)
    keyed = {p.path: _finish(p, data[p.path], hist, versions, taken, checkers, caches.get(p.path), root) for p in records}
    for p in records:
        twice = sorted({k for k, n in Counter(p.keys).items() if n > 1} - set(_cand(p).dups))
        if twice and not _cand(p).labels and not _cand(p).per_table:  # repeated keys no single slip, group rows or tables explain
            skipped.append(f"{p.path}: the record model would read {twice[0]!r} twice under key {p.key!r}")
            proposals.remove(p)
            del keyed[p.path]
    records = [p for p in records if p.path in keyed]
    _retired(records, {path: data[path] for path in retired})
    spans = _backticked(data, tree.archived | set(retired), {_token(a) for p in records if p.key_pattern for a in p.alts})
    _refs(records, keyed, spans, _removed(records, hist, versions))
    proposals += folder_records
    # a path without a slash matches its name at any depth: a deeper record comes first, so it is found first
    proposals.sort(key=lambda p: "/" not in p.path)
    return proposals, skipped


# --- writing ------------------------------------------------------------------


def tree_findings(root: Path, cfg, text: str) -> list[str]:
    """What `mergedrv check` reports on the working tree under the proposal."""
    from ..checks import run_checks
    from ..git import WorkTree

    found = run_checks(cfg, WorkTree(root), only=CHECKED, config_data=text.encode("utf-8"))
    return [f"{f.path}:{f.line}: {f.check}: {f.message}" for f in found]


class Request(Value):
    """`mergedrv init [--repo DIR] [--force] [--print]` (built once, in cli.py)."""

    __slots__ = ("repo", "force", "stdout")

    def __init__(self, repo: str = ".", force: bool = False, stdout: bool = False) -> None:
        self.repo = repo
        self.force = force
        self.stdout = stdout


def run(req: Request) -> int:
    """`mergedrv init [--repo DIR] [--force] [--print]`: 0 written, 1 nothing found (an Error: 2, from the CLI)."""
    from .. import config as cfgmod

    force, stdout = req.force, req.stdout
    warn = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    root = Path(toplevel(req.repo))
    target = root / cfgmod.CONFIG_NAME
    if target.exists() and not force and not stdout:
        raise Error(f"{target} already exists; keep it, or replace it with `mergedrv init --force` (see the proposal with --print)")
    proposals, skipped = propose(root, warn)
    if not proposals:
        warn(f"mergedrv init: no markdown table in {root} holds a column of stable keys or an append-only log; nothing written")
        for why in skipped[:12]:  # (what each file was refused for, as the proposal's comment would say it)
            warn(f"  {why}")
        if len(skipped) > 12:
            warn(f"  and {len(skipped) - 12} more")
        return 1
    text = render(proposals, skipped)
    try:
        cfg = cfgmod.loads(text, str(target))
    except cfgmod.ConfigError as exc:  # a bug here must not leave a broken file behind
        raise Error(f"the proposal does not load ({exc}); nothing written") from None
    findings = tree_findings(root, cfg, text)
    text = render(proposals, skipped, findings)
    report = sys.stderr if stdout else sys.stdout
    if stdout:
        sys.stdout.write(text)
    else:
        from ..atomic import atomic_write

        atomic_write(str(target), text.encode("utf-8"))
        for p in proposals:
            print(f"  {p.path}: {summary(p)}")
        print(f"mergedrv init: wrote {target} ({len(proposals)} proposals); review it, then run `mergedrv install`")
    if findings:
        kinds = Counter(f.split(": ", 2)[1] for f in findings if f.count(": ") >= 2)
        by = f" ({', '.join(f'{n} {k}' for k, n in kinds.most_common())})" if len(kinds) > 1 else ""
        print(f"mergedrv init: the tree already has {len(findings)} finding{'s' * (len(findings) != 1)}{by}"
              " (not the first commit's to fix; they do not block it):", file=report)
        for line in findings[:5]:
            print(f"  {line}", file=report)
        if len(findings) > 5:
            print(f"  and {len(findings) - 5} more: `mergedrv check --all` lists them", file=report)
    return 0


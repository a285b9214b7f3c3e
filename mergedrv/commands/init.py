"""`mergedrv init`: propose a `.mergedrv.toml` a maintainer can commit unedited.

History is read once for every markdown file (`inithistory`); only files that
hold a table (or dated prose) are parsed.  A file becomes a `[[record]]` when a column of its
tables holds stable keys (`initkeys`: present in nearly every row, never
repeated in any version read, rows added over time; not options, parameters,
measurements or templates), a `[[log]]` when history shows it growing at its
end in nearly every commit that changed it (`propose.choose` decides).  Rollups, prose counts and
references are proposed only where the tree already agrees with them
(`initderived`).  Every proposal says in a comment what it measured, and the
checks are run on the proposal before it is written.
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
from ..propose import derived as initderived, history as inithistory, keys as initkeys
from ..propose.choose import (  # noqa: F401 - _history_refusal: the tests reach it through init
    Proposal, _dated_prose, _describes, _history_refusal, _log_evidence, _log_proposal, _not_maintained, _prose_log,
    _record_or_log,
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
        if not p.key_pattern:
            continue
        rx = re.compile(p.key_pattern)
        for path, text in files.items():
            words = {w for w in re.split(r"[^A-Za-z0-9_.-]+", text.decode("utf-8", "replace")) if w}
            listed = sorted(w for w in words if rx.match(w))
            if listed:
                p.retired = path
                p.why.append(f"retired: {path} lists {len(listed)} {p.name} keys; a key removed must be listed there.")
                break


def _token(text: str) -> str:
    """The first segment of an ID and its separator (`ENG-` of `ENG-KV-1`)."""
    m = re.match(r"[A-Za-z][A-Za-z0-9]*[-_]", text)
    return m.group() if m else text


def _references(proposals: list[Proposal]) -> None:
    """Drop a record whose keys are mostly keys of a bigger record: it refers to them."""
    records = [p for p in proposals if p.kind == "record"]
    owner: dict[str, Proposal] = {}  # a key -> the biggest record holding it
    rank = {id(p): i for i, p in enumerate(sorted(records, key=lambda p: (-len(p.keys), p.path)))}
    for p in sorted(records, key=lambda p: rank[id(p)]):
        for c in p.cand.cores():
            owner.setdefault(c, p)
    for p in records:
        mine = set(p.cand.cores())
        bigger = Counter(owner[c].path for c in mine if owner[c] is not p and rank[id(owner[c])] < rank[id(p)])
        if bigger and bigger.most_common(1)[0][1] >= 0.5 * len(mine):
            p.kind = "drop"
            p.why = [f"{p.path}: column {p.key!r} names keys of {bigger.most_common(1)[0][0]}: references, not keys"]


def _patterns(records: list[Proposal]) -> None:
    """Tight ID patterns, deepened until no record's pattern admits another's keys."""
    ids = [p for p in records if p.cand.kind == "id"]
    by_token: dict[str, list[Proposal]] = {}
    for q in ids:
        for t in {_token(c) for c in q.cand.cores()}:
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


def _finish(p: Proposal, data: bytes, hist, versions: dict, taken: set[str]):
    """Pin, misfits and derived numbers of a record; returns its keyed Document."""
    from .. import derived

    rekey_sequence(p, data, [v for v in (versions.get(s) for s in hist.of(p.path).samples[1:]) if v])
    doc = model.parse(data, key=p.key_spec(), key_pattern=p.pattern_spec())
    first = [t for t in doc.keyed_tables() if t.key_name == p.key]
    keys = [r.key for t in first for r in t.rows]
    p.keys = keys
    p.name = _name_for(p, taken)
    tables = sum(1 for t in first if t.rows and t.detached is None)
    kinds = {"id": "IDs", "number": "unique numbers", "name": "unique names"}
    kind = kinds[p.cand.kind]
    read = len(hist.of(p.path).samples) or 1
    p.why.append(f"{p.path}: {len(keys)} rows in {tables} table{'s' * (tables != 1)} keyed by column {p.key!r} ({kind};"
                 + (f" a value twice at {p.cand.slip} only, of {read} versions read)." if p.cand.slip else f" no value twice in {read} versions read)."))
    _describe_keys(p, doc)
    if p.key_pattern:
        rx = re.compile(p.key_pattern)
        odd = [k for k in keys if not rx.match(k)]
        fams = ", ".join(a[:-1] for a in p.alts)
        p.why.append(f"Keys match {p.key_pattern} (prefix famil{'ies' if len(p.alts) > 1 else 'y'} {fams})"
                     + (f"; not in the family, so key-format reports them: {', '.join(odd[:5])}{' …' if len(odd) > 5 else ''}" if odd else "") + ".")
    else:
        p.why.append(f"Keys are {kind}: no key_pattern (key-format does not apply).")
    h = hist.of(p.path)
    if p.frozen:
        p.why.append(f"No pin: {p.frozen}.")
    elif h.row_removals > max(1, 0.1 * h.seen):
        p.why.append(f"No pin: {h.row_removals} of the {h.seen} changes read removed rows; a pin and a `retired` file would ratchet that.")
    else:
        p.pin = len(keys)
        p.why.append(f"pin = {len(keys)}, the row count: the ratchet refuses a commit that changes the count without moving it.")
    rows = derived.Rows.of([doc])
    columns = list(dict.fromkeys(c for t in doc.keyed_tables() for c in _headers(t) if c))
    older = [data for data in (versions.get(s) for s in hist.of(p.path).samples[1:]) if data]
    for rollup, what in initderived.rollups(doc, rows, columns, p.key):
        right, present = initderived.held(older, p.key_spec(), p.pattern_spec(), rollup=rollup)
        if right == present:  # kept right in every older version read that had it
            p.rollups.append(rollup)
            p.why.append(f"rollup: {what}" + (f"; right in the {present} older versions read that have it." if present else "."))
    for grid, what, wrong in initderived.grids(doc, rows, columns):
        p.grids.append(grid)
        p.why.append(f"section grid: {what}" + (f"; the other {len(wrong)} disagree ({'; '.join(wrong[:3])}{' …' if len(wrong) > 3 else ''}):"
                                                 " `check` reports them until `mergedrv fix` sets them from the rows." if wrong else "."))
    for count, what in initderived.counts(doc, rows, columns):
        right, present = initderived.held(older, p.key_spec(), p.pattern_spec(), count=count)
        if right == present:
            p.counts.append(count)
            p.why.append(f"count: {what}" + (f"; right in the {present} older versions read that have it." if present else "."))
    propose_sequence(p, doc, older)
    return doc


def _describe_keys(p: Proposal, doc: model.Document) -> None:
    """What ``p``'s further key columns and detached rows hold, said in its comment."""
    kinds = {"id": "IDs", "number": "unique numbers", "name": "unique names"}
    for c in p.more:
        mine = [t for t in doc.keyed_tables() if t.key_name == c.header and t.detached is None]
        n = sum(len(t.rows) for t in doc.keyed_tables() if t.key_name == c.header)
        p.why.append(f"Second key column {c.header!r}: {n} rows in the {len(mine)} table{'s' * (len(mine) != 1)} without"
                     f" {p.key!r} ({kinds[c.kind]}, their own namespace; no value twice in the {c.older} older versions read that"
                     " hold it, rows added since); the pin counts " + repr(p.key) + "'s keys."
                     + (f" Its keys match {p.patterns[c.header]}." if c.header in p.patterns else ""))
    detached = [t for t in doc.keyed_tables() if t.detached is not None]
    if detached:
        p.detached = [r.line + 1 for t in detached for r in t.rows]
        runs = ", ".join(str(t.start + 1) for t in detached[:6]) + (" …" if len(detached) > 6 else "")
        total = sum(len(t.rows) for t in doc.keyed_tables() if t.key_name == detached[0].key_name)
        p.why.append(f"Detached rows: {len(p.detached)} of the {total} rows keyed by {detached[0].key_name!r} sit below their table,"
                     f" past blank lines or prose (runs at lines {runs}); their keys match the key_pattern and their cell counts"
                     " the table's, so they are keyed rows (merged in place, counted, held unique). detached_rows = \"report\":"
                     " `check` reports each (GitHub shows it as text) until it is moved up into its table;"
                     " \"keep\" keeps them keyed without the finding.")


def _headers(table: model.Table) -> list[str]:
    from ..derived import cell_text

    return [cell_text(c) for c in model.split_cells(table.header, table.column).cells]


_SPAN = re.compile(rb"`([^`\n]+)`")


def _refs(records: list[Proposal], docs: dict[str, model.Document], data: dict[str, bytes], skip: set[str]) -> None:
    universe = {k for p in records for k in p.keys} | {initkeys.core(k) for p in records for k in p.keys}
    pats = [p.key_pattern for p in records if p.key_pattern]
    if not pats:
        return
    anyrx = re.compile("|".join(f"(?:{x})" for x in pats))
    spans: dict[str, list[tuple[str, str]]] = {}  # an ID's first segment -> (file, backticked word)
    for path, text in data.items():
        if path not in skip and b"`" in text:
            for m in _SPAN.finditer(text):
                word = m.group(1).strip().decode("utf-8", "replace")
                spans.setdefault(_token(word), []).append((path, word))
    for p in records:
        if not p.key_pattern:
            continue
        for header, hit, miss in initderived.ref_columns([docs[p.path]], p.key_spec(), anyrx, universe):
            p.refs.append(header)
            p.why.append(f"refs: {hit} IDs in column {header!r} name keys.")
        rx = re.compile(p.key_pattern)
        tally: dict[str, list[int]] = {}
        for t in {_token(a) for a in p.alts}:
            for path, word in spans.get(t, ()):
                if path != p.path and rx.match(word):
                    tally.setdefault(path, [0, 0])[word not in universe] += 1
        for path, (hit, miss) in sorted(tally.items()):
            if hit >= 3 and miss <= 0.2 * (hit + miss):
                p.ref_files.append(path)
                p.why.append(f"ref_files: {path} has {hit} backticked {p.name} keys" + (f" and {miss} naming none (reported)" if miss else "") + ".")


# --- proposing ----------------------------------------------------------------


def _prose_logs(paths: list[str], hist, proposals: list[Proposal], skipped: list[str]) -> None:
    """A `[[log]]` for each file of dated prose whose history shows entries appended at its end."""
    for path in paths:
        found = _prose_log(path, hist.of(path))
        if found:
            proposals.append(found)
        else:
            h = hist.of(path)
            skipped.append(f"{path}: dated prose, but {h.appends} of the {h.seen} changes read appended at its end, {h.entries} of them dated entries: no log")


def propose(root: Path, say=lambda msg: None) -> tuple[list[Proposal], list[str]]:
    """Proposals for the markdown files under ``root``, and the files left out (with why)."""
    data = _read_all(root)
    hist = inithistory.read(root)
    docs: dict[str, model.Document] = {}
    unread: list[str] = []
    for path, text in data.items():
        if _not_maintained(path):
            continue
        if b"|" in text and _DELIMITER.search(text):
            try:
                docs[path] = model.parse(text)
            except model.Unmodelable as exc:
                unread.append(f"{path}: not modelled ({exc})")
    docs = {p: d for p, d in docs.items() if d.tables}
    unmodelled = {u.split(": ", 1)[0] for u in unread}
    prose = [p for p, text in data.items() if p not in docs and p not in unmodelled and _dated_prose(p, text, hist)]
    inithistory.measure(root, hist, [p for p in docs if not hist.frozen(p)] + prose)
    wanted = [sample for path in docs for sample in hist.of(path).samples[1:]]
    versions = inithistory.read_versions(root, wanted)
    proposals: list[Proposal] = []
    skipped: list[str] = unread
    taken: set[str] = set()
    retired = [path for path in data if "retired" in Path(path).name.lower()]
    for path, doc in docs.items():
        if path in retired:
            skipped.append(f"{path}: a list of retired keys")
            continue
        found, why = _record_or_log(path, doc, hist, versions, taken)
        if found:
            proposals.append(found)
        elif why:
            skipped.append(why)
    _prose_logs(prose, hist, proposals, skipped)
    _references(proposals)
    for p in proposals:
        log = _log_evidence(hist.of(p.path)) if p.kind == "drop" and not initkeys.options_table(docs[p.path]) else None
        if log and not _describes(p.path) and not hist.frozen(p.path):
            found = _log_proposal(p.path, hist.of(p.path), docs[p.path], log, "; " + p.why[0].split(": ", 1)[1])
            p.kind, p.why = "log", found.why
    skipped += [p.why[0] for p in proposals if p.kind == "drop"]
    proposals = [p for p in proposals if p.kind != "drop"]
    records = [p for p in proposals if p.kind == "record"]
    _patterns(records)
    _more_patterns(records)
    keyed = {p.path: _finish(p, data[p.path], hist, versions, taken) for p in records}
    for p in records:
        twice = sorted({k for k in p.keys if p.keys.count(k) > 1})
        if twice:  # group labels the record model reads as keys (no key_pattern tells them apart)
            skipped.append(f"{p.path}: the record model would read {twice[0]!r} twice under key {p.key!r}")
            proposals.remove(p)
            del keyed[p.path]
    records = [p for p in records if p.path in keyed]
    archived = {path for path in data if (hist.frozen(path) or "").startswith("it sits under")}
    _retired(records, {path: data[path] for path in retired})
    _refs(records, keyed, data, archived | set(retired))
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


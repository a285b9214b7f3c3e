"""`mergedrv init`: propose a starter `.mergedrv.toml` from the repository's markdown.

A file whose tables hold a column of stable IDs (mostly unique, shaped like
PREFIX-..., often backticked) becomes a `[[record]]`; a keyless table that only
ever grew at its end becomes a `[[log]]`.  Every proposal is explained in a comment.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .. import model
from ..git import GitError, git_or_none, toplevel

ID_SHAPE = re.compile(r"^[A-Z][A-Z0-9]*(?:[-_][A-Za-z0-9.]+)+$")
KEY_CHARS = "[A-Za-z0-9_.-]+"
MIN_ID_SHARE = 0.8  # of a column's cells that must look like IDs
MIN_UNIQUE_SHARE = 0.9  # of those IDs that must be distinct
MAX_FILE = 5_000_000
HISTORY = 30  # commits of a log candidate's history read
APPEND_WORDS = re.compile(r"append[- ]only|\bledger\b|\bchangelog\b|\bjournal\b", re.I)


@dataclass(slots=True)
class Column:
    """One header name of one file, summed over the tables that have it."""

    header: str  # as written, markup stripped
    name: str  # normalized
    cells: int = 0
    ids: list[str] = field(default_factory=list)
    backticked: int = 0
    tables: int = 0
    first: bool = False  # the first column of some table

    def share(self) -> float:
        return len(self.ids) / self.cells if self.cells else 0.0

    def unique(self) -> float:
        return len(set(self.ids)) / len(self.ids) if self.ids else 0.0


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


def body_cells(doc: model.Document, table: model.Table) -> list[list[bytes]]:
    """The cells of every body line of a table parsed without a key."""
    lines = [line for row in table.rows for line in row.lines] if table.rows else table.preamble
    return [model.split_cells(line, table.column).cells for line in lines if b"|" in line[table.column :]]


def columns_of(doc: model.Document) -> dict[str, Column]:
    out: dict[str, Column] = {}
    for table in doc.tables:
        header = model.split_cells(table.header, table.column).cells
        rows = body_cells(doc, table)
        for i, name in enumerate(table.columns):
            if not name:
                continue
            text = re.sub(r"[`*_]", "", header[i].decode("utf-8", "replace")).strip()
            col = out.setdefault(name, Column(text, name))
            col.tables += 1
            col.first = col.first or i == 0
            for cells in rows:
                if i >= len(cells) or not cells[i].strip():
                    continue
                col.cells += 1
                key = model.clean_key(cells[i])
                if ID_SHAPE.match(key):
                    col.ids.append(key)
                    col.backticked += cells[i].strip().startswith(b"`")
    return out


def key_column(doc: model.Document) -> Column | None:
    """The column of stable IDs with the most rows, or None."""
    fits = [
        c
        for c in columns_of(doc).values()
        if len(c.ids) >= 2 and c.share() >= MIN_ID_SHARE and c.unique() >= MIN_UNIQUE_SHARE
    ]
    if not fits:
        return None
    return max(fits, key=lambda c: (len(c.ids), c.first, c.name in ("id", "key")))


def _escape(text: str) -> str:
    """Regex-escape ``text``, leaving the dashes of an ID readable."""
    return re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", text)


def key_pattern(keys: list[str]) -> tuple[str, list[str]]:
    """A regex for the keys: their shared leading segments, then any key characters.

    Returns the pattern and the keys it does not match.
    """
    heads = Counter(k.split("-")[0] for k in keys).most_common(1)
    if heads and heads[0][1] >= MIN_ID_SHARE * len(keys):  # a few odd keys do not shape the pattern
        keys_ = [k for k in keys if k.split("-")[0] == heads[0][0]]
    else:
        keys_ = keys
    parts = [k.split("-") for k in keys_]
    prefix: list[str] = []
    for segs in zip(*[p[:-1] for p in parts]):
        if len(set(segs)) != 1:
            break
        prefix.append(segs[0])
    if prefix:
        pattern = "^" + _escape("-".join(prefix)) + "-" + KEY_CHARS + "$"
    else:
        pattern = "^[A-Z][A-Z0-9]*[-_]" + KEY_CHARS + "$"
    rx = re.compile(pattern)
    return pattern, [k for k in keys if not rx.match(k)]


# --- history ------------------------------------------------------------------


def versions(root: Path, path: str) -> list[tuple[str, bytes]]:
    """(commit, content) of ``path``, oldest first, then the working tree if it differs."""
    log = git_or_none(root, "log", f"-{HISTORY}", "--format=%h", "--", path) or b""
    out = []
    for sha in reversed(log.decode().split()):
        data = git_or_none(root, "show", f"{sha}:{path}")
        if data is not None:
            out.append((sha, data))
    current = (root / path).read_bytes()
    if not out or out[-1][1] != current:
        out.append(("working tree", current))
    return out


def _log_rows(data: bytes) -> list[list[bytes]] | None:
    try:
        doc = model.parse(data, log=True)
    except model.Unmodelable:
        return None
    return [[row.lines[0].rstrip() for row in t.rows] for t in doc.tables]


def append_only(history: list[tuple[str, bytes]]) -> tuple[int, str | None]:
    """(how many versions grew at the end, the first version that changed rows otherwise)."""
    grew = 0
    before = None
    for sha, data in history:
        rows = _log_rows(data)
        if rows is None:
            return grew, sha
        if before is not None:
            if len(rows) != len(before):
                return grew, sha
            for old, new in zip(before, rows):
                if new[: len(old)] != old:
                    return grew, sha
            grew += any(len(n) > len(o) for o, n in zip(before, rows))
        before = rows
    return grew, None


# --- proposing ----------------------------------------------------------------


def markdown_files(root: Path) -> list[str]:
    out = git_or_none(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "*.md", "*.markdown")
    if out is None:
        return []
    names = sorted({p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p})
    return [n for n in names if (root / n).is_file() and (root / n).stat().st_size <= MAX_FILE]


def _name_for(pattern: str, path: str, taken: set[str]) -> str:
    m = re.match(r"\^([A-Za-z0-9]+)", pattern.replace("\\", ""))
    base = (m.group(1) if m and not pattern.startswith("^[") else Path(path).stem).upper()
    base = re.sub(r"[^A-Z0-9]+", "_", base).strip("_") or "RECORD"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def propose_record(path: str, doc: model.Document, col: Column, taken: set[str]) -> Proposal:
    keyed = model.parse(doc.render(), key=col.header)
    keys = [row.key for row in keyed.rows()]
    pattern, odd = key_pattern([k for k in keys if ID_SHAPE.match(k)])
    tables = sum(1 for t in keyed.keyed_tables() if t.rows)
    why = [
        f"{path}: {len(keys)} rows in {tables} table{'s' * (tables != 1)} keyed by column {col.header!r}"
        + (" (all backticked)" if col.backticked == len(col.ids) == len(keys) else "")
        + ".",
        f"Keys match {pattern}" + (f" except {', '.join(odd[:5])}{' …' if len(odd) > 5 else ''}" if odd else "") + ".",
    ]
    counts = Counter(keys)
    twice = [k for k, n in counts.items() if n > 1]
    if twice:
        lines = {k: [r.line + 1 for r in keyed.rows() if r.key == k] for k in twice[:3]}
        shown = "; ".join(f"{k} (lines {', '.join(map(str, v))})" for k, v in lines.items())
        why.append(f"Defined twice now, which keys-unique will report: {shown}{' …' if len(twice) > 3 else ''}.")
    known = set(keys)
    refs = [
        c
        for c in columns_of(doc).values()
        if c.name != col.name and len(c.ids) >= 2 and len(c.ids) == c.cells and set(c.ids) <= known
    ]
    if refs:
        shown = ", ".join(f"{c.header!r} ({len(c.ids)} cells)" for c in refs)
        why.append(f"refs: every cell of {shown} names an existing key; the refs check keeps it so.")
    why.append("pin is the current row count: the ratchet check refuses a commit that changes the count without moving it.")
    return Proposal("record", path, why, _name_for(pattern, path, taken), col.header, pattern, len(keys), [c.header for c in refs])


def propose_log(root: Path, path: str, doc: model.Document) -> Proposal | None:
    if not doc.tables:
        return None
    history = versions(root, path)
    grew, broke = append_only(history)
    text = doc.render()[:4000].decode("utf-8", "replace")
    titled = bool(APPEND_WORDS.search(" ".join(t for _, t in doc.headings[:3]) + " " + text[:600]))
    if broke is None and grew:
        why = f"{path}: no ID column; in {len(history)} versions its table only grew at the end: an append-only log."
    elif titled and broke is None:
        why = f"{path}: no ID column, and it calls itself append-only; history has no growth to confirm it yet."
    elif titled:
        why = (f"{path}: no ID column, and it calls itself append-only, but version {broke} changed or inserted rows"
               " above the end; the log-append-only check will refuse that from now on.")
    else:
        return None
    return Proposal("log", path, [why, "Merges keep the base rows, then ours' appended rows, then theirs'."])


def propose(root: Path, say=lambda msg: None) -> tuple[list[Proposal], list[str]]:
    """Proposals for every markdown file under ``root``, and the files skipped."""
    proposals: list[Proposal] = []
    skipped: list[str] = []
    taken: set[str] = set()
    for path in markdown_files(root):
        data = (root / path).read_bytes()
        if b"|" not in data:
            continue
        try:
            doc = model.parse(data)
        except model.Unmodelable as exc:
            say(f"{path}: skipped: {exc}")
            continue
        if not doc.tables:
            continue
        col = key_column(doc)
        found = propose_record(path, doc, col, taken) if col else propose_log(root, path, doc)
        if found:
            proposals.append(found)
        else:
            skipped.append(path)
    return proposals, skipped


def _toml_str(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _toml_regex(pattern: str) -> str:
    return f"'{pattern}'" if "'" not in pattern and "\n" not in pattern else _toml_str(pattern)


def _comment(lines: list[str], width: int = 88) -> list[str]:
    out: list[str] = []
    for text in lines:
        line = "#"
        for word in text.split():
            if len(line) + 1 + len(word) > width and line != "#":
                out.append(line)
                line = "#"
            line += " " + word
        out.append(line)
    return out


def render(proposals: list[Proposal], skipped: list[str]) -> str:
    out = [
        "# .mergedrv.toml proposed by `mergedrv init`. Review it, then run `mergedrv install`.",
        "# Records are markdown files whose table rows carry stable IDs; logs are append-only tables.",
        "",
    ]
    for p in proposals:
        out += _comment(p.why)
        if p.kind == "record":
            out += [
                "[[record]]",
                f"name = {_toml_str(p.name)}",
                f"path = {_toml_str(p.path)}",
                f"key = {_toml_str(p.key)}",
                f"key_pattern = {_toml_regex(p.key_pattern or '')}",
                f"pin = {p.pin}",
            ]
            if p.refs:
                out.append(f"refs = [{', '.join(map(_toml_str, p.refs))}]")
        else:
            out += ["[[log]]", f"path = {_toml_str(p.path)}"]
        out.append("")
    if skipped:
        shown = ", ".join(skipped[:10]) + (f" and {len(skipped) - 10} more" if len(skipped) > 10 else "")
        out += _comment([f"Tables without a column of stable IDs, left out: {shown}."]) + [""]
    return "\n".join(out)


def run(repo: str, force: bool, stdout: bool) -> int:
    """`mergedrv init [--repo DIR] [--force] [--print]`: 0 written, 1 nothing found, 2 error."""
    from .. import config as cfgmod

    warn = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    try:
        root = Path(toplevel(repo))
    except GitError as exc:
        warn(f"mergedrv init: {exc}")
        return 2
    target = root / cfgmod.CONFIG_NAME
    if target.exists() and not force and not stdout:
        warn(f"mergedrv init: {target} already exists; keep it, or replace it with `mergedrv init --force` (see the proposal with --print)")
        return 2
    proposals, skipped = propose(root, warn)
    if not proposals:
        warn(f"mergedrv init: no markdown table in {root} holds a column of stable IDs or an append-only log; nothing written")
        return 1
    text = render(proposals, skipped)
    try:
        cfgmod.loads(text, str(target))
    except cfgmod.ConfigError as exc:  # a bug here must not leave a broken file behind
        warn(f"mergedrv init: the proposal does not load ({exc}); nothing written")
        return 2
    if stdout:
        sys.stdout.write(text)
        return 0
    from ..atomic import atomic_write

    atomic_write(str(target), text.encode("utf-8"))
    for p in proposals:
        what = f"record {p.name}: key {p.key!r}, {p.key_pattern}, pin {p.pin}" if p.kind == "record" else "log"
        print(f"  {p.path}: {what}")
    print(f"mergedrv init: wrote {target} ({len(proposals)} proposals); review it, then run `mergedrv install`")
    return 0

"""The refs check: reference columns and backticked IDs in reference files must
name keys that exist (in any record of the snapshot)."""

from __future__ import annotations

import re

from .. import model
from .. import patterns
from . import Context, conflict_keys

_WORDS = re.compile(r"[\s,;()\[\]]+")
_EMPTY = {"", "-", "—", "–", "n/a", "none", "tbd"}


def code_spans(line: str) -> list[str]:
    """The text of each `code span` of a line (an unclosed backtick opens none)."""
    parts = line.split("`")
    spans = parts[1::2]
    if len(parts) % 2 == 0:  # odd number of backticks: the last one is unclosed
        spans = spans[:-1]
    return [s.strip() for s in spans if s.strip()]


def _candidates(raw: str) -> list[str]:
    return code_spans(raw) or [w for w in _WORDS.split(raw.replace("**", "")) if w]


def _named(candidates, key_patterns: list[str], universe: set) -> set:
    """The candidates (str, or UTF-8 bytes) that look like keys (match a key
    pattern) but are none."""
    unknown = sorted({c for c in candidates if c not in universe})
    out: set = set()
    for pattern in key_patterns:
        try:
            hits = patterns.matching(pattern, unknown)
        except patterns.PatternError:
            continue  # key-format reports the pattern
        out.update(c for c, hit in zip(unknown, hits) if hit)
    return out


def _missing(ctx: Context, key: str) -> str:
    from .ratchet import retired_in

    where = retired_in(ctx, key)
    return f"{key} names no key of any record" + (f" (it is retired in {where})" if where else "")


def _columns(ctx: Context, record, files: list[str], key_patterns: list[str], universe: set[str]) -> None:
    """Reference columns: each ID a cell names must be a key."""
    wanted = {model.normalize_name(c) for c in record.refs}
    found: list[tuple[str, int, str, list[str]]] = []  # path, line, column, ids
    for path in files:
        doc = ctx.doc(path, record.key, key_pattern=record.key_pattern)
        for table in doc.tables if doc is not None else ():
            cols = [i for i, c in enumerate(table.columns) if c in wanted]
            if not cols:
                continue
            shown = [c.decode("utf-8", "replace").strip().strip("*`") for c in model.split_cells(table.header, table.column).cells]
            for n in range(table.body, table.end):
                if b"|" not in doc.lines[n][table.column :]:
                    continue
                cells = model.split_cells(doc.lines[n], table.column).cells
                for i in cols:
                    if i >= len(cells):
                        continue
                    raw = cells[i].decode("utf-8", "replace")
                    if key_patterns:
                        ids = _candidates(raw)
                    else:
                        key = model.clean_key(cells[i])
                        ids = [] if key.casefold() in _EMPTY else [key]
                    found.append((path, n + 1, shown[i] if i < len(shown) else table.columns[i], ids))
    if key_patterns:
        bad = _named([i for *_, ids in found for i in ids], key_patterns, universe)
    else:
        bad = {i for *_, ids in found for i in ids if i not in universe}
    for path, line, column, ids in found:
        for key in ids:
            if key in bad:
                ctx.add(path, line, "refs", f"{record.name}: column {column}: {_missing(ctx, key)}")


_SPAN = re.compile(rb"`([^`\n]+)`")


def _ref_files(ctx: Context, record, universe: set[str]) -> None:
    """Backticked words of a reference file that match the key pattern must be keys."""
    files = [(path, ctx.read(path) or b"") for glob in record.ref_files for path in ctx.files(glob)]
    known = {k.encode("utf-8") for k in universe}
    spans = {s for _, data in files for s in _SPAN.findall(data)}
    pattern = model.any_pattern(record.key_pattern) or ""
    prefix = patterns.required_prefix(pattern).encode("utf-8")
    if prefix:  # most code spans are not IDs: drop those that cannot match
        spans = {s for s in spans if prefix in s}
    spans = {patterns.stripped(s) for s in spans}
    bad = _named([s for s in spans if s], [pattern], known)  # matched as UTF-8 bytes
    if not bad:
        return
    for path, data in files:
        for m in _SPAN.finditer(data):
            span = patterns.stripped(m.group(1))
            if span in bad:
                key = span.decode("utf-8")
                ctx.add(path, data.count(b"\n", 0, m.start()) + 1, "refs", f"{record.name}: {_missing(ctx, key)}")


def refs(ctx: Context) -> None:
    universe: set[str] = set()
    for record in ctx.cfg.records:
        universe.update(model.shown(k) for k in ctx.keys(record))
        universe.update(model.shown(k) for k in conflict_keys(ctx, record))
    key_patterns = [p for r in ctx.cfg.records if (p := model.any_pattern(r.key_pattern))]
    for record in ctx.cfg.records:
        files = list(dict.fromkeys(ctx.files(record.path) + [p for g in record.ref_files for p in ctx.files(g)]))
        if ctx.paths is not None and not any(p in ctx.paths for p in files):
            continue
        if record.refs:
            _columns(ctx, record, ctx.files(record.path), key_patterns, universe)
        if not record.ref_files:
            continue
        if not record.key_pattern:
            ctx.add(ctx.config_path, record.line, "refs", f"{record.name}: ref_files needs key_pattern to tell which backticked words are IDs")
            continue
        _ref_files(ctx, record, universe)

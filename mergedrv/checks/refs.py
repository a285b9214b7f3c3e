"""The refs check: reference columns and backticked IDs in reference files must
name keys that exist (in any record of the snapshot)."""

from __future__ import annotations

import re

from .. import model
from . import Context, patterns

_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_WORDS = re.compile(r"[\s,;()\[\]]+")
_EMPTY = {"", "-", "—", "–", "n/a", "none", "tbd"}


def _candidates(raw: str) -> list[str]:
    spans = _CODE.findall(raw)
    if spans:
        return [s.strip() for s in spans]
    return [w for w in _WORDS.split(raw.replace("**", "")) if w]


def cell_ids(raw: str, key_patterns: list[str]) -> list[str]:
    """The IDs a reference cell names.

    With key patterns, every backticked span (or, without backticks, every
    word) that matches one of them; without, the whole cell as a key.
    """
    if not key_patterns:
        key = model.clean_key(raw.encode("utf-8"))
        return [] if key.casefold() in _EMPTY else [key]
    out = []
    for cand in _candidates(raw):
        for pattern in key_patterns:
            try:
                if patterns.search(pattern, cand) is not None:
                    out.append(cand)
                    break
            except patterns.PatternError:
                continue  # key-format reports the pattern
    return out


def _body_lines(doc: model.Document, table: model.Table):
    for n in range(table.start + 2, table.end):
        if b"|" in doc.lines[n][table.column :]:
            yield n, model.split_cells(doc.lines[n], table.column).cells


def _missing(ctx: Context, key: str) -> str:
    from .ratchet import retired_in

    where = retired_in(ctx, key)
    return f"{key} names no key of any record" + (f" (it is retired in {where})" if where else "")


def refs(ctx: Context) -> None:
    universe: set[str] = set()
    for record in ctx.cfg.records:
        universe.update(ctx.keys(record))
    all_patterns = [r.key_pattern for r in ctx.cfg.records if r.key_pattern]
    for record in ctx.cfg.records:
        files = ctx.files(record.path) + [p for g in record.ref_files for p in ctx.files(g)]
        if ctx.paths is not None and not any(p in ctx.paths for p in files):
            continue
        if record.refs:
            wanted = {model.normalize_name(c) for c in record.refs}
            for path in dict.fromkeys(files):
                doc = ctx.doc(path, record.key)
                if doc is None:
                    continue
                for table in doc.tables:
                    cols = [i for i, c in enumerate(table.columns) if c in wanted]
                    for n, cells in _body_lines(doc, table) if cols else ():
                        for i in cols:
                            if i >= len(cells):
                                continue
                            for key in cell_ids(cells[i].decode("utf-8", "replace"), all_patterns):
                                if key not in universe:
                                    ctx.add(path, n + 1, "refs", f"{record.name}: column {table.columns[i]}: {_missing(ctx, key)}")
        if not record.ref_files:
            continue
        if not record.key_pattern:
            ctx.add(ctx.config_path, record.line, "refs", f"{record.name}: ref_files needs key_pattern to tell which backticked words are IDs")
            continue
        for glob in record.ref_files:
            for path in ctx.files(glob):
                data = ctx.read(path)
                if data is None:
                    continue
                text = data.decode("utf-8", "replace")
                for n, line in enumerate(text.split("\n")):
                    if "`" not in line:
                        continue
                    for span in _CODE.findall(line):
                        key = span.strip()
                        try:
                            named = patterns.search(record.key_pattern, key) is not None
                        except patterns.PatternError:
                            break  # key-format reports the pattern
                        if named and key not in universe:
                            ctx.add(path, n + 1, "refs", f"{record.name}: {_missing(ctx, key)}")

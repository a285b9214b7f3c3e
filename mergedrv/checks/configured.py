"""config-matches: a `[[record]]` whose path names no file of the snapshot,
whose key column no table of its files has, or whose key most rows of a
table share; a `refs` column no table of its files has, a `ref_files` entry,
`retired` file or `[[log]]` path naming no file; reported at its
`.mergedrv.toml` line.
Only a snapshot that has a configuration (its own, or --config) is judged."""

from __future__ import annotations

import re

from .. import config as cfgmod
from .. import model, patterns
from ..config.validate import key_line
from ..findings import Finding
from . import Context

CHECK = "config-matches"
LEFT_OUT = " (the findings about its keys that follow from this are not listed)"


def config_matches(ctx: Context) -> None:
    """Each record's path and key columns against the snapshot checked."""
    if not ctx.cfg.records or ctx.config_data is None:
        return  # a snapshot without a configuration of its own (range mode: history older than it)
    text = ctx.config_data.decode("utf-8", "replace") if ctx.config_data is not None else ""
    where = getattr(ctx.snap, "label", "") or "the snapshot"
    _named_files(ctx, text, where)
    for record in ctx.cfg.records:
        files = ctx.files(record.path)
        if not files:
            kind = "glob" if cfgmod.is_glob(record.path) else "path"
            ctx.add(ctx.config_path, key_line(text, record.line, "path"), CHECK,
                    f"{record.name}: {kind} '{record.path}' matches no file in {where}, so none of its checks run; "
                    f"name a file git tracks (`git ls-files`), or remove the [[record]]{LEFT_OUT}")
            continue
        if ctx.paths is not None and not ctx.examined(record.path):
            continue
        if any(ctx.conflicted(p) for p in files):
            continue  # judged once the merge's conflicts are resolved
        docs = ctx.record_docs(record)
        if not docs:
            continue  # unreadable: table-shape says why
        have = {t.key_name for _, doc in docs for t in doc.keyed_tables()}
        _one_key(ctx, record, text, docs)
        _ref_columns(ctx, record, text, docs)
        if have:
            continue  # (a column that heads a table keys it; a further one may be a former name, or for tables to come)
        for column in record.key_columns():
            shown = ", ".join(path for path, _ in docs[:3]) + (f" and {len(docs) - 3} more" if len(docs) > 3 else "")
            ctx.add(ctx.config_path, key_line(text, record.line, "key"), CHECK,
                    f"{record.name}: key column '{column}' is the header of no table in {shown}, so the record has "
                    f"no keys; name a column of its table's header (matched ignoring case and markup){LEFT_OUT}")


def _named_files(ctx: Context, text: str, where: str) -> None:
    """Each `ref_files` entry and `[[log]]` path that names no file (where the
    change examined touches it: a file it deleted, or every file)."""
    def judged(pattern: str) -> bool:
        if ctx.paths is None:
            return True
        if cfgmod.is_glob(pattern):
            return any(cfgmod.glob_match(pattern, p) for p in ctx.paths)
        return pattern.lstrip("/") in ctx.paths

    for record in ctx.cfg.records:
        for entry in record.ref_files:
            if judged(entry) and not ctx.files(entry):
                ctx.add(ctx.config_path, key_line(text, record.line, "ref_files"), CHECK,
                        f"{record.name}: ref_files entry '{entry}' matches no file in {where}, so no reference in it is "
                        f"checked; name a file git tracks (`git ls-files`), or drop the entry")
        if record.retired and judged(record.retired) and not ctx.files(record.retired):
            ctx.add(ctx.config_path, key_line(text, record.line, "retired"), CHECK,
                    f"{record.name}: retired file '{record.retired}' matches no file in {where}, so no key counts as "
                    f"retired; add the file (one retired key a line), or fix the path")
    for log in ctx.cfg.logs:
        if judged(log.path) and not ctx.files(log.path):
            ctx.add(ctx.config_path, key_line(text, log.line, "path"), CHECK,
                    f"log: path '{log.path}' matches no file in {where}, so nothing checks that it only grows; "
                    f"name a file git tracks (`git ls-files`), or remove the [[log]]")


def _ref_columns(ctx: Context, record, text: str, docs) -> None:
    """A `refs` column that heads no table of the record's files (matched as
    the refs check matches it: ignoring case and markup)."""
    have = {c for _, doc in docs for t in doc.tables for c in t.columns}
    for column in record.refs:
        if model.normalize_name(column) not in have:
            ctx.add(ctx.config_path, key_line(text, record.line, "refs"), CHECK,
                    f"{record.name}: refs column '{column}' is the header of no table in {docs[0][0]}"
                    f"{f' and {len(docs) - 1} more' if len(docs) > 1 else ''}, so nothing it names is checked; "
                    f"name a column of a table's header, or drop it from refs")


def _one_key(ctx: Context, record, text: str, docs) -> None:
    """A table whose rows mostly share one key (`Table.shared_key`): its key column names no row."""
    for path, doc in docs:
        for t in doc.keyed_tables():
            shared = t.shared_key()
            if shared is not None:
                top, n = shared
                ctx.add(ctx.config_path, key_line(text, record.line, "key"), CHECK,
                        f"{record.name}: key column '{t.key_name}' holds {model.shown(top)!r} in {n} of the {len(t.rows)} rows of the table at "
                        f"{path}:{t.start + 1}, so it names no row (a link's key is its text); key the record by a column "
                        f"whose cells differ from row to row{LEFT_OUT}")
                return


_DANGLING = re.compile(r"(\S+) names no key of any record")
_NAME = re.compile(r"[^\s:]+")


def without_consequences(cfg, findings: list[Finding]) -> list[Finding]:
    """A record this check found keyless (its path matches no file, or its key
    column heads no table) makes every other finding about its keys say the
    same again: its own ratchet, rollups and references, and the references
    of other records to IDs its key_pattern matches.  Those are left out, and
    the `.mergedrv.toml` finding (which says so) is the one line to read."""
    broken = {_subject(f) for f in findings if f.check == CHECK and f.message.endswith(LEFT_OUT)}  # (a keyless record's)
    records = [r for r in cfg.records if r.name in broken]
    if not records:
        return findings
    keyed = [(r.name, p) for r, p in ((r, model.any_pattern(r.key_pattern)) for r in records) if p]
    out: list[Finding] = []
    for f in findings:
        name = _subject(f)
        dangling = _DANGLING.search(f.message) if f.check == "refs" else None
        owner = name if name in broken else _owner(keyed, dangling.group(1)) if dangling else None
        if f.check == CHECK or owner is None:
            out.append(f)
    return out


def _subject(f: Finding) -> str:
    """The record a finding's message opens with (`MODEL: ...`, `MODEL has ...`)."""
    m = _NAME.match(f.message)
    return m.group(0) if m else ""


def _owner(key_patterns: list[tuple[str, str]], key: str) -> str | None:
    """The keyless record whose key_pattern ``key`` matches, if one does."""
    for name, pattern in key_patterns:
        try:
            if patterns.matching(pattern, [key])[0]:
                return name
        except patterns.PatternError:
            continue
    return None

"""config-matches: a `[[record]]` whose path names no file of the snapshot, or
whose key column no table of its files has; reported at its `.mergedrv.toml` line.
Only a snapshot that has a configuration (its own, or --config) is judged."""

from __future__ import annotations

from .. import config as cfgmod
from ..config.validate import key_line
from . import Context

CHECK = "config-matches"


def config_matches(ctx: Context) -> None:
    """Each record's path and key columns against the snapshot checked."""
    if not ctx.cfg.records or ctx.config_data is None:
        return  # a snapshot without a configuration of its own (range mode: history older than it)
    text = ctx.config_data.decode("utf-8", "replace") if ctx.config_data is not None else ""
    where = getattr(ctx.snap, "label", "") or "the snapshot"
    for record in ctx.cfg.records:
        files = ctx.files(record.path)
        if not files:
            kind = "glob" if cfgmod.is_glob(record.path) else "path"
            ctx.add(ctx.config_path, key_line(text, record.line, "path"), CHECK,
                    f"{record.name}: {kind} '{record.path}' matches no file in {where}, so none of its checks run; "
                    f"name a file git tracks (`git ls-files`), or remove the [[record]]")
            continue
        if ctx.paths is not None and not ctx.examined(record.path):
            continue
        if any(ctx.conflicted(p) for p in files):
            continue  # judged once the merge's conflicts are resolved
        docs = ctx.record_docs(record)
        if not docs:
            continue  # unreadable: table-shape says why
        have = {t.key_name for _, doc in docs for t in doc.keyed_tables()}
        for column in record.key_columns():
            if column in have:
                continue
            shown = ", ".join(path for path, _ in docs[:3]) + (f" and {len(docs) - 3} more" if len(docs) > 3 else "")
            ctx.add(ctx.config_path, key_line(text, record.line, "key"), CHECK,
                    f"{record.name}: key column '{column}' is the header of no table in {shown}, so the record has "
                    f"no keys; name a column of its table's header (matched ignoring case and markup)")

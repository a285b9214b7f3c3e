"""The three-way keyed merge of one file (SPEC: "Merging a keyed table"), as
a list of stages, one module each; `merge_path` picks the merge for a path.

Pure: bytes in, bytes and conflicts out; nothing here touches the file
system, git's config or anything above the record model.
"""

from __future__ import annotations

import os
TYPE_CHECKING = False  # typing is not imported on the driver's path (it costs a few ms)
if TYPE_CHECKING:
    from typing import Any

from .. import model
from . import duplicates, keyless
from .duplicates import Keys
from .fallback import ancestor, hunks, text_result, trivial, virtual_base
from .match import match_tables, rows_turned_prose
from .options import Conflict, Ctx, Fallback, Markers, Options, Regions, Result
from .prose import added_apart, merge_prose
from .render import assemble, edits_landed
from .selfcheck import self_check
from .sides import Side
from .tables import merge_group

__all__ = [
    "Conflict", "Fallback", "Markers", "Options", "Result", "Side", "hunks", "merge", "merge_documents", "merge_path",
    "merge_config", "merged_pins", "options_for", "self_check", "text_result", "virtual_base",
]

CONFIG_NAME = ".mergedrv.toml"
MARK = b"\x1emergedrv-"  # the prose merge's placeholder lines and end-of-file mark start so
ENDS_APART = "both sides changed the last line differently, one only in its CR/LF ending"


def merge(base: bytes, ours: bytes, theirs: bytes, opts: Options) -> Result:
    """Merge three versions of one file; never loses either side's content."""
    quick = trivial(base, ours, theirs)
    if quick is not None and not (opts.strict_additions and ours == theirs != base):
        return Result(quick)
    if opts.key is None and not opts.log:
        return text_result(base, ours, theirs, opts.markers, None)
    given, base = base, ancestor(base, ours, theirs)  # a fallback is git's merge of what git passed
    apart = _ends_changed_apart(base, ours, theirs)
    if opts.log:
        from .prose_log import merge_prose_log

        appended = merge_prose_log(base, ours, theirs, opts.markers)
        if appended is not None:
            return appended
    if any(MARK[:1] in x and MARK in x for x in (base, ours, theirs)):  # (its rare first byte: memchr first)
        return text_result(given, ours, theirs, opts.markers, "the file contains mergedrv's placeholder text")
    try:
        docs = model.parse_many([base, ours, theirs], opts.key, opts.log, opts.key_pattern, opts.markers.size, runs=True, ragged=False)
    except model.Unmodelable as exc:
        return text_result(given, ours, theirs, opts.markers, str(exc))
    if apart and any(_ends_in_table(d) for d in docs):
        # a last line in prose is merged whole, ending included, by the
        # prose merge; a table's last row has its LF merged apart
        return text_result(given, ours, theirs, opts.markers, ENDS_APART)
    try:
        result, occ = merge_documents(docs, opts)
    except Fallback as exc:
        return text_result(given, ours, theirs, opts.markers, str(exc))
    why = self_check(docs, ours, theirs, result, opts, occ)
    if why is not None:
        return text_result(given, ours, theirs, opts.markers, f"self-check: {why}")
    if opts.counts is not None and not result.conflicts:
        from .counted import recount

        result.data = recount(result.data, opts.counts)
    elif opts.counts is not None:
        from .counted import NOTE_BESIDE, recount_conflicted

        result.data, held = recount_conflicted(result.data, opts.counts, opts.markers.size)
        if held:
            result.notes.append(f"{result.conflicts[0].line or 1}: {NOTE_BESIDE}")
    return result


def merge_documents(docs: list[model.Document], opts: Options) -> tuple[Result, list | None]:
    """The keyed merge of three parsed versions: (result, each version's rows
    by key for the self-check; None for a log).  Raises `Fallback`.  Folded
    rows (`model.Run`) that would not merge as their rows are read again
    row by row (``docs`` then holds the new versions)."""
    from .options import Unfit

    try:
        return _merge_documents(docs, opts)
    except Unfit:
        docs[:] = model.parse_many([b"".join(d.lines) for d in docs], opts.key, opts.log, opts.key_pattern, opts.markers.size, ragged=False)
        return _merge_documents(docs, opts)


def _merge_documents(docs: list[model.Document], opts: Options) -> tuple[Result, list | None]:
    o, a, b = docs
    why = o.ambiguous or a.ambiguous or b.ambiguous
    if why:
        raise Fallback(why)
    pick = (lambda d: d.tables) if opts.log else (lambda d: d.keyed_tables())
    groups = match_tables(pick(o), pick(a), pick(b))
    eol = b"\r\n" if a.lines and a.lines[0].endswith(b"\r\n") else b"\n"
    _split_added_apart((o, a, b), groups, opts, eol)
    if not opts.log:
        why = keyless.ragged_changed_on_both(groups)
        if why is not None:
            raise Fallback(why)
        keyless.prepare((o, a, b), groups)
    keys = Keys((o, a, b), groups, opts.log)
    why = None if opts.log else rows_turned_prose((o, a, b), keys.occ)
    if why is not None:
        raise Fallback(why)
    notes: list[str] = []
    plan = duplicates.plan(keys, groups, notes)
    ctx = Ctx(opts, Regions(opts.markers, eol), keys, plan, notes)
    prose = merge_prose((o, a, b), groups, opts.markers, eol)
    by_gid = {g.gid: g for g in groups}
    rendered = {gid: merge_group(by_gid[gid], ctx) for gid in prose.tables}
    duplicates.across_tables(rendered, ctx)
    edits_landed(rendered, ctx)
    return assemble(prose, rendered, (o, a, b), ctx), None if opts.log else keys.occ


def _split_added_apart(docs: tuple[model.Document, model.Document, model.Document], groups: list, opts: Options, eol: bytes) -> None:
    """A table both sides added under one heading is one table when both
    added it at the same place (its rows merge); added at different places,
    each side's stays where it put it, as git keeps both (its own group)."""
    from .match import Group

    if not any(g[Side.BASE] is None and g[Side.OURS] is not None and g[Side.THEIRS] is not None for g in groups):
        return
    for gid in added_apart(merge_prose(docs, groups, opts.markers, eol), groups):
        g = next(x for x in groups if x.gid == gid)
        groups.append(Group(max(x.gid for x in groups) + 1, None, None, g[Side.THEIRS]))
        g[Side.THEIRS] = None


def options_for(path: str | None, cfg: Any, markers: Markers, strict: bool = False, no_cell: bool = False) -> Options:
    """Merge options for ``path`` from a loaded configuration (plain text if
    undeclared or ``cfg`` is None)."""
    if cfg is None or path is None:
        return Options(markers=markers, strict_additions=strict, cell_merge=not no_cell)
    record = cfg.record_for(path)
    key = pattern = counts = None
    if record is not None:
        key, pattern = record.key, record.key_pattern
        counts = record if (record.counts or record.rollups or record.grids) else None
    log = record is None and cfg.log_for(path) is not None
    return Options(markers, key, log, strict or cfg.merge.strict_additions, (not no_cell) and cfg.merge.cell_merge, pattern, counts)


def merge_path(path: str | None, base: bytes, ours: bytes, theirs: bytes, cfg: Any, markers: Markers, strict: bool = False, no_cell: bool = False,
               added_twice: Any = None) -> Result:
    """The merge ``path`` is declared for: pins as counters for the
    configuration file itself (``added_twice(name)``: the keys of record
    ``name`` both sides added, counted once), derived counts kept out of the
    merge for a record that declares them, else the keyed, log or plain
    text merge."""
    if cfg is not None and path and os.path.basename(path) == CONFIG_NAME:
        from .counted import merge_config

        return merge_config(base, ours, theirs, markers, added_twice)
    opts = options_for(path, cfg, markers, strict, no_cell)
    if opts.counts is not None:
        from .counted import merge_counted

        return merge_counted(base, ours, theirs, opts, merge)
    return merge(base, ours, theirs, opts)


def __getattr__(name: str) -> object:
    """The counters stage, loaded only when a path needs it (pins, counts)."""
    if name in ("merge_config", "merge_counted", "merged_pins", "recount"):
        from . import counted

        return getattr(counted, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _last_line(data: bytes) -> bytes:
    """The file's last line with its ending (b"" for an empty file)."""
    cut = data.rfind(b"\n", 0, len(data) - 1) + 1
    return data[cut:]


def _ending(line: bytes) -> bytes:
    return line[len(line.rstrip(b"\r\n")):]


def _ends_in_table(doc: model.Document) -> bool:
    """The file's last line is a line of a table."""
    return bool(doc.blocks) and isinstance(doc.blocks[-1], model.Table) and doc.blocks[-1].end >= len(doc.lines)


def _ends_changed_apart(base: bytes, ours: bytes, theirs: bytes) -> bool:
    """Both sides changed the file's last line, each differently, two of
    the three versions of it differ only in how it ends (CR/LF), and one has
    no LF: git's text merge conflicts there, and the keyed merge, which
    merges the final newline of a table's last row apart, would keep one
    side's bytes of that line only."""
    l0, l1, l2 = _last_line(base), _last_line(ours), _last_line(theirs)
    if l1 == l0 or l2 == l0 or l1 == l2:
        return False
    if all(x.endswith(b"\n") for x in (l0, l1, l2)):
        return False  # each ending is then part of its line's text, merged with it
    bare = [x.rstrip(b"\r\n") for x in (l0, l1, l2) if x]  # an empty base has no last line
    return len(set(bare)) < len(bare)  # two of them differ only in CR/LF

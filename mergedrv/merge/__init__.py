"""The three-way merge of one file (docs/spec.md#merging-a-keyed-table), as a
list of stages, one module each: `merge` runs them, `merge_path` picks the
merge a path is declared for.

Bytes in, bytes and conflicts out: nothing here reads the repository, the
work tree or git's configuration itself (the pins' ``added_twice``, which
does, is the caller's).  The one process and the one write are git's text
merge (`fallback.py`: the three versions written to a temporary folder for
`git merge-file`, started through `mergedrv.spawn`).
"""

from __future__ import annotations

import os
TYPE_CHECKING = False  # typing is not imported on the driver's path (it costs a few ms)
if TYPE_CHECKING:
    from typing import Any, Callable

from .. import model
from . import duplicates, keyless
from .duplicates import Keys
from .fallback import ancestor, hunks, text_result, trivial, virtual_base
from .match import Group, match_tables, prose_turned_rows, rows_turned_prose
from .values import Conflict, Ctx, Fallback, Markers, Options, Regions, Result
from .prose import added_apart, merge_prose
from .render import assemble, edits_landed
from .selfcheck import counts_agree, self_check
from .sides import Side
from .tables import merge_group
from ..names import CONFIG_NAME

__all__ = [
    "Conflict", "Fallback", "Markers", "Options", "Result", "Side", "hunks", "merge", "merge_documents", "merge_path",
    "merge_config", "merged_pins", "options_for", "self_check", "text_result", "virtual_base",
]

MARK = b"\x1emergedrv-"  # the prose merge's placeholder lines and end-of-file mark start so
ENDS_APART = "both sides changed the last line differently, one only in its CR/LF ending"


def merge(base: bytes, ours: bytes, theirs: bytes, opts: Options) -> Result:
    """Merge three versions of one file; never loses either side's content.
    A record that declares derived counts is merged with its numbers set to
    the base's before and recounted from the merged rows after
    (`counted.merge_counted`, around the stages)."""
    if opts.counts is not None:
        from .counted import merge_counted

        return merge_counted(base, ours, theirs, opts, merge_stages)
    return merge_stages(base, ours, theirs, opts)


def merge_stages(given: bytes, ours: bytes, theirs: bytes, opts: Options, then: Callable[[Result], Result] | None = None) -> Result:
    """The stages: a shortcut (at most one side changed, plain text, a prose
    log), the parse, the merge of the three documents and the self-check of
    its result.  A stage that cannot merge the file raises `Fallback(why)`;
    the one handler here gives git's text merge of what git passed.
    ``then`` takes the keyed merge's result once it passed its self-check."""
    try:
        quick = shortcut(given, ours, theirs, opts)
        if quick is not None:
            return quick
        base = ancestor(given, ours, theirs)  # the base a criss-cross merge's inner conflicts leave
        appended = appended_log(base, ours, theirs, opts)
        if appended is not None:
            return appended
        docs = parse(base, ours, theirs, opts)
        result, occ = merge_documents(docs, opts)
        check(docs, ours, theirs, result, opts, occ)
        plain = clean_as_text(docs, given, ours, theirs, result, opts, occ)
        if plain is not None:
            return plain
        renumbered(docs, result, opts)
    except Fallback as exc:
        return text_result(given, ours, theirs, opts.markers, exc.why)
    return result if then is None else then(result)


def shortcut(base: bytes, ours: bytes, theirs: bytes, opts: Options) -> Result | None:
    """The result when at most one side changed anything (unless strict
    additions and both sides made the same change), else None; raises
    `Fallback(None)` for plain text (no key, not a log): git's merge, with
    no reason to report."""
    quick = trivial(base, ours, theirs)
    if quick is not None and not (opts.strict_additions and ours == theirs != base):
        return Result(quick)
    if opts.key is None and not opts.log:
        raise Fallback(None)
    return None


def appended_log(base: bytes, ours: bytes, theirs: bytes, opts: Options) -> Result | None:
    """A log's shortcut: a prose log both sides appended to, merged as
    bytes (`prose_log.py`); None for a log of tables, or not a log.  (Not
    named ``prose_log``: importing that submodule sets the package's name.)"""
    if not opts.log:
        return None
    from .prose_log import merge_prose_log

    return merge_prose_log(base, ours, theirs, opts.markers)


def parse(base: bytes, ours: bytes, theirs: bytes, opts: Options) -> list[model.Document]:
    """The three versions parsed (folded rows kept as runs); raises
    `Fallback` for what the keyed merge must not touch: mergedrv's own
    placeholder text, input the model cannot read (`model.Unmodelable`), or
    a last line both sides changed apart in its ending inside a table."""
    if any(MARK[:1] in x and MARK in x for x in (base, ours, theirs)):  # (its rare first byte: memchr first)
        raise Fallback("the file contains mergedrv's placeholder text")
    try:
        docs = model.parse_many([base, ours, theirs], opts.key, opts.log, opts.key_pattern, opts.markers.size, runs=True, ragged_keyless=True)
    except model.Unmodelable as exc:
        raise Fallback(str(exc)) from None
    if _ends_changed_apart(base, ours, theirs) and any(_ends_in_table(d) for d in docs):
        # a last line in prose is merged whole, ending included, by the
        # prose merge; a table's last row has its LF merged apart
        raise Fallback(ENDS_APART)
    return docs


def check(docs: list[model.Document], ours: bytes, theirs: bytes, result: Result, opts: Options, occ: list[dict[str, list[model.Row]]] | None) -> None:
    """The self-check stage: raises `Fallback` if the merged result loses a
    line a side kept, or doubles or invents a key (`selfcheck.py`)."""
    why = self_check(docs, ours, theirs, result, opts, occ)
    if why is not None:
        raise Fallback(f"self-check: {why}")


PROSE_CONFLICTS = ("table", "text")  # `render.assemble`'s: the prose merge's, around the tables


def clean_as_text(docs: list[model.Document], given: bytes, ours: bytes, theirs: bytes, result: Result, opts: Options,
                  occ: list[dict[str, list[model.Row]]] | None) -> Result | None:
    """git's text merge of the file, when the keyed result's only conflicts
    are the prose merge's and git's merge is clean and passes the same
    self-check (no key doubled or invented, no line of a side lost): never
    worse than git where the conflict is about lines, not keys.  Else None."""
    if not result.conflicts or any(c.kind not in PROSE_CONFLICTS for c in result.conflicts):
        return None
    plain = text_result(given, ours, theirs, opts.markers, None)
    if plain.conflicts or self_check(docs, ours, theirs, plain, opts, None) is not None:
        return None
    if not counts_agree(docs, plain.data, opts):
        return None  # (git kept a row a side deleted, or lost one a side added: keys decide, not lines)
    plain.fallback = "the prose around a table conflicted where git's text merge is clean"
    return plain


def renumbered(docs: list[model.Document], result: Result, opts: Options) -> None:
    """A clean keyed result's sequence column numbered 1..n again in the
    merged order, where all three versions numbered it so (`sequence.py`)."""
    if opts.sequence is not None and not result.conflicts:
        from .sequence import renumber

        result.data = renumber(docs, result.data, opts)


def merge_documents(docs: list[model.Document], opts: Options) -> tuple[Result, list[dict[str, list[model.Row]]] | None]:
    """The keyed merge of three parsed versions: (result, each version's rows
    by key for the self-check; None for a log).  Raises `Fallback`.  Folded
    rows (`model.Run`) that would not merge as their rows are read again
    row by row (``docs`` then holds the new versions)."""
    from .values import Unfit

    try:
        return _merge_documents(docs, opts)
    except Unfit:
        docs[:] = model.parse_many([b"".join(d.lines) for d in docs], opts.key, opts.log, opts.key_pattern, opts.markers.size, ragged_keyless=True)
        return _merge_documents(docs, opts)


def _merge_documents(docs: list[model.Document], opts: Options) -> tuple[Result, list[dict[str, list[model.Row]]] | None]:
    o, a, b = docs
    why = o.ambiguous or a.ambiguous or b.ambiguous
    if why:
        raise Fallback(why)
    pick: Callable[[model.Document], list[model.Table]] = (lambda d: d.tables) if opts.log else (lambda d: d.keyed_tables())
    groups = match_tables(pick(o), pick(a), pick(b))
    eol = b"\r\n" if a.lines and a.lines[0].endswith(b"\r\n") else b"\n"
    _split_added_apart((o, a, b), groups, opts, eol)
    if not opts.log:
        why = keyless.ragged_changed_on_both(groups) or keyless.ragged_keys_keyed_elsewhere((o, a, b), groups)
        if why is not None:
            raise Fallback(why)
        keyless.prepare((o, a, b), groups)
    keys = Keys((o, a, b), groups, opts.log)
    why = None if opts.log else rows_turned_prose((o, a, b), keys.occ) or prose_turned_rows((o, a, b), keys.occ)
    if why is not None:
        raise Fallback(why)
    notes: list[str] = []
    plan = duplicates.plan(keys, groups, notes, opts.per_table)
    ctx = Ctx(opts, Regions(opts.markers, eol), keys, plan, notes)
    prose = merge_prose((o, a, b), groups, opts.markers, eol)
    by_gid = {g.gid: g for g in groups}
    rendered = {gid: merge_group(by_gid[gid], ctx) for gid in prose.tables}
    duplicates.across_tables(rendered, ctx)
    edits_landed(rendered, ctx)
    return assemble(prose, rendered, (o, a, b), ctx), None if opts.log else keys.occ


def _split_added_apart(docs: tuple[model.Document, model.Document, model.Document], groups: list[Group], opts: Options, eol: bytes) -> None:
    """A table both sides added under one heading is one table when both
    added it at the same place (its rows merge); added at different places,
    each side's stays where it put it, as git keeps both (its own group)."""
    if not any(g[Side.BASE] is None and g[Side.OURS] is not None and g[Side.THEIRS] is not None for g in groups):
        return
    apart = added_apart(merge_prose(docs, groups, opts.markers, eol), groups)
    apart += _kept_apart_by_git(docs, [g for g in groups if g.gid not in apart], opts)
    for gid in apart:
        g = next(x for x in groups if x.gid == gid)
        groups.append(Group(max(x.gid for x in groups) + 1, None, None, g[Side.THEIRS]))
        g[Side.THEIRS] = None


def _kept_apart_by_git(docs: tuple[model.Document, model.Document, model.Document], groups: list[Group], opts: Options) -> list[int]:
    """The tables both sides added that git's text merge of the whole file
    keeps apart, cleanly: the prose merge sees each table as one line, so a
    side that also appended a row to the table above moved its insertion
    point, which git sees and the prose merge does not (one `git merge-file`,
    run only when both sides added a table under one heading)."""
    both = [g for g in groups if g[Side.BASE] is None and g[Side.OURS] is not None and g[Side.THEIRS] is not None]
    if not both:
        return []
    from .fallback import git_merge_file

    o, a, b = (b"".join(d.lines) for d in docs)
    merged = git_merge_file(o, a, b, opts.markers)
    if merged.conflicts != 0:
        return []  # git conflicts (or refused): the tables were added at one place
    out = []
    for g in both:
        ta, tb = g[Side.OURS], g[Side.THEIRS]
        assert ta is not None and tb is not None  # (``both``: each side added it)
        mine, theirs = b"".join(docs[Side.OURS].lines[ta.start : ta.end]), b"".join(docs[Side.THEIRS].lines[tb.start : tb.end])
        if mine != theirs and mine in merged.data and theirs in merged.data:
            out.append(g.gid)  # (the same table added by both is kept once, as the same row is)
    return out


def options_for(path: str | None, cfg: Any, markers: Markers, strict: bool = False, no_cell: bool = False) -> Options:
    """Merge options for ``path`` from a loaded configuration (plain text if
    undeclared or ``cfg`` is None)."""
    if cfg is None or path is None:
        return Options(markers=markers, strict_additions=strict, cell_merge=not no_cell)
    record = cfg.record_for(path)
    key = pattern = counts = None
    if record is not None:
        key, pattern = record.key, record.key_pattern
        counts = record if (record.rollups or record.grids or any(c.file is None for c in record.counts)) else None  # (another file's counts are not this file's)
    log = record is None and cfg.log_for(path) is not None
    opts = Options(markers, key, log, strict or cfg.merge.strict_additions, (not no_cell) and cfg.merge.cell_merge, pattern, counts)
    if record is not None:
        from ..numbering import is_numbered

        opts.sequence, opts.numbered = record.sequence, is_numbered(record)
        opts.per_table = record.key_scope == "table"
    return opts


def merge_path(path: str | None, base: bytes, ours: bytes, theirs: bytes, cfg: Any, markers: Markers, strict: bool = False, no_cell: bool = False,
               added_twice: Any = None) -> Result:
    """The merge ``path`` is declared for: pins as counters for the
    configuration file itself (``added_twice(name)``: the keys of record
    ``name`` both sides added, counted once), and the counted numbers of a
    file records' counts name (a checker's constant), derived counts kept
    out of the merge for a record that declares them, else the keyed, log
    or plain text merge."""
    if cfg is not None and path and os.path.basename(path) == CONFIG_NAME:
        from .counted import merge_config

        return merge_config(base, ours, theirs, markers, added_twice)
    counting = counted_by(path, cfg)
    if counting and path:
        from .counted import merge_counted_file

        return merge_counted_file(path, base, ours, theirs, counting, markers, added_twice)
    return merge(base, ours, theirs, options_for(path, cfg, markers, strict, no_cell))


def counted_by(path: str | None, cfg: Any) -> list[Any]:
    """The records whose counts name ``path`` (`[[record.count]] file`), when
    no record or log declares it; else none."""
    if cfg is None or not path or cfg.record_for(path) is not None or cfg.log_for(path) is not None:
        return []
    return [r for r in cfg.records if any(p.lstrip("/") == path.lstrip("/") for p in r.counted_files())]


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

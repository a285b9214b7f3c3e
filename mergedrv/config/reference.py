"""The reference of `.mergedrv.toml` (docs/configuration.md), generated from
the declarative schema: every section's keys with type, default and an example."""

from __future__ import annotations

from .schema import CHOICES, SECTIONS, Entry, Key

# What each key means and an example value (TOML), by section and key.  A key
# the schema gains without an entry here is still listed, marked undescribed
# (tests/test_docs.py refuses that, so the page never lags the schema).
DOCS: dict[tuple[str, str], tuple[str, str]] = {
    ("record", "name"): ("The record's name, unique; pins, claims and messages use it.", '"MODEL"'),
    ("record", "path"): ("The record's file, or a git-style glob: several files, one record.", '".agents/model-matrix.md"'),
    ("record", "key"): ("The key column, or several in order (`[\"Block\", \"#\"]`); each table is keyed by the first its header holds. Column names (here and in `refs`, rollups, grids and `where`) match a header ignoring case, markup (`` ` `` `*` `_`) and spacing: `&nbsp;` padding and runs of spaces count as one space (`Website` names the header `Website&nbsp; &nbsp; &nbsp;`).", '"ID"'),
    ("record", "key_pattern"): ("An RE2 pattern every key matches, or a table of one per key column; it also decides group labels and detached rows.", "'^MODEL-[A-Za-z0-9_.-]+$'"),
    ("record", "pin"): ("How many keys of `pin_column` the record holds (the ratchet; merged as a counter).", "326"),
    ("record", "pin_column"): ("The key column whose keys the pin counts (default: the first of `key`).", '"ID"'),
    ("record", "detached_rows"): ("`report`: the `detached-row` check reports each row below its table; `keep`: it does not (they stay keyed).", '"keep"'),
    ("record", "key_scope"): ("Where a key is unique: `record`, across all the record's files; `file`, within each file (a glob over a folder of meeting notes, each with its own attendee table); `table`, within each table (a list by category, where an entry may be listed under two). With `file` or `table`, `pin` and `retired` are refused (they hold the record's keys as one set); refs still name a key of any file.", '"record"'),
    ("record", "refs"): ("Columns whose ID-shaped words name keys of a record (the `refs` check).", '["Row"]'),
    ("record", "ref_files"): ("Files (globs) whose backticked words matching `key_pattern` must name keys.", '[".agents/roadmap_v1.md"]'),
    ("record", "columns"): ("Column -> RE2 pattern its cells match (the `column-format` check).", "{ State = '^(READY|DONE)$' }"),
    ("record", "retired"): ("A file listing removed keys; a key may disappear only by being listed there.", '".agents/retired-keys.md"'),
    ("record", "sequence"): ("A column that numbers each table's rows 1..n in table order: renumbered after every clean keyed merge, never a conflict or a cell change; the `sequence` check reports a table numbered otherwise.", '"#"'),
    ("record", "numbered"): ("The keys end in a number (`ADR-0013`) even where `key_pattern` does not say so (a pattern ending in digits implies it): a double definition names the next free number and `mergedrv renumber`.", "true"),
    ("record", "count"): ("`[[record.count]]`: numbers in prose that count the record's rows (below).", '[{ pattern = \'(\\d+) rows are tracked\' }]'),
    ("record", "rollup"): ("`[[record.rollup]]`: tables counting the rows grouped by one column (below).", '[{ heading = "Summary", group = "State", label = "State", count = "Rows" }]'),
    ("record", "grid"): ("`[[record.grid]]`: section grids, one row per section of the file (below).", '[{ column = "State" }]'),
    ("count", "pattern"): ("An RE2 pattern with one group around the number, searched outside the keyed tables (or in `file`); every match must be right.", "'(\\d+) architecture rows are inventoried'"),
    ("count", "where"): ("Filters rows by column: a value, a list of values (any), `!` negates, `~` searches a pattern.", '{ State = "!INVENTORIED" }'),
    ("count", "offset"): ("A constant added to the count.", "1"),
    ("count", "file"): ("Another tracked file (any text, a path inside the repository) the pattern is searched in instead of the record's: a checker's hard-coded row count, whole file, every match. `check` reports it at its line there, `fix` and the pre-commit hook rewrite and restage it.", '"scripts/check-agent-record.py"'),
    ("rollup", "heading"): ("The heading the rollup table sits under.", '"Architecture-support checklist"'),
    ("rollup", "group"): ("The record column rows are grouped by.", '"State"'),
    ("rollup", "label"): ("The rollup column naming the group.", '"State"'),
    ("rollup", "count"): ("The rollup column holding the count.", '"Rows"'),
    ("rollup", "total"): ("The label of the all-rows line.", '"Total"'),
    ("grid", "column"): ("The record column whose values head the grid's other columns.", '"State"'),
    ("grid", "heading"): ("Only the table under this heading (default: the first table with both columns).", '"Engine matrix"'),
    ("grid", "label"): ("The grid column naming the section.", '"Area"'),
    ("grid", "rows"): ("The grid column counting the section's rows.", '"Rows"'),
    ("grid", "total"): ("The label of the all-rows line.", '"Total"'),
    ("grid", "labels"): ("A section's heading -> its label in the grid, where they differ.", '{ "Engine core and scheduling" = "Engine and scheduling" }'),
    ("log", "path"): ("An append-only file (a glob too): a log table, or a prose log growing at its end.", '".agents/parity-ledger.md"'),
    ("checkpoint", "when"): ("Paths (globs from the root) whose change requires the `require` documents.", '["src/**", "CMakeLists.txt"]'),
    ("checkpoint", "require"): ("Documents every commit changing a `when` path must change too.", '["docs/STATUS.md"]'),
    ("merge", "strict_additions"): ("The same row added on both sides is a `double-definition` conflict, not kept once.", "true"),
    ("merge", "cell_merge"): ("A row both sides changed merges cell by cell; `false` makes it a conflict.", "false"),
    ("anchors", "upstream"): ("A clone of the upstream project the records cite (read by `mergedrv anchors` only).", '"../vllm"'),
    ("anchors", "pin"): ("The upstream revision the citations are checked at.", '"5559679229"'),
    ("anchors", "pin_file"): ("A file the pin is read from, by `pin_pattern`.", '".agents/upstream-sync.md"'),
    ("anchors", "pin_pattern"): ("An RE2 pattern whose group 1 is the pin, read from the first matching line of `pin_file`.", "'pinned at `([0-9a-f]{7,40})`'"),
    ("anchors", "files"): ("Markdown scanned for citations besides the `[[record]]` files.", '[".agents/specs/**/*.md"]'),
    ("anchors", "exclude"): ("Cited paths that are this project's own, not the upstream's.", '["src/**", "tests/**"]'),
    ("anchors", "show"): ("Row columns printed beside each finding.", '["State"]'),
}

INTRO = """\
<!-- Generated from mergedrv/config/schema.py by scripts/config_reference.py; do not edit by hand. -->
# Configuration: `.mergedrv.toml`

`.mergedrv.toml` at the root of the repository says which markdown files are
records and logs, and what checks them. `mergedrv init` proposes one; every
path in it is relative to the repository's top and stays inside it (see
[untrusted configuration](spec.md#untrusted-configuration)). An error names the
line: `.mergedrv.toml:LINE: what; fix` (exit 2).

Sections: {toc}.
"""

_TYPES = {str: "string", int: "integer", bool: "boolean", list: "array", dict: "table"}


def type_name(key: Key) -> str:
    """The TOML type of a key, as the reference shows it."""
    types = key.type if isinstance(key.type, tuple) else (key.type,)
    if key.sub is not None:
        return "array of tables"
    return " or ".join(_TYPES.get(t, t.__name__) for t in types)


def default_text(section: str, key: Key) -> str:
    if key.required:
        return "required"
    if key.default is None:
        return "none"
    if isinstance(key.default, bool):
        return f"`{str(key.default).lower()}`"
    if isinstance(key.default, str):
        return f'`"{key.default}"`'
    if key.default in ([], {}):
        return "empty"
    return f"`{key.default}`"


def header(name: str, entry: type[Entry], many: bool) -> str:
    return f"[[{entry.HEADER}]]" if many else f"[{entry.HEADER}]"


def sections() -> list[tuple[type[Entry], bool]]:
    """Each section, then the sub-tables its keys hold, in schema order."""
    out: list[tuple[type[Entry], bool]] = []
    for entry, many in SECTIONS.values():
        out.append((entry, many))
        out += [(k.sub, True) for k in entry.KEYS if k.sub is not None]
    return out


def section_text(entry: type[Entry], many: bool) -> list[str]:
    head = header(entry.SECTION, entry, many)
    doc = (entry.__doc__ or "").strip().split("\n\n")[0].replace("``", "`")
    lines = [f"## `{head}`", "", " ".join(doc.split()), "", "| key | type | default | example | meaning |", "|---|---|---|---|---|"]
    example = [head] if entry.HEADER == entry.SECTION else [f"# inside a [[{entry.HEADER.split('.')[0]}]]", head]
    for key in entry.KEYS:
        meaning, value = DOCS.get((entry.SECTION, key.name), ("(not described yet)", ""))
        choices = CHOICES.get((entry.SECTION, key.name))
        if choices:
            meaning += " One of: " + ", ".join(f"`{c}`" for c in choices) + "."
        shown = f"`{value}`".replace("|", "\\|") if value else ""
        lines.append(f"| `{key.name}` | {type_name(key)} | {default_text(entry.SECTION, key)} | {shown} | {meaning.replace('|', chr(92) + '|')} |")
        if value and key.sub is None:
            example.append(f"{key.name} = {value}")
    lines += ["", "```toml", *example, "```", ""]
    return lines


def anchor(entry: type[Entry], many: bool) -> str:
    """The GitHub anchor of a section's heading."""
    text = header(entry.SECTION, entry, many)
    return "".join(c for c in text.lower() if c.isalnum() or c in "-_ ").replace(" ", "-")


def reference() -> str:
    """docs/configuration.md, as the schema declares it."""
    parts = sections()
    toc = ", ".join(f"[`{header(e.SECTION, e, m)}`](#{anchor(e, m)})" for e, m in parts)
    lines = [INTRO.format(toc=toc)]
    for entry, many in parts:
        lines += section_text(entry, many)
    return "\n".join(lines).rstrip("\n") + "\n"

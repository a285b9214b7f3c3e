"""Findings a change introduces, and the ones it inherited from its parent(s).

The rule range mode uses: a finding a parent already had (the same problem,
moved by a line shift: `findings.shape`) is inherited, and does not block a
commit.  Each parent is checked with the configuration being applied, held
to its own pins (the ``pin = N`` lines of its own .mergedrv.toml, and the
column each counts; none when it had none), since pins move with the rows.
"""

from __future__ import annotations

from collections.abc import Iterable

from .. import config as cfgmod
from ..findings import Finding, shape
from ..git import Snapshot

# checks that compare a change with its parent: what they find is the change's own
DELTA = {"pin-claims", "log-append-only"}


def config_at(cfg: cfgmod.Config, snap: Snapshot, own: bool = False, data: bytes | None = None) -> cfgmod.Config:
    """``cfg`` with ``snap``'s own pins (none where its configuration has none).

    ``own``: ``snap``'s own configuration where it has one that loads and
    differs from the one that gave ``cfg`` (``data``): a change to
    `.mergedrv.toml` is judged like any other change, the parent under the
    configuration it had.  A parent without one (mergedrv being adopted) or
    with one that does not load is held to ``cfg``.
    """
    from ..pins import pin_lines

    parent_data = snap.read(cfgmod.CONFIG_NAME)
    if own and parent_data is not None and data is not None and parent_data != data:
        try:
            return cfgmod.load_bytes(parent_data)
        except (cfgmod.ConfigError, ValueError):
            pass
    data = parent_data
    pins = pin_lines(data) if data is not None else {}
    columns = None
    if data is not None and (b"pin_column" in data or any(r.pin_column for r in cfg.records)):
        columns = _pin_columns(data)
    records = [r.replace(pin=pins[r.name][1] if r.name in pins else None,
                         pin_column=columns.get(r.name, r.pin_column) if columns is not None else r.pin_column)
               for r in cfg.records]
    return cfg.replace(records=records)


def _pin_columns(data: bytes) -> dict[str, str | None] | None:
    """Each record's pin_column in ``data`` (the column a pin counts goes with
    the pin); None from a configuration that does not load."""
    try:
        parsed = cfgmod.load_bytes(data)
    except (cfgmod.ConfigError, ValueError):
        return None
    return {r.name: r.pin_column for r in parsed.records}


def mark(cfg: cfgmod.Config, found: list[Finding], parents: Iterable[Snapshot],
         only: set[str] | None, data: bytes | None = None, parses=None) -> list[Finding]:
    """``found`` with the findings a parent already had marked ``inherited``;
    ``data``, the bytes of the `.mergedrv.toml` that gave ``cfg``: a parent
    with another configuration is judged under its own (`config_at`)."""
    if not found:
        return found
    from . import CHECK_IDS, run_checks

    wanted = (set(CHECK_IDS) if only is None else set(only)) - DELTA
    wanted &= {f.check for f in found}
    if not wanted:
        return found
    known: set = set()
    for parent in parents:
        if parent is None:
            continue
        try:
            pcfg = config_at(cfg, parent, own=data is not None, data=data)
        except (cfgmod.ConfigError, ValueError):  # a parent's unreadable pins: it passes on nothing
            continue
        known |= {shape(f) for f in run_checks(pcfg, parent, None, None, wanted, parses=parses)}
    return [f.replace(inherited=True) if shape(f) in known else f for f in found]


def mark_staged(cfg: cfgmod.Config, found: list[Finding], snap: Snapshot, parent: Snapshot | None,
                only: set[str] | None, data: bytes | None, parses) -> list[Finding]:
    """`mark` for a change between two snapshots that know their blob ids (the
    staged change): the parent is checked on what the change touched alone.

    A finding the change could not have made is inherited without a look at
    the parent: it sits in a file the change did not touch, of a record none
    of whose files (nor its pin) it touched, and, for refs, names no key the
    change removed; the parent would find it as it is (the same blob, the
    same configuration but for the touched records' pins).  The others are
    compared with the parent checked on the touched files and records,
    whose untouched blobs share their parse (``parses``: `checks.Parses`).
    Anything else (the configuration changed beyond pins, a retired file
    changed, a parent without a configuration) is `mark`'s.
    """
    if not found:
        return found
    scope = _scope(cfg, snap, parent, data, parses)
    if scope is None or parent is None:
        return mark(cfg, found, [parent] if parent is not None else [], only, data, parses)
    from . import CHECK_IDS, run_checks

    wanted = (set(CHECK_IDS) if only is None else set(only)) - DELTA
    pcfg, touched, files, removed = scope
    compare = []
    out: list[Finding | None] = []
    for f in found:
        if f.check not in wanted:
            out.append(f)
            continue
        why = _touched_by(f, cfg, touched, files)
        if why is None and f.check == "refs" and any(f" {k} names no key" in f.message for k in removed()):
            out.append(f)  # a reference the change's removed key left dangling: its own
        elif why is None:
            out.append(f.replace(inherited=True))
        else:
            compare.append(f)
            out.append(None)
    if compare:
        paths = touched | {p for name in files for p in files[name]} | {cfgmod.CONFIG_NAME}
        known = {shape(f) for f in run_checks(pcfg, parent, None, None, {f.check for f in compare}, paths=paths, parses=parses)}
        marked = iter(f.replace(inherited=True) if shape(f) in known else f for f in compare)
        out = [f if f is not None else next(marked) for f in out]
    return [f for f in out if f is not None]


def _touched_by(f: Finding, cfg: cfgmod.Config, touched: set[str], files: dict[str, set[str]]) -> str | None:
    """What of the change ``f`` may come from (a touched file, a touched
    record's file or configuration lines), or None."""
    if f.path in touched and f.path != cfgmod.CONFIG_NAME:
        return f.path
    if f.path == cfgmod.CONFIG_NAME:  # a record's configuration lines: the record's own
        name = next((r.name for r in cfg.records if f.message.startswith(f"{r.name}:")), None)
        return name if name is None or name in files else None
    return next((name for name, paths in files.items() if f.path in paths), None)


def _scope(cfg: cfgmod.Config, snap: Snapshot, parent: Snapshot | None, data: bytes | None, parses):
    """(the parent's configuration, the touched files, the touched records'
    files by record name, a function giving the keys the change removed), or
    None where `mark_staged` cannot tell."""
    from ..pins import pin_lines, set_pin
    from . import Context

    ids, parent_ids = getattr(snap, "blob_id", None), getattr(parent, "blob_id", None)
    if parent is None or ids is None or parent_ids is None or data is None or parses is None:
        return None
    parent_data = parent.read(cfgmod.CONFIG_NAME)
    if parent_data is None:
        return None
    pins, parent_pins = pin_lines(data), pin_lines(parent_data)
    moved = {name for name in pins if parent_pins.get(name, (None, None))[1] != pins[name][1]}
    same = parent_data
    for name in moved:
        if name not in parent_pins or parent_pins[name][0] != pins[name][0]:
            return None
        same = set_pin(same, parent_pins[name][0], pins[name][1])
    if same != data or set(parent_pins) != set(pins):
        return None  # the configuration changed beyond its pins
    try:
        pcfg = config_at(cfg, parent, own=True, data=data)
    except (cfgmod.ConfigError, ValueError):
        return None
    ctx, pctx = Context(cfg, snap, parses=parses), Context(pcfg, parent, parses=parses)

    def both(pattern: str) -> set[str]:
        return set(ctx.files(pattern)) | set(pctx.files(pattern))

    patterns = [r.path for r in cfg.records] + [g.path for g in cfg.logs] + [p for r in cfg.records for p in r.ref_files]
    touched = {p for pattern in patterns for p in both(pattern) if ids(p) != parent_ids(p)}
    if any(ids(r.retired) != parent_ids(r.retired) for r in cfg.records if r.retired):
        return None  # what a removed key's findings say depends on them
    if ids(cfgmod.CONFIG_NAME) != parent_ids(cfgmod.CONFIG_NAME):
        touched.add(cfgmod.CONFIG_NAME)
    files: dict[str, set[str]] = {}
    for r in cfg.records:
        mine = both(r.path)
        if r.name in moved or mine & touched:
            files[r.name] = files.get(r.name, set()) | mine
    removed: list[set[str]] = []

    def keys_removed() -> set[str]:
        if not removed:
            from .refs import key_universe

            removed.append(key_universe(pctx) - key_universe(ctx) if files else set())
        return removed[0]

    return pcfg, touched, files, keys_removed


def summary(findings: list[Finding]) -> str | None:
    """One line for the inherited findings a hook does not block on (None if none)."""
    n = sum(f.inherited for f in findings)
    if not n:
        return None
    return (f"mergedrv check: {n} inherited finding{'s' if n != 1 else ''} (already in the parent commit) "
            f"not blocking; list them with `mergedrv check --all`")

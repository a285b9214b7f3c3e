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
    differs from the one that gave ``cfg`` (``data``) beyond its pins: a
    change to `.mergedrv.toml` is judged like any other change, the parent
    under the configuration it had (where only pins moved, that is ``cfg``
    with the parent's pins, read without a second parse).  A parent without one (mergedrv being adopted) or
    with one that does not load is held to ``cfg``.
    """
    from ..pins import moved_pins, pin_lines

    parent_data = snap.read(cfgmod.CONFIG_NAME)
    if own and parent_data is not None and data is not None and parent_data != data and moved_pins(data, parent_data) is None:
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


def staged_scope(cfg: cfgmod.Config, snap: Snapshot, parent: Snapshot | None, data: bytes | None, parses):
    """(the staged change's `changed.Scope`, the parent's configuration
    (`config_at`)), or (None, None) where the scope cannot tell (see
    `Scope.of`; a parent without a configuration)."""
    from .changed import Scope

    if parent is None or data is None or parent.read(cfgmod.CONFIG_NAME) is None:
        return None, None
    try:
        pcfg = config_at(cfg, parent, own=True, data=data)
    except (cfgmod.ConfigError, ValueError):
        return None, None
    scope = Scope.of(cfg, snap, parent, data, pcfg, parses)
    return (scope, pcfg) if scope is not None else (None, None)


def mark_staged(cfg: cfgmod.Config, found: list[Finding], snap: Snapshot, parent: Snapshot | None,
                only: set[str] | None, data: bytes | None, parses, scoped=None) -> list[Finding]:
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
    changed, a parent without a configuration) is `mark`'s.  ``scoped``:
    `staged_scope`'s answer, where the caller has it already.
    """
    if not found:
        return found
    scope, pcfg = scoped if scoped is not None else staged_scope(cfg, snap, parent, data, parses)
    if scope is None or parent is None or pcfg is None:
        return mark(cfg, found, [parent] if parent is not None else [], only, data, parses)
    from . import CHECK_IDS, run_checks

    wanted = (set(CHECK_IDS) if only is None else set(only)) - DELTA
    compare = []
    out: list[Finding | None] = []
    for f in found:
        if f.check not in wanted or (not scope.touches(f) and scope.dangles(f)):
            out.append(f)  # a delta check's, or a reference the change's removed key left dangling: its own
        elif not scope.touches(f):
            out.append(f.replace(inherited=True))
        else:
            compare.append(f)
            out.append(None)
    if compare:
        known = {shape(f) for f in run_checks(pcfg, parent, None, None, {f.check for f in compare}, paths=scope.paths(), parses=parses)}
        marked = iter(f.replace(inherited=True) if shape(f) in known else f for f in compare)
        out = [f if f is not None else next(marked) for f in out]
    return [f for f in out if f is not None]


def summary(findings: list[Finding], touched: bool = False) -> str | None:
    """One line for the inherited findings a hook does not block on (None if
    none); ``touched``: only what the change touched was checked (the hook's
    check of the plain staged change), so only those are counted."""
    n = sum(f.inherited for f in findings)
    if not n:
        return None
    where = " in what this change touches" if touched else ""
    return (f"mergedrv check: {n} inherited finding{'s' if n != 1 else ''}{where} (already in the parent commit) "
            f"not blocking; list {'every finding' if touched else 'them'} with `mergedrv check --all`")

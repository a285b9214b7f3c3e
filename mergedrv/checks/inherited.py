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
         only: set[str] | None, data: bytes | None = None) -> list[Finding]:
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
        known |= {shape(f) for f in run_checks(pcfg, parent, None, None, wanted)}
    return [f.replace(inherited=True) if shape(f) in known else f for f in found]


def summary(findings: list[Finding]) -> str | None:
    """One line for the inherited findings a hook does not block on (None if none)."""
    n = sum(f.inherited for f in findings)
    if not n:
        return None
    return (f"mergedrv check: {n} inherited finding{'s' if n != 1 else ''} (already in the parent commit) "
            f"not blocking; list them with `mergedrv check --all`")

"""The count ratchet and commit-message pin claims.

ratchet: a record's key count equals its ``pin``; a key may disappear only by
retirement (listed in the record's ``retired`` file); messages name the keys
added and missing against the parent, and, for a merge, what each side added.
pin-claims: a moved pin is claimed in the message as ``NAME old -> new`` on a
line of its own, and every such claim is a true move: the same size and
direction as the pin's (a claim whose numbers a rebase shifted passes, with a
note).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import config as cfgmod
from ..model.cells import namespace, shown
from ..names import normalize_name
from ..pins import ARROWS, chain_holds, claim_chains, claims, pin_lines  # noqa: F401 - claims: part of this module's face
from . import Context

_SHOWN = 8


def _names(keys, limit: int = _SHOWN) -> str:
    keys = [shown(k) for k in keys]
    text = ", ".join(keys[:limit])
    return text + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


def retired_in(ctx: Context, key: str) -> str | None:
    """The retired file (of any record) that lists ``key``, or None.

    A retired file is any text file: a key is listed when it appears in it as
    a whole word (in a table, a list or backticks).
    """
    rx = re.compile(r"(?<![\w.-])" + re.escape(key) + r"(?![\w-]|\.\w)")
    for record in ctx.cfg.records:
        if record.retired:
            data = ctx.read(record.retired)
            if data is not None and rx.search(data.decode("utf-8", "replace")):
                return record.retired
    return None


def pinned(record: cfgmod.Record, keys: dict[str, tuple[str, int]]) -> dict[str, tuple[str, int]]:
    """The keys the pin counts: those of its ``pin_column`` (the first key
    column unless the record says otherwise)."""
    cols = record.key_columns()
    if len(cols) == 1:
        return keys
    want = normalize_name(record.pin_counts())
    ns = next((c for c in cols[1:] if normalize_name(c) == want), None)
    return {k: v for k, v in keys.items() if namespace(k) == ns}


def _pin_line(ctx: Context, record: cfgmod.Record) -> int:
    if ctx.config_data is not None:
        found = pin_lines(ctx.config_data).get(record.name)
        if found is not None:
            return found[0] + 1
    return record.line


def _parent_keys(ctx: Context, record: cfgmod.Record, keys: dict[str, tuple[str, int]]) -> dict[str, tuple[str, int]]:
    files = ctx.files(record.path)
    if files == ctx.files(record.path, ctx.parent) and all(ctx.same_in_parent(p) for p in files):
        return keys  # unchanged: no second parse
    return ctx.keys(record, ctx.parent)


def _where_removed(keys: dict[str, tuple[str, int]], parent: dict[str, tuple[str, int]], key: str, fallback: tuple[str, int],
                   added: Sequence[str] = ()) -> tuple[str, int]:
    """Where ``key`` sat: a key this change added in its place (a renamed or
    rewritten row), else the current line of the next key that survived."""
    order = list(parent)
    i = order.index(key)
    before = next((keys[k] for k in reversed(order[:i]) if k in keys), None)
    after = next((keys[k] for k in order[i + 1 :] if k in keys), None)
    for new in added:
        path, line = keys[new]
        if (before is None or (path, line) > before) and (after is None or (path, line) < after):
            return path, line
    if after is not None:
        return after
    if before is not None:
        return before[0], before[1] + 1
    return fallback


def _sides_text(ctx: Context, record: cfgmod.Record) -> str:
    """For a merge: which keys each parent's side added since the merge base."""
    if len(ctx.sides) < 2 or ctx.base is None:
        return ""
    base = set(pinned(record, ctx.keys(record, ctx.base)))
    parts = []
    for side in ctx.sides:
        added = [k for k in pinned(record, ctx.keys(record, side)) if k not in base]
        parts.append(f"{side.label or 'a parent'} added {_names(added) if added else 'no key'}")
    return "; merge: " + "; ".join(parts)


def _retirements(ctx: Context, record: cfgmod.Record, keys: dict[str, tuple[str, int]], parent: dict[str, tuple[str, int]],
                 first: tuple[str, int]) -> None:
    """Each key of the parent (any key column) that is gone and not retired."""
    added = [k for k in keys if k not in parent]
    for key in [k for k in parent if k not in keys]:
        if retired_in(ctx, shown(key)) is not None:
            continue
        path, line = _where_removed(keys, parent, key, first, added)
        fix = (
            f"list it in {record.retired} or restore the row"
            if record.retired
            else "keys may only disappear by retirement: name a file with `retired = ...` under this [[record]] and list it there"
        )
        also = f" (this change adds {_names(added)})" if added else ""
        ctx.add(path, line, "ratchet", f"{record.name}: key {shown(key)} was removed (parent line {parent[key][1]}) but is not retired{also}; {fix}")


def ratchet(ctx: Context) -> None:
    for record in ctx.records():
        docs = ctx.record_docs(record)
        if not docs or (record.pin is None and not record.retired):
            continue  # (no pin, no retired file: nothing to hold its keys to)
        every = ctx.keys(record)  # every key column's keys: none may vanish unretired
        keys = pinned(record, every)  # the pin column's: the count
        first = (docs[0][0], docs[0][1].keyed_tables()[0].start + 1 if docs[0][1].keyed_tables() else 1)
        parent_every = _parent_keys(ctx, record, every) if ctx.parent is not None else None
        parent = pinned(record, parent_every) if parent_every is not None else None
        same = parent is keys  # range mode: a version whose rows were edited in place keeps its parent's keys
        added = [k for k in keys if parent is not None and k not in parent] if not same else []
        removed = [k for k in parent if k not in keys] if parent is not None and not same else []
        if (record.pin is not None or record.retired) and parent_every is not None and parent_every is not every:
            _retirements(ctx, record, every, parent_every, first)
        if record.pin is None or len(keys) == record.pin:
            continue
        why = f"{record.name} has {len(keys)} keys but its pin is {record.pin} ({ctx.config_path}:{_pin_line(ctx, record)})"
        if parent is not None:
            pcfg = ctx.parent_cfg()
            prec = pcfg.record_named(record.name) if pcfg is not None else None
            if prec is not None and prec.pin == record.pin and len(parent) != len(keys):
                why += f"; the count moved {len(parent)} -> {len(keys)} without moving the pin"
            label = f" ({ctx.parent.label})" if ctx.parent is not None and ctx.parent.label else ""
            delta = []
            if added:
                delta.append(f"added {_names(added)}")
            if removed:
                delta.append(f"missing {_names(removed)}")
            why += f"; against the parent{label}: " + ("; ".join(delta) if delta else "no key added or missing")
        why += _sides_text(ctx, record)
        if len(ctx.sides) > 1:
            why += ("; `git commit` concludes the merge with the pin set to the base plus both sides' moves (its pre-commit "
                    "hook sets it; without the hooks: `mergedrv fix`, `git add .mergedrv.toml`, `git commit`)")
        elif len(keys) > record.pin:
            why += "; `mergedrv fix` raises the pin to the count"
        if added:
            at = keys[added[0]]
        elif removed and parent is not None:  # (a key is removed only against a parent)
            at = _where_removed(keys, parent, removed[0], first, added)
        else:
            at = first
        ctx.add(at[0], at[1], "ratchet", why)


# --- pin-claims ------------------------------------------------------------------


def pin_claims(ctx: Context) -> None:
    if ctx.message is None:
        return
    pcfg = ctx.parent_cfg() if ctx.parent is not None else None
    names = [r.name for r in ctx.cfg.records] + ([r.name for r in pcfg.records] if pcfg else [])
    said = claims(ctx.message, names)
    claimed = {name for name, *_ in said}
    for record in ctx.cfg.records:
        if len(ctx.sides) > 1:
            break  # a merge moves pins by the moves its parents claimed
        prec = pcfg.record_named(record.name) if pcfg is not None else None
        if prec is None or prec.pin is None or record.pin is None or prec.pin == record.pin:
            continue
        if record.name not in claimed:
            ctx.add(
                ctx.config_path,
                _pin_line(ctx, record),
                "pin-claims",
                f"{record.name} pin moved {prec.pin} -> {record.pin}, but the commit message does not say `{record.name} {prec.pin} -> {record.pin}` on a line of its own",
            )
    chains = claim_chains(said)
    for name, old, new, line in said:
        record = ctx.cfg.record_named(name)
        if record is None:
            continue
        prec = pcfg.record_named(name) if pcfg is not None else None
        if record.pin is not None:
            before = prec.pin if prec is not None and prec.pin is not None else None
            now, what = record.pin, "pin"
        else:
            before = len(pinned(record, ctx.keys(record, ctx.parent))) if ctx.parent is not None else None
            now, what = len(pinned(record, ctx.keys(record))), "key count"
        if name in chains and chain_holds(chains[name], before, now):
            continue  # (a squashed commit's message: each commit's claim, one after another, making the move)
        if (before is None or old == before) and new == now:
            continue
        if before is not None and new - old == now - before:  # the same move from another start: rebased, picked
            ctx.note(ctx.message_path, line, "pin-claims",
                     f"the message claims `{name} {old} -> {new}` and the {what} moved {before} -> {now}: the same move "
                     f"({now - before:+d}), the numbers shifted (a rebase or cherry-pick); accepted")
            continue
        claimed = f"`{name} {old} -> {new}`" + (f" ({new - old:+d})" if before is not None and old != before else "")
        if before is None:
            truth = f"the {what} is {now}"
        elif before == now:
            truth = f"the {what} stayed at {now}"
            count = len(pinned(record, ctx.keys(record))) if what == "pin" and ctx.record_docs(record) else now
            if count == now + (new - old):  # the rows moved as claimed; the pin is the one left behind
                truth += (f" while the keys moved to {count} (both branches made this move and git kept one); "
                          f"`mergedrv fix` sets the pin to {count}")
        else:
            truth = f"the {what} moved {before} -> {now}" + (f" ({now - before:+d})" if old != before else "")
        ctx.add(ctx.message_path, line, "pin-claims", f"the message claims {claimed}, but {truth}")

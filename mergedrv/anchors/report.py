"""The anchors report: text grouped by state and by record, or JSON.

Every finding line reads `file:line: check-id: KEY [shown]: `citation`: why`,
so the row that carries a stale citation is seen at once.
"""

from __future__ import annotations

import json

from .check import Change, Elsewhere, Result, State, Target
from .citations import Citation
from .definitions import Definition
from .upstream import Removal

_LABEL = {"fresh": "fresh", "stale": "stale", "file-absent": "file absent", "ambiguous": "ambiguous"}


def counts_text(counts: dict[str, int]) -> str:
    """`checked 389 (fresh 372, stale 6, file absent 11)`; ambiguous only if any."""
    parts = [f"{_LABEL[s]} {n}" for s, n in counts.items() if n or s != "ambiguous"]
    return f"checked {sum(counts.values())} ({', '.join(parts)})"


def exit_code(result: Result) -> int:
    """0 when every citation is fresh at the pin, 1 otherwise."""
    return 0 if all(result.at_pin[c.target].ok for c in result.citations) else 1


# --- text ---------------------------------------------------------------------


def text(result: Result) -> str:
    pin, to = result.pin, result.to
    out = [f"upstream {result.upstream}"]
    out.append(f"  pin {pin.label}: {counts_text(result.counts(result.at_pin))}")
    if to is None:
        for state in STATES_NOT_FRESH:
            group = [c for c in result.citations if result.at_pin[c.target].state == state]
            _section(out, f"{_LABEL[state]} at {pin.short}", group, lambda c, s=state: _line(c, f"anchor-{s}", _single(result, c)))
    else:
        out.append(f"  to  {to.label}: {counts_text(result.counts(result.at_to))}")
        kinds = {k: [c for c in result.citations if result.changes[c.target].change == k] for k in ("newly-stale", "repaired", "unchanged")}
        still = [c for c in kinds["unchanged"] if not result.at_to[c.target].ok]
        out.append(f"  delta: {len(kinds['newly-stale'])} newly stale, {len(kinds['repaired'])} repaired, {len(kinds['unchanged'])} unchanged ({len(still)} of them stale at both)")
        _section(out, "newly stale", kinds["newly-stale"], lambda c: _line(c, "anchor-newly-stale", _newly_stale(result, c)))
        _removed_by_commit(out, result)
        _section(out, "repaired", kinds["repaired"], lambda c: _line(c, "anchor-repaired", _repaired(result, c)))
        _section(out, "stale at both", still, lambda c: _line(c, "anchor-still-stale", _single(result, c, to_side=True)))
        moved = [c for c in result.citations if result.changes[c.target].line_status == "moved"]
        changed = [c for c in result.citations if result.changes[c.target].line_status == "changed" and result.at_pin[c.target].ok]
        _section(out, "moved lines", moved, lambda c: _line(c, "anchor-line-moved", _moved(result, c)))
        _section(out, "changed lines", changed, lambda c: _line(c, "anchor-line-changed", f"the cited text is no longer in {result.at_to[c.target].path or c.path} at {to.short}"))
    _by_name(out, result)
    return "\n".join(out) + "\n"


STATES_NOT_FRESH = ("stale", "file-absent", "ambiguous")


def _section(out: list[str], title: str, cites: list[Citation], render) -> None:
    """A titled group of findings, sub-grouped by record (or file)."""
    if not cites:
        return
    out.append("")
    out.append(f"{title} ({len(cites)})")
    groups: dict[str, list[Citation]] = {}
    for c in cites:
        groups.setdefault(c.record or c.file, []).append(c)
    for name, group in groups.items():
        if len(groups) > 1 or group[0].record:
            out.append(f"  {name}")
        for c in sorted(group, key=lambda c: (c.file, c.line)):
            out.append("    " + render(c))


def _line(c: Citation, check: str, why: str) -> str:
    who = ""
    if c.key:
        who = f"{c.key} [{c.shown}]: " if c.shown else f"{c.key}: "
    return f"{c.file}:{c.line}: {check}: {who}`{c.text}`: {why}"


def _single(result: Result, c: Citation, to_side: bool = False) -> str:
    state = (result.at_to if to_side else result.at_pin)[c.target]
    why = state.detail
    where = result.elsewhere.get(c.target)
    if where is not None:
        why += "; " + _where(where, c)
    elif state.others:
        why += "; in this file only as " + ", ".join(f"{d.describe()} (line {d.line})" for d in state.others[:4])
    return why


def _newly_stale(result: Result, c: Citation) -> str:
    new = result.at_to[c.target]
    change = result.changes[c.target]
    why = new.detail
    if change.removal is not None:
        why = f"{change.removal.path} {change.removal.describe()}"
    elif new.state == "file-absent":
        why += "; no removing commit found in pin..to"
    where = result.elsewhere.get(c.target)
    if where is not None:
        why += "; " + _where(where, c)
    if change.line_status == "moved":
        why += f"; {_moved(result, c)}"
    return why


def removals_by_commit(result: Result) -> list[dict]:
    """The removed files grouped by the commit that removed them, with the
    carriers (row keys, or file:line) of the citations each removal hits."""
    groups: dict[str, dict] = {}
    for c in result.citations:
        change = result.changes.get(c.target)
        if change is None or change.removal is None:
            continue
        r = change.removal
        group = groups.setdefault(r.commit, {"commit": r.commit, "short": r.short, "subject": r.subject, "files": {}})
        entry = group["files"].setdefault(r.path, {"path": r.path, "renamed_to": r.renamed_to, "now_at": r.final, "cited_by": []})
        if c.carrier not in entry["cited_by"]:
            entry["cited_by"].append(c.carrier)
    return [{**g, "files": list(g["files"].values())} for g in groups.values()]


def _removed_by_commit(out: list[str], result: Result) -> None:
    groups = removals_by_commit(result)
    if not groups:
        return
    out.append("")
    out.append(f"removed files by commit ({sum(len(g['files']) for g in groups)} files, {len(groups)} commits)")
    for g in groups:
        out.append(f"  {g['short']} \"{g['subject']}\"")
        for f in g["files"]:
            what = f"renamed {f['path']} -> {f['renamed_to']}" if f["renamed_to"] else f"deleted {f['path']}"
            if f["renamed_to"] and f["now_at"] and f["now_at"] != f["renamed_to"]:
                what += f" (now {f['now_at']})"
            out.append(f"    {what}: cited by {', '.join(f['cited_by'])}")


def _repaired(result: Result, c: Citation) -> str:
    old, new = result.at_pin[c.target], result.at_to[c.target]
    assert result.to is not None  # (repaired: between the pin and --to)
    now = f"fresh at {result.to.short}"
    if new.found:
        now += " (" + ", ".join(f"{new.path}:{d.line}" for d in new.found[:3]) + ")"
    return f"{_LABEL[old.state]} at {result.pin.short} ({old.detail}) -> {now}"


def _moved(result: Result, c: Citation) -> str:
    change = result.changes[c.target]
    lines = c.target[2]
    assert lines is not None  # (a line citation's lines moved)
    first = lines[0]
    dest = f"{change.line_path}:{change.line_now}" if change.line_path else f":{change.line_now}"
    return f"cited text moved {c.path.rsplit('/', 1)[-1]}:{first} -> {dest}"


def _where(where: Elsewhere, c: Citation) -> str:
    if not where.places:
        text = f"no definition of {c.symbol} anywhere at this revision"
    else:
        shown = ", ".join(f"{p}:{d.line} ({d.describe()})" for p, d in where.places[:8])
        more = f" and {where.total - 8} more" if where.total > 8 else ""
        verdict = "moved: now at" if where.moved else "not moved: the name is defined only as"
        text = f"{verdict} {shown}{more}"
    if where.added:
        text += "; new here since the pin: " + ", ".join(f"{d.qualname} ({d.kind}, line {d.line})" for d in where.added[:5])
    return text


def _by_name(out: list[str], result: Result) -> None:
    """Paths resolved by a unique file name, said once per path."""
    seen: dict[tuple[str, str | None], int] = {}  # (the path a by-name resolution found)
    for c in result.citations:
        for states in (result.at_pin, result.at_to):
            state = states.get(c.target)
            if state is not None and state.resolution.how == "by-name":
                seen[(c.path, state.path)] = seen.get((c.path, state.path), 0) + (states is result.at_pin)
    if not seen:
        return
    out.append("")
    out.append(f"resolved by file name ({len(seen)})")
    for (cited, path), n in sorted(seen.items()):
        out.append(f"    {cited} -> {path}" + (f" ({n} citations)" if n > 1 else ""))


# --- JSON ---------------------------------------------------------------------


def as_json(result: Result) -> str:
    doc = {
        "upstream": result.upstream,
        "pin": _rev(result.pin, result.counts(result.at_pin)),
        "to": _rev(result.to, result.counts(result.at_to)) if result.to else None,
        "delta": None,
        "removals": removals_by_commit(result) if result.to else None,
        "citations": [_citation(result, c) for c in result.citations],
    }
    if result.to is not None:
        delta = {"newly-stale": 0, "repaired": 0, "unchanged": 0}
        for c in result.citations:
            delta[result.changes[c.target].change] += 1
        doc["delta"] = delta
    return json.dumps(doc, ensure_ascii=False) + "\n"  # compact: the C encoder, ~10x faster than indent


def _rev(rev, counts: dict[str, int]) -> dict:
    return {"rev": rev.rev, "commit": str(rev.commit.id), "checked": sum(counts.values()), "counts": counts}


def _citation(result: Result, c: Citation) -> dict:
    t: Target = c.target
    out = {
        "file": c.file,
        "line": c.line,
        "text": c.text,
        "path": c.path,
        "symbol": c.symbol,
        "lines": list(c.lines) if c.lines else None,
        "record": c.record,
        "key": c.key,
        "shown": c.shown or None,
        "pin": _state(result.at_pin[t]),
        "to": _state(result.at_to[t]) if result.to else None,
        "change": None,
        "removal": None,
        "line_move": None,
        "defined_at": None,
    }
    change: Change | None = result.changes.get(t)
    if change is not None:
        out["change"] = change.change
        out["removal"] = _removal_json(change.removal)
        if change.line_status:
            lines = t[2]
            assert lines is not None  # (a line status: a line citation's)
            out["line_move"] = {"status": change.line_status, "from": lines[0], "to": change.line_now, "path": change.line_path}
    where = result.elsewhere.get(t)
    if where is not None:
        out["defined_at"] = {
            "moved": where.moved,
            "total": where.total,
            "places": [_definition(p, d) for p, d in where.places],
            "added_in_file": [_definition(None, d) for d in where.added],
        }
    return out


def _state(state: State) -> dict:
    return {
        "state": state.state,
        "resolved": state.path,
        "how": state.resolution.how,
        "candidates": state.resolution.candidates or None,
        "detail": state.detail or None,
        "definitions": [_definition(state.path, d) for d in state.found],
        "same_name": [_definition(state.path, d) for d in state.others],
    }


def _definition(path: str | None, d: Definition) -> dict:
    out = {"qualname": d.qualname, "kind": d.kind, "method": d.kind == "method", "describe": d.describe(), "line": d.line}
    if d.namespace:
        out["namespace"] = d.namespace
    if path is not None:
        out = {"path": path, **out}
    return out


def _removal_json(removal: Removal | None) -> dict | None:
    if removal is None:
        return None
    return {
        "path": removal.path,
        "commit": removal.commit,
        "subject": removal.subject,
        "renamed_to": removal.renamed_to,
        "then": _removal_json(removal.then),
        "now_at": removal.final,
    }


def render(result: Result, fmt: str) -> str:
    return as_json(result) if fmt == "json" else text(result)


def progress(total: int):
    """A transient rich progress bar on stderr; returns (context, step)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.console import Console

    bar = Progress(TextColumn("anchors"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=Console(stderr=True), transient=True)
    task = bar.add_task("checking", total=total)
    return bar, lambda: bar.advance(task)

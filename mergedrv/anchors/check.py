"""Classify citations at a revision, and the delta between two revisions.

States: fresh, stale (file present, symbol absent or line beyond the end),
file-absent, ambiguous (the cited file name matches several files).  The
delta says which citations became stale, which were repaired, who removed a
file, where a symbol is defined now, and where a cited line went.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .citations import Citation
from .definitions import Definition, language, split_symbol
from .upstream import Removal, Resolution, Revision, Upstream

STATES = ("fresh", "stale", "file-absent", "ambiguous")
PLACES = 50  # definitions listed per stale citation, at most
Target = tuple[str, str | None, tuple[int, int] | None]


@dataclass(slots=True)
class State:
    """A citation's state at one revision."""

    state: str  # one of STATES
    resolution: Resolution
    detail: str = ""  # why, in one line
    found: list[Definition] = field(default_factory=list)  # what the symbol names
    others: list[Definition] = field(default_factory=list)  # same name, not what it names
    text: list[str] | None = None  # the cited lines' text (line citations)

    @property
    def path(self) -> str | None:
        return self.resolution.path

    @property
    def ok(self) -> bool:
        return self.state == "fresh"


@dataclass(slots=True)
class Change:
    """What happened to one target between the pin and ``--to``."""

    change: str  # newly-stale, repaired, unchanged
    removal: Removal | None = None  # the commit that removed the cited file
    line_status: str | None = None  # same, moved, changed (line citations)
    line_now: int | None = None  # where the cited text starts now
    line_path: str | None = None  # the file the text was found in, if renamed


@dataclass(slots=True)
class Elsewhere:
    """Where a stale symbol is defined at the newest revision examined."""

    places: list[tuple[str, Definition]] = field(default_factory=list)  # at most PLACES
    moved: bool = False  # a definition of the same qualified name exists elsewhere
    total: int = 0  # how many places there are in all
    added: list[Definition] = field(default_factory=list)  # new definitions in the cited file


@dataclass(slots=True)
class Result:
    """Everything the report shows."""

    upstream: str
    pin: Revision
    to: Revision | None
    citations: list[Citation]
    at_pin: dict[Target, State]
    at_to: dict[Target, State] = field(default_factory=dict)
    changes: dict[Target, Change] = field(default_factory=dict)
    elsewhere: dict[Target, Elsewhere] = field(default_factory=dict)

    def counts(self, states: dict[Target, State]) -> dict[str, int]:
        out = {s: 0 for s in STATES}
        for c in self.citations:
            out[states[c.target].state] += 1
        return out


def classify(up: Upstream, rev: Revision, target: Target) -> State:
    """The state of one cited target at ``rev``."""
    path, symbol, lines = target
    res = rev.resolve(path)
    if res.how == "absent":
        return State("file-absent", res, f"no file {path} at {rev.short}")
    if res.how == "ambiguous":
        shown = ", ".join(res.candidates[:6]) + (" ..." if len(res.candidates) > 6 else "")
        return State("ambiguous", res, f"{len(res.candidates)} files match {path}: {shown}")
    assert res.path is not None  # (resolved: neither absent nor ambiguous)
    oid = rev.oid(res.path)
    if lines is not None:
        text = up.lines(oid)
        first, last = lines
        if first < 1:
            return State("stale", res, f"line {first} does not exist")
        if last > len(text):
            return State("stale", res, f"line {last} is beyond the end of {res.path} ({len(text)} lines)")
        return State("fresh", res, text=text[first - 1 : last])
    assert symbol is not None  # (a target cites lines or a symbol)
    syms = up.symbols(res.path, oid)
    parts = split_symbol(symbol)
    if syms.language is None:
        if parts[-1] in (syms.words or ()):
            return State("fresh", res, "found as a word (no grammar for this file type)")
        return State("stale", res, f"{parts[-1]} does not occur in {res.path}")
    found = syms.find(symbol)
    if found:
        return State("fresh", res, found=found)
    others = syms.named(parts[-1])
    return State("stale", res, _why_stale(symbol, parts, res.path, syms.imports.get(parts[-1])), others=others)


def _why_stale(symbol: str, parts: list[str], path: str, imported: int | None) -> str:
    if len(parts) == 1:
        text = f"no free function, class or module-level name {symbol} in {path}"
    else:
        text = f"no definition of {symbol} in {path}"
    if imported:
        text += f"; imported at line {imported}, defined elsewhere"
    return text


def compare(up: Upstream, old: State, new: State, to: Revision, target: Target) -> Change:
    """The change of one target from the pin to ``--to`` (without removals)."""
    if old.ok and not new.ok:
        change = "newly-stale"
    elif new.ok and not old.ok:
        change = "repaired"
    else:
        change = "unchanged"
    out = Change(change)
    if target[2] is not None and old.text is not None:
        _follow_lines(up, to, old, new, target[2], out)
    return out


def _follow_lines(up: Upstream, to: Revision, old: State, new: State, lines: tuple[int, int], out: Change, path: str | None = None) -> None:
    """Is the cited text still at its line at ``to``, moved, or changed?"""
    path = path or new.path
    if path is None or to.oid(path) is None:
        return
    now = up.lines(to.oid(path))
    want = old.text or []
    first = lines[0]
    renamed = path != old.path
    if now[first - 1 : first - 1 + len(want)] == want:
        best = first
    elif any(w.strip() for w in want):  # blank lines cannot be followed
        best = None
        for i, line in enumerate(now):
            if line == want[0] and now[i : i + len(want)] == want:
                if best is None or abs(i + 1 - first) < abs(best - first):
                    best = i + 1
    else:
        best = None
    if best is None:
        out.line_status = "changed"
    elif best == first and not renamed:
        out.line_status, out.line_now = "same", first
    else:
        out.line_status, out.line_now = "moved", best
        out.line_path = path if renamed else None


def run(up: Upstream, citations: list[Citation], pin: Revision, to: Revision | None, step: Callable[[], None] | None = None) -> Result:
    """Classify every citation at the pin (and at ``--to``), then the delta."""
    result = Result(up.path, pin, to, citations, {})
    targets: dict[Target, None] = {}
    for cite in citations:
        targets.setdefault(cite.target)
    for target in targets:
        result.at_pin[target] = classify(up, pin, target)
        if to is not None:
            result.at_to[target] = classify(up, to, target)
        if step is not None:
            step()
    last, last_states = (to, result.at_to) if to is not None else (pin, result.at_pin)
    if to is not None:
        old_paths = {s.path for t, s in result.at_pin.items() if s.path and not result.at_to[t].path}
        removals = up.removals(pin, to, sorted(old_paths))
        for target in targets:
            old, new = result.at_pin[target], result.at_to[target]
            change = compare(up, old, new, to, target)
            if old.path and new.state == "file-absent":
                change.removal = removals.get(old.path)
                if change.removal and change.removal.final and target[2] is not None and old.text is not None:
                    _follow_lines(up, to, old, new, target[2], change, change.removal.final)
            result.changes[target] = change
    _where_now(up, result, last, last_states)
    return result


def _where_now(up: Upstream, result: Result, rev: Revision, states: dict[Target, State]) -> None:
    """For each stale or absent symbol citation, where its name is defined at ``rev``."""
    stale = [(t, symbol) for t, s in states.items() if (symbol := t[1]) is not None and s.state in ("stale", "file-absent")]
    if not stale:
        return
    queries = {tuple(_query(split_symbol(symbol))) for _, symbol in stale}
    places = up.where_defined(rev, sorted(queries))
    for target, symbol in stale:
        parts = split_symbol(symbol)
        family = _family(target[0])
        owner = parts[-2] if len(parts) > 1 else None
        found = [
            (p, d)
            for p, d in places.get(parts[-1], [])
            if (family is None or _family(p) == family) and (owner is None or owner.encode() in up.blob(rev.oid(p)))
        ]
        same = [(p, d) for p, d in found if d.matches(parts)]
        shown = same or found
        info = Elsewhere(shown[:PLACES], moved=bool(same), total=len(shown))
        old = result.at_pin.get(target)
        new = states[target]
        if result.to is not None and old is not None and old.path and new.path == old.path:
            owner = ".".join(parts[:-1])
            before = {d.qualname for d in up.symbols(old.path, result.pin.oid(old.path)).definitions}
            info.added = [
                d
                for d in up.symbols(new.path, rev.oid(new.path)).definitions
                if d.qualname not in before and (d.qualname.rsplit(".", 1)[0] == owner if owner else not d.is_member)
            ]
        result.elsewhere[target] = info


def _family(path: str) -> str | None:
    """Python, or C/C++ (one family: a header's symbol may move to a source)."""
    lang = language(path)
    return "c" if lang == "cpp" else lang


def _query(parts: list[str]) -> list[str]:
    """What a file must hold to be parsed for a symbol: its name and its class."""
    return [parts[-1], parts[-2]] if len(parts) > 1 else [parts[-1]]

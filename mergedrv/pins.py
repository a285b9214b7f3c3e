"""Pins in `.mergedrv.toml`: reading each record's ``pin = N`` line and
setting it, counting the keys both sides of a merge added (one key in the
merge, counted once), and reading a commit message's claims of pin moves
(`NAME old -> new`); merging pins as counters is `mergedrv.merge.counted`."""

from __future__ import annotations

import os
import re

from . import rx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .config import Config, Record

ARROWS = ("->", "→", "=>", "⟶")  # what may stand between a claim's old and new count (`MODEL 326 -> 327`)

_HEADER = rx.compile(rb"^\s*\[")
_NAME = rx.compile(rb"""^\s*name\s*=\s*(?:"([^"]*)"|'([^']*)')""")  # (a basic string may hold ', a literal one ")
_PIN = rx.compile(rb"^(\s*pin\s*=\s*)([-+]?\d[\d_]*)(.*)$", rx.S)  # TOML allows 1_000


def pin_lines(text: bytes) -> dict[str, tuple[int, int]]:
    """Record name -> (line index, pin value) for every ``pin = N`` line."""
    out: dict[str, tuple[int, int]] = {}
    lines = text.splitlines(keepends=True)
    name = None
    pin = None
    in_record = False

    def flush() -> None:
        if in_record and name is not None and pin is not None:
            out[name] = pin

    for i, line in enumerate(lines):
        if _HEADER.match(line):
            flush()
            in_record = line.strip().startswith(b"[[record]]")
            name = pin = None
            continue
        if not in_record:
            continue
        m = _NAME.match(line)
        if m:
            name = _name(m)
        m = _PIN.match(line)
        if m:
            pin = (i, int(m.group(2).replace(b"_", b"")))
    flush()
    return out


def set_pin(text: bytes, index: int, value: int) -> bytes:
    """``text`` with the pin on line ``index`` (0-based) set to ``value``, the rest as it was."""
    lines = text.splitlines(keepends=True)
    m = _PIN.match(lines[index])
    assert m is not None, f"line {index + 1} holds no pin"  # (the caller found the pin there)
    lines[index] = m.group(1) + str(value).encode() + m.group(3)
    return b"".join(lines)


# --- keys both sides added: one key in the merge, counted once ---------------


def _name(m) -> str:
    """The record name a `_NAME` match holds (its basic or its literal string)."""
    return (m.group(1) if m.group(1) is not None else m.group(2)).decode("utf-8", "replace")


def record_names(text: bytes) -> list[str]:
    """The ``name`` of every ``[[record]]`` of a `.mergedrv.toml` text, read as `pin_lines` reads them."""
    out: list[str] = []
    in_record = False
    for line in text.splitlines():
        if _HEADER.match(line):
            in_record = line.strip().startswith(b"[[record]]")
            continue
        m = _NAME.match(line) if in_record else None
        if m:
            out.append(_name(m))
            in_record = False  # (one name a record)
    return out


def moved_pins(text: bytes, other: bytes) -> set[str] | None:
    """The records whose pin differs between two `.mergedrv.toml` texts, when
    that is all that differs (None when anything else does)."""
    pins, others = pin_lines(text), pin_lines(other)
    if set(pins) != set(others):
        return None
    moved = {name for name in pins if pins[name][1] != others[name][1]}
    same = other
    for name in moved:
        if others[name][0] != pins[name][0]:
            return None
        same = set_pin(same, others[name][0], pins[name][1])
    return moved if same == text else None


def added_on_both_sides(root: str, record: Record | None, base: str, ours: str, theirs: str) -> int:
    """How many keys that ``record``'s pin counts (its ``pin_column``) both
    ``ours`` and ``theirs`` added since ``base`` (revisions): a key both
    sides added is one key in the merge, a double definition too; 0 where
    that cannot be read."""
    from . import model
    from .git import git_or_none
    from .model.cells import namespace
    from .names import normalize_name

    if record is None or any(c in record.path for c in "*?["):
        return 0
    cols = record.key_columns()
    want = normalize_name(record.pin_counts())
    ns = next((c for c in cols[1:] if normalize_name(c) == want), None)

    path, key, key_pattern = record.path, record.key, record.key_pattern

    def keys(rev: str) -> set[str]:
        data = git_or_none(root, "show", f"{rev}:{path}")
        if data is None:
            return set()
        try:
            rows = model.parse(data, key, key_pattern=key_pattern).rows()
        except model.Unmodelable:
            return set()
        return {r.key for r in rows if r.key is not None and (len(cols) == 1 or namespace(r.key) == ns)}

    o = keys(base)
    return len((keys(ours) - o) & (keys(theirs) - o))


def added_twice_between(root: str, revs: tuple[str, str, str] | None, configs: list[bytes]) -> Callable[[str], int | None]:
    """For `merged_pins`: record name -> how many of its keys both sides of
    ``revs`` (base, ours, theirs) added, the record read from the first of
    ``configs`` (`.mergedrv.toml` texts) that loads and declares it; None for
    every name when ``revs`` is None (the revisions are not known)."""
    from . import config as cfgmod
    from .errors import Error

    def count(name: str) -> int | None:
        if revs is None:
            return None
        for data in configs:
            try:
                record = cfgmod.load_bytes(data).record_named(name)
            except Error:
                continue
            if record is not None:
                return added_on_both_sides(root, record, *revs)
        return 0

    return count


UNCOUNTED = "mergedrv/pins-uncounted"  # in the git folder: pins the driver merged without the record's keys


def remember_uncounted(root: str, names: list[str], base: bytes, ours: bytes, theirs: bytes, merged: bytes) -> None:
    """Note, for `mergedrv fix`, the pins the driver merged as counters
    without the record's keys: one line ``HEAD value most name`` each, where
    ``most`` is how many keys both sides may have added (the smaller move).
    Never fails the merge."""
    from .git import git_or_none, git_path

    try:
        head = git_or_none(root, "rev-parse", "-q", "--verify", "HEAD")
        po, pa, pb, pm = (pin_lines(t) for t in (base, ours, theirs, merged))
        lines = []
        for name in dict.fromkeys(names):
            if name in po and name in pa and name in pb and name in pm and head:
                most = max(0, min(pa[name][1] - po[name][1], pb[name][1] - po[name][1]))
                lines.append(f"{head.decode().strip()} {pm[name][1]} {most} {name}\n")
        if lines:
            where = git_path(root, UNCOUNTED)
            os.makedirs(os.path.dirname(where), exist_ok=True)
            with open(where, "a", encoding="utf-8") as fh:
                fh.write("".join(lines))
    except Exception:  # noqa: BLE001 - a note must not cost a merge
        pass


class DriverCount:
    """For the driver's pins merged as counters: record name -> how many of
    its keys both sides of the merge (or rebase step, or cherry-pick) git is
    running added, each one key in the merged record (a double definition
    too), so counted once; as `mergedrv fix` counts them.  The revisions are
    read lazily, only for a pin both sides moved; None where they cannot be
    known (a single cherry-pick before git 2.44, `git am`): those names are
    kept in ``unknown``.  ``labels`` are the driver's (base, ours, theirs)."""

    __slots__ = ("cfg", "path", "labels", "base", "theirs", "revs", "unknown")

    def __init__(self, cfg: Config, path: str, labels: tuple[str, str, str] | None, base: bytes, theirs: bytes) -> None:
        self.cfg = cfg
        self.path = path
        self.labels = labels
        self.base = base
        self.theirs = theirs
        self.revs: list[tuple[str, str, str] | None] = []
        self.unknown: list[str] = []

    def __call__(self, name: str) -> int | None:
        if not self.revs:
            from .revisions import labelled_revisions, merge_revisions

            found = merge_revisions(".", self.path, self.base, self.theirs)
            self.revs.append(found or labelled_revisions(".", self.path, self.labels, self.base, self.theirs))
        revs = self.revs[0]
        if revs is None:
            self.unknown.append(name)
            return None
        try:
            return added_on_both_sides(".", self.cfg.record_named(name), *revs)
        except Exception:  # noqa: BLE001 - a pin must not cost a merge
            self.unknown.append(name)
            return None


def claims(message: str, names: list[str]) -> list[tuple[str, int, int, int]]:
    """``NAME old -> new`` claims in a message: (name, old, new, 1-based line).

    A claim stands on a line of its own: the line holds nothing but claims
    (``MODEL 326 -> 327``; several separated by ``,`` or ``;``), optionally
    after a list marker (``-``, ``*``, ``+``), in backticks, with a final
    ``.``.  Up to three words may stand between the name and the numbers
    (``MODEL pin 362 -> 369``).  A claim quoted inside other text, such as
    a checker's output (``check-agent-record.py: MODEL 327 -> 326
    (expected)``), is no claim.
    """
    lines = [line.rstrip("\r") for line in message.split("\n")]  # (an editor's CRLF: git strips it as trailing space)
    arrowed = "\n".join(line for line in lines if any(a in line for a in ARROWS))
    names = [n for n in set(names) if n in arrowed]  # (the pattern compiles with the names a claim line may hold)
    if not names:
        return []
    alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    arrow = "|".join(re.escape(a) for a in ARROWS)
    one = rf"`?({alt})(?![\w-])(?:[ \t]+[A-Za-z']+){{0,3}}[ \t]*[:=]?[ \t]*(\d+)[ \t]*(?:{arrow})[ \t]*(\d+)`?"
    one_rx = re.compile(one)
    whole = re.compile(rf"[ \t]*(?:[-*+][ \t]+)?`?{one}(?:[ \t]*[,;][ \t]*{one})*`?[ \t]*\.?[ \t]*")
    out = []
    for n, line in enumerate(lines):
        if whole.fullmatch(line) is None:
            continue
        for m in one_rx.finditer(line):
            out.append((m.group(1), int(m.group(2)), int(m.group(3)), n + 1))
    return out


def claim_chains(said: list[tuple[str, int, int, int]]) -> dict[str, tuple[int, int]]:
    """Names claimed more than once, each claim going on from where the one
    before it ended (``326 -> 327``, then ``327 -> 328``: the commits a
    squash merge gathered, their messages quoted): name -> (first old, last
    new), judged as one move."""
    by: dict[str, list[tuple[int, int]]] = {}
    for name, old, new, _ in said:
        by.setdefault(name, []).append((old, new))
    return {name: (moves[0][0], moves[-1][1]) for name, moves in by.items()
            if len(moves) > 1 and all(a[1] == b[0] for a, b in zip(moves, moves[1:]))}


def chain_holds(chain: tuple[int, int], before: int | None, now: int) -> bool:
    """The claims of a chain make the move (from another start, too: a rebased squash)."""
    first, last = chain
    return last == now if before is None else last - first == now - before
